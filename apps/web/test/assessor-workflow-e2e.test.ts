// End-to-end in Chromium: the assessor's workflow. A campaign made topic by topic serves
// topic 1's passages before topic 2's with the topic's narrative in view, and its grade bar
// stays on screen beside a 12,500-character passage; a flag given with the keyboard shows
// on the admin's campaign page; the history goes back three items and changes a grade,
// which the admin's qrels then carry.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, shots as screenshots, startWebHarness, type WebHarness } from './harness.js';

/** What the test reads of the page's document (its types have no DOM). */
interface PageDocument {
  body: { innerText: string };
  activeElement: { tagName: string } | null;
  querySelector(selector: string): { textContent: string | null } | null;
}

const ADMIN = 'assay_e2e-assessor-admin-token-0123456789';
const LONG = 'flutter of the wing '.repeat(625);
const DOCS = [
  'd1\tpassage one about wing flutter',
  `d2\t${LONG}`,
  'd3\tpassage three about wings',
  'd4\tpassage four about the boundary layer',
  'd5\tpassage five about laminar flow',
].join('\n');
const NARRATIVE_1 = 'A relevant passage explains what makes a wing flutter.';
const TOPICS = [
  JSON.stringify({
    id: '1',
    text: 'wing flutter',
    description: 'Why do wings flutter?',
    narrative: NARRATIVE_1,
  }),
  JSON.stringify({
    id: '2',
    text: 'boundary layer',
    narrative: 'A relevant passage defines the boundary layer.',
  }),
].join('\n');
// Depth 3 pools 1/d1 1/d2 1/d3 2/d4 2/d5.
const RUN = '1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n2 Q0 d4 1 3 r\n2 Q0 d5 2 2 r\n';

