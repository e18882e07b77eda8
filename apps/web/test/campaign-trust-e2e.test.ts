// End-to-end in Chromium: campaigns people can trust. A campaign made from runs that cover
// topics and documents the collection lacks says what it left out, and its first item is
// never blank; an annotator labelling blind is never also put where other label sets'
// grades of the same items show, and sees the campaign's neutral title, not its name.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, shots, startWebHarness, type WebHarness } from './harness.js';

const ADMIN = 'assay_e2e-trust-admin-token-0123456789';

const DOCS = 'd1\tpassage one about wings\nd2\tpassage two about flutter\nd3\tpassage three\n';
const TOPICS = '1\twing flutter\n2\tboundary layer\n';
// Topics 1 and 2 are in the collection; 901–903 are not, and neither is document x9.
// Depth 2 pools 1/d1 1/d2 2/d3 2/x9 and six pairs of the missing topics: 3 held, 7 left out.
const RUN = [
  '1 Q0 d1 1 3 r',
  '1 Q0 d2 2 2 r',
  '2 Q0 d3 1 3 r',
  '2 Q0 x9 2 2 r',
  ...[901, 902, 903].flatMap((t) => [`${t} Q0 d1 1 3 r`, `${t} Q0 d2 2 2 r`]),
].join('\n');
const LLM = '1 0 d1 3\n1 0 d2 0\n2 0 d3 2\n';

