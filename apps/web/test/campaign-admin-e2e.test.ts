// End-to-end in Chromium at 1280×800: the admin adjudicates a 1-vs-2 tie from the document
// view (query and passage beside both grades, decided with a key), with no horizontal
// scroll however long the ids; sees the confusion matrix of the two annotators; closes the
// campaign (the annotator's label is refused and her page says it is closed) and reopens it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrowserTests, shots, startWebHarness, type WebHarness } from './harness.js';

const ADMIN = 'assay_e2e-campaign-admin-token-0123456789';
// Long document ids, as MS MARCO v2 has them: the table must wrap or clip them.
const LONG = 'msmarco_passage_41_123456789012_abcdefghijklmnopqrstuvwxyz_0123456789';
const D1 = `${LONG}_1`;
const D2 = `${LONG}_2`;
const DOCS = `${D1}\tWing flutter is a self-excited oscillation of a lifting surface.\n${D2}\tBoundary layers thicken downstream.\n`;
const TOPICS =
  '1\twhat causes wing flutter in aircraft at high speed and how do engineers test for it in wind tunnels\n';

describe.skipIf(!runBrowserTests)('campaign admin in Chromium', () => {
  let app: WebHarness;
  const tokens: Record<string, string> = {};
  let id = 0;
  const items: Record<string, number> = {};

  beforeAll(async () => {
    app = await startWebHarness(ADMIN);
    const ok = async (r: Promise<Response>, status = 201) => {
      const response = await r;
      expect(response.status, await response.clone().text()).toBe(status);
      return response;
    };
    await ok(app.call('POST', '/collections?name=aero&format=tsv', ADMIN, DOCS));
    await ok(app.call('POST', '/collections/aero/topics', ADMIN, TOPICS));
    for (const name of ['ada', 'bob']) {
      const r = await ok(app.call('POST', '/users', ADMIN, { name, role: 'annotator' }));
      tokens[name] = ((await r.json()) as { token: string }).token;
    }
    const r = await ok(
      app.call('POST', '/collections/aero/campaigns', ADMIN, {
        name: 'flutter-round-one',
        items: [
          { topic: '1', docno: D1 },
          { topic: '1', docno: D2 },
        ],
        scale: { min: 0, max: 3 },
        annotators: ['ada', 'bob'],
        overlap: 2,
      }),
    );
    id = ((await r.json()) as { id: number }).id;
    // Ada and Bob each grade both items: D1 1 vs 2 (a tie), D2 3 and 3.
    const grades: Record<string, Record<string, number>> = {
      ada: { [D1]: 1, [D2]: 3 },
      bob: { [D1]: 2, [D2]: 3 },
    };
    for (const who of ['ada', 'bob'])
      for (let k = 0; k < 2; k++) {
        const next = (await (
          await ok(app.call('GET', `/campaigns/${id}/next`, tokens[who]!), 200)
        ).json()) as { item: { id: number; document: { id: string } } };
        items[next.item.document.id] = next.item.id;
        await ok(
          app.call('POST', `/campaigns/${id}/labels`, tokens[who]!, {
            item: next.item.id,
            grade: grades[who]![next.item.document.id]!,
          }),
        );
      }
  }, 600_000);

  afterAll(async () => {
    await app?.close();
  }, 60_000);

  const noHorizontalScroll = (page: import('playwright-core').Page) =>
    page.evaluate(() => {
      // Browser globals, which the test does not type.
      const w = globalThis as unknown as {
        innerWidth: number;
        document: { documentElement: { scrollWidth: number } };
      };
      return w.document.documentElement.scrollWidth <= w.innerWidth;
    });

  it('adjudicates a 1-vs-2 tie from the document view at 1280×800, with no horizontal scroll', async () => {
    const admin = await app.signedIn(ADMIN, `/admin/campaigns/${id}`, { width: 1280, height: 800 });
    const queue = admin.getByRole('table', { name: 'items to adjudicate' });
    await queue.waitFor();
    // One disagreement (D1); D2 is agreed. It is called a tie.
    await expect(queue.getByRole('row').count()).resolves.toBe(2);
    await queue.getByText('1 (tie: the lower grade until you decide)').waitFor();
    expect(await noHorizontalScroll(admin)).toBe(true);

    // A click on the row opens the query, the passage and both grades.
    await queue.getByRole('row').nth(1).getByRole('cell').nth(1).click();
    const view = admin.getByRole('article', { name: `document view of topic 1 document ${D1}` });
    await view
      .getByText('Wing flutter is a self-excited oscillation of a lifting surface.')
      .waitFor();
    await view.getByText(/^Topic 1: what causes wing flutter/).waitFor();
    const grades = view.getByRole('list', { name: 'grades of this item' });
    expect(await grades.getByRole('listitem').allTextContents()).toEqual(['ada: 1', 'bob: 2']);
    await view.getByText('Campaign label: 1 (tie: the lower grade until you decide)').waitFor();
    expect(await noHorizontalScroll(admin)).toBe(true);
    await admin.screenshot({ path: join(shots, 'campaign-document-view.png'), fullPage: true });

    // The key 2 decides.
    await admin.keyboard.press('2');
    await admin.getByRole('status').getByText(`Topic 1, document ${D1}: final grade 2.`).waitFor();
    await view.getByText('Campaign label: 2 (adjudicated)').waitFor();
    const labels = (await (
      await app.call('GET', '/collections/aero/label-sets/flutter-round-one/labels', ADMIN)
    ).json()) as Array<{ docId: string; grade: number }>;
    expect(labels.find((l) => l.docId === D1)?.grade).toBe(2);
    expect(await noHorizontalScroll(admin)).toBe(true);
    await admin.close();
  }, 180_000);

  it('shows the confusion matrix of the two annotators', async () => {
    const admin = await app.signedIn(ADMIN, `/admin/campaigns/${id}`, { width: 1280, height: 800 });
    const matrix = admin.getByRole('table', { name: 'confusion matrix of ada and bob' });
    await matrix.waitFor();
    await matrix.getByText('2 items both labelled; rows: ada', { exact: false }).waitFor();
    // Rows: ada's grade 0..3; columns bob's. D1: ada 1, bob 2; D2: both 3.
    const rows = await matrix
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
    expect(rows).toEqual([
      ['0', '0', '0', '0'],
      ['0', '0', '1', '0'],
      ['0', '0', '0', '0'],
      ['0', '0', '0', '1'],
    ]);
    expect(await noHorizontalScroll(admin)).toBe(true);
    await admin.close();
  }, 180_000);

  it('closes the campaign from its page (the annotator is refused and told), then reopens it', async () => {
    const admin = await app.signedIn(ADMIN, `/admin/campaigns/${id}`, { width: 1280, height: 800 });
    await admin.getByRole('button', { name: 'Close the campaign' }).click();
    await admin.getByTestId('campaign-state').getByText('Closed').waitFor();
    await admin
      .getByText(
        'The campaign is closed: annotators can no longer label in it; their labels are kept.',
      )
      .waitFor();

    const refused = await app.call('POST', `/campaigns/${id}/labels`, tokens.ada!, {
      item: items[D1]!,
      grade: 0,
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^campaign closed/,
    );
    const ada = await app.signedIn(tokens.ada!);
    await ada
      .getByText('closed by the admin: it takes no more labels (yours are kept)', { exact: false })
      .waitFor();
    await ada.goto(`${app.base}/annotate/${id}`);
    await ada.getByText(/campaign closed/).waitFor();
    await ada.close();

    await admin.getByRole('button', { name: 'Reopen the campaign' }).click();
    await admin.getByTestId('campaign-state').getByText('Open').waitFor();
    const again = await app.call('POST', `/campaigns/${id}/labels`, tokens.ada!, {
      item: items[D1]!,
      grade: 0,
    });
    expect(again.status).toBe(201);
    await admin.close();
  }, 180_000);
});