describe.skipIf(!hasChromium && process.env.CI !== 'true')(
  'the assessor’s workflow in Chromium',
  () => {
    let e2e: WebHarness;
    let ada = '';
    let campaign = 0;

    beforeAll(async () => {
      e2e = await startWebHarness(ADMIN, { name: 'assessor' });
      const ok = async (r: Promise<Response>) => {
        const response = await r;
        expect(response.status, await response.clone().text()).toBe(201);
        return response;
      };
      await ok(e2e.call('POST', '/collections?name=aero&format=tsv', ADMIN, DOCS));
      await ok(e2e.call('POST', '/collections/aero/topics?format=jsonl', ADMIN, TOPICS));
      await ok(e2e.call('POST', '/collections/aero/runs?name=r', ADMIN, RUN));
      const r = await ok(e2e.call('POST', '/users', ADMIN, { name: 'ada', role: 'annotator' }));
      ada = ((await r.json()) as { token: string }).token;
    }, 240_000);

    afterAll(async () => {
      await e2e?.close();
    }, 60_000);

    const passageHeading = (page: Page) =>
      page.locator('section[aria-label="passage"] h2').textContent();

    /** Waits until the item on screen is not `before` (or everything is labelled). */
    async function nextShown(page: Page, before: string) {
      await page.waitForFunction((prev) => {
        const doc = (globalThis as unknown as { document: PageDocument }).document;
        return (
          doc.body.innerText.includes('Everything is labelled') ||
          (doc.querySelector('section[aria-label="passage"] h2')?.textContent ?? prev) !== prev
        );
      }, before);
    }

    it('serves topic 1’s items before topic 2’s with the narrative in view; a flag by keyboard', async () => {
      const admin = await e2e.signedIn(ADMIN, '/admin/collections/aero');
      const pool = admin.getByRole('form', { name: 'pool' });
      await pool.getByLabel('r', { exact: true }).check();
      await pool.getByLabel('Depth').fill('3');
      await pool.getByRole('button', { name: 'Compute pool' }).click();
      await admin.getByText('5 items over 2 topics.').waitFor();
      const form = admin.getByRole('form', { name: 'new campaign' });
      await form.getByLabel('Name').fill('by-topic');
      await form.getByLabel('ada', { exact: true }).check();
      await form.getByLabel('Topic by topic').check();
      await form.getByRole('button', { name: 'Create campaign' }).click();
      await form.getByText('Campaign “by-topic” has 5 items.').waitFor();
      const list = (await (
        await e2e.call('GET', '/collections/aero/campaigns', ADMIN)
      ).json()) as Array<{ id: number; settings: { order: string } }>;
      campaign = list[0]!.id;
      expect(list[0]!.settings.order).toBe('topic');

      const page = await e2e.signedIn(ada, `/annotate/${campaign}`);
      await page.setViewportSize({ width: 1280, height: 800 });
      const served: string[] = [];
      const grades = ['3', '2', '1', '0', '1'];
      for (const grade of grades) {
        await page.locator('section[aria-label="passage"] h2').waitFor();
        const heading = (await passageHeading(page)) ?? '';
        const topic =
          (await page.getByTestId('topic-panel').locator('.topic-id').textContent()) ?? '';
        served.push(`${topic.replace('topic ', '')}/${heading.replace('Passage ', '')}`);
        if (topic === 'topic 1') {
          expect(await page.getByTestId('narrative').textContent()).toBe(
            `Narrative: ${NARRATIVE_1}`,
          );
        }
        if (heading === 'Passage d2') {
          // 12,500 characters: the passage scrolls on its own, the grades stay on screen.
          expect((await page.getByTestId('passage').textContent())?.length).toBe(12_500);
          const bar = await page.getByRole('group', { name: 'grades' }).boundingBox();
          expect(bar!.y + bar!.height).toBeLessThanOrEqual(800);
          expect(bar!.y).toBeGreaterThanOrEqual(0);
          await page.screenshot({ path: join(screenshots, 'assessor-long-passage.png') });
        }
        if (heading === 'Passage d1') {
          // A flag and a note, by keyboard only: n, an arrow to "passage broken", Tab to the
          // text, Ctrl+Enter to save.
          await page.keyboard.press('n');
          await page.getByRole('group', { name: 'note or flag' }).waitFor();
          await page.getByRole('radio', { name: 'no flag' }).waitFor();
          await page.waitForFunction(
            () =>
              (globalThis as unknown as { document: PageDocument }).document.activeElement
                ?.tagName === 'INPUT',
          );
          await page.keyboard.press('ArrowDown');
          await page.keyboard.press('Tab');
          await page.keyboard.type('cut off after two words');
          await page.keyboard.press('Control+Enter');
          await page.getByText('Note saved (passage broken).').waitFor();
        }
        // A new item may ignore keys for a moment (the input lock): wait that out.
        await page.waitForTimeout(400);
        await page.keyboard.press(grade);
        await nextShown(page, heading);
      }
      await page.getByText('Everything is labelled').waitFor();
      expect(served).toEqual(['1/d1', '1/d2', '1/d3', '2/d4', '2/d5']);
    }, 180_000);

    it('goes back three items in the history and changes a grade the admin then sees', async () => {
      const page = await e2e.signedIn(ada, `/annotate/${campaign}/history`);
      const rows = page.getByTestId('history').locator('tbody tr');
      await rows.nth(4).waitFor();
      const cells = async (i: number) =>
        (await rows.nth(i).locator('td').allTextContents()).slice(1, 4);
      expect(await cells(0)).toEqual(['2: boundary layer', 'd5', '1']);
      expect(await cells(1)).toEqual(['2: boundary layer', 'd4', '0']);
      expect(await cells(2)).toEqual(['1: wing flutter', 'd3', '1']);
      expect(await rows.nth(4).locator('td').nth(5).textContent()).toBe(
        'passage broken: cut off after two words',
      );
      await rows.nth(2).getByRole('link', { name: 'd3' }).click();
      await page.getByTestId('my-grade').getByText('Your grade: 1').waitFor();
      expect(await page.getByTestId('narrative').textContent()).toBe(`Narrative: ${NARRATIVE_1}`);
      await page.keyboard.press('3');
      await page.getByText('Saved: grade 3 (was 1).').waitFor();
      await page.keyboard.press('h');
      await page.waitForURL(`**/annotate/${campaign}/history`);
      await rows.nth(4).waitFor();
      expect(await cells(0)).toEqual(['1: wing flutter', 'd3', '3']);

      const qrels = await (
        await e2e.call('GET', '/collections/aero/label-sets/by-topic/qrels', ADMIN)
      ).text();
      expect(qrels.trim().split('\n')).toEqual([
        '1 0 d1 3',
        '1 0 d2 2',
        '1 0 d3 3',
        '2 0 d4 0',
        '2 0 d5 1',
      ]);
    }, 120_000);

    it('shows the flag on the admin’s campaign page', async () => {
      const admin = await e2e.signedIn(ADMIN, `/admin/campaigns/${campaign}`);
      await admin
        .getByText('Each annotator is served one topic’s items before the next topic’s.')
        .waitFor();
      const row = admin.getByTestId('item-notes').locator('tbody tr');
      await row.first().waitFor();
      expect(await row.count()).toBe(1);
      expect((await row.first().locator('td').allTextContents()).slice(0, 5)).toEqual([
        '1',
        'd1',
        'ada',
        'passage broken',
        'cut off after two words',
      ]);
      await admin.screenshot({ path: join(screenshots, 'campaign-notes.png'), fullPage: true });
    }, 60_000);
  },
);