describe.skipIf(!hasChromium && process.env.CI !== 'true')(
  'trustworthy campaigns in Chromium',
  () => {
    let h: WebHarness;
    const tokens: Record<string, string> = {};
    const call = (method: string, path: string, token: string, body?: string | object) =>
      h.call(method, path, token, body);
    const signedIn = (token: string, path?: string) => h.signedIn(token, path);

    beforeAll(async () => {
      h = await startWebHarness(ADMIN, { name: 'trust' });
      const ok = async (r: Promise<Response>) => {
        const response = await r;
        expect(response.status, await response.clone().text()).toBe(201);
        return response;
      };
      await ok(call('POST', '/collections?name=aero&format=tsv', ADMIN, DOCS));
      await ok(call('POST', '/collections/aero/topics', ADMIN, TOPICS));
      await ok(call('POST', '/collections/aero/runs?name=wide', ADMIN, RUN));
      await ok(call('POST', '/collections/aero/label-sets?name=llm-gpt4o', ADMIN, LLM));
      for (const name of ['ada', 'bob']) {
        const r = await ok(call('POST', '/users', ADMIN, { name, role: 'annotator' }));
        tokens[name] = ((await r.json()) as { token: string }).token;
      }
    }, 240_000);

    afterAll(async () => {
      await h?.close();
    }, 60_000);

    it('makes a campaign from runs with unknown topics, says what it left out, never shows a blank item', async () => {
      const admin = await signedIn(ADMIN, '/admin/collections/aero');
      const pool = admin.getByRole('form', { name: 'pool' });
      await pool.getByLabel('wide').check();
      await pool.getByLabel('Depth').fill('2');
      await pool.getByRole('button', { name: 'Compute pool' }).click();
      await admin.getByText('3 items over 2 topics.').waitFor();
      await admin
        .getByText(
          'Left out of the pool: 3 topics of the runs are not in the collection (901, 902, 903); 1 document of the runs is not in the collection (x9); 7 pairs left out.',
        )
        .waitFor();
      const form = admin.getByRole('form', { name: 'new campaign' });
      await form.getByLabel('Name').fill('blind-vs-gpt4o');
      await form.getByLabel('Title annotators see (optional)').fill('Passage relevance');
      await form.getByLabel('ada', { exact: true }).check();
      await form.getByLabel('llm-gpt4o', { exact: true }).check();
      await form.getByRole('radio', { name: 'n per topic at random' }).check();
      await form.getByRole('button', { name: 'Create campaign' }).click();
      await form
        .getByText(
          'Campaign “blind-vs-gpt4o” has 3 items; 3 topics of the runs are not in the collection (901, 902, 903); 1 document of the runs is not in the collection (x9); 7 pairs left out.',
        )
        .waitFor();
      await admin.screenshot({ path: join(shots, 'campaign-left-out.png'), fullPage: true });
      await admin.getByRole('link', { name: 'blind-vs-gpt4o' }).click();
      await admin.getByText(/Left out when it was made: 3 topics of the runs/).waitFor();
      await admin.getByText('Annotators see it as “Passage relevance”.').waitFor();

      // Ada sees the title, never the name; her first item has its query and passage.
      const ada = await signedIn(tokens.ada!);
      const bodies: string[] = [];
      ada.on('response', async (response) => {
        if (!response.url().includes('/api/')) return;
        try {
          bodies.push(await response.text());
        } catch {
          // A response without a body.
        }
      });
      await ada.getByRole('link', { name: 'Passage relevance' }).click();
      await ada.getByText('Progress: 0 of 3').waitFor();
      await ada.getByRole('heading', { name: 'Labelling: Passage relevance' }).waitFor();
      const query = (await ada.getByRole('heading', { name: /^Query: / }).textContent()) ?? '';
      expect(query.replace('Query: ', '').trim()).not.toBe('');
      const passage = (await ada.getByTestId('passage').textContent()) ?? '';
      expect(passage).toMatch(/^passage (one|two|three)/);
      await ada.screenshot({ path: join(shots, 'campaign-first-item.png'), fullPage: true });
      for (const body of bodies) {
        expect(body).not.toContain('gpt4o');
        expect(body).not.toContain('reference');
      }
    });

    it('refuses to put a blind annotator in a non-blind campaign over the same items: the grades never show', async () => {
      const admin = await signedIn(ADMIN, '/admin/collections/aero');
      const pool = admin.getByRole('form', { name: 'pool' });
      await pool.getByLabel('wide').check();
      await pool.getByLabel('Depth').fill('2');
      await pool.getByRole('button', { name: 'Compute pool' }).click();
      await admin.getByText('3 items over 2 topics.').waitFor();
      const form = admin.getByRole('form', { name: 'new campaign' });
      await form.getByLabel('Name').fill('open-round');
      await form.getByLabel('ada', { exact: true }).check();
      await form.getByLabel('bob', { exact: true }).check();
      await form.getByLabel('llm-gpt4o', { exact: true }).check();
      await form.getByLabel('Blind (annotators never see other labels)').uncheck();
      await form.getByRole('button', { name: 'Create campaign' }).click();
      const alert = admin.getByRole('alert');
      await alert.getByText(/ada \(in campaign "blind-vs-gpt4o"\)/).waitFor();
      await admin.screenshot({ path: join(shots, 'campaign-blindness-409.png'), fullPage: true });
      const campaigns = (await (
        await call('GET', '/collections/aero/campaigns', ADMIN)
      ).json()) as Array<{
        name: string;
      }>;
      expect(campaigns.map((c) => c.name)).toEqual(['blind-vs-gpt4o']);

      // Ada's pages show no other label set's grade: she has only the blind campaign.
      const ada = await signedIn(tokens.ada!);
      const bodies: string[] = [];
      ada.on('response', async (response) => {
        if (!response.url().includes('/api/')) return;
        try {
          bodies.push(await response.text());
        } catch {
          // A response without a body.
        }
      });
      await ada.getByRole('link', { name: 'Passage relevance' }).waitFor();
      expect(await ada.getByRole('link', { name: 'open-round' }).count()).toBe(0);
      await ada.getByRole('link', { name: 'Passage relevance' }).click();
      await ada.getByText(/^Progress: \d of 3/).waitFor();
      expect(await ada.getByText(/Other label sets/).count()).toBe(0);
      // Nor can she read the label set through the API.
      expect(
        (await call('GET', '/collections/aero/label-sets/llm-gpt4o/labels', tokens.ada!)).status,
      ).toBe(403);
      for (const body of bodies) expect(body).not.toContain('llm-gpt4o');
    });
  },
);
