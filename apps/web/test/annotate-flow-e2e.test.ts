// End-to-end in Chromium: the labelling screen's flow. Keys in the input lock after a new
// item appears grade nothing; a line confirms the last grade and `u` undoes it; the next
// items are fetched ahead, and labelling with a reload in the middle labels every item
// once, in the order served, losing none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  itemOnScreen,
  keysTaken,
  runBrowserTests,
  startWebHarness,
  type WebHarness,
} from './harness.js';

const ADMIN = 'assay_e2e-flow-admin-token-0123456789';
// Twelve passages over two topics: d1–d6 of topic 1, d7–d12 of topic 2.
const DOCS = Array.from({ length: 12 }, (_, i) => `d${i + 1}\tpassage ${i + 1} about wings\n`).join(
  '',
);
const TOPICS = '1\twing flutter\n2\tboundary layer\n';
const item = (n: number) => ({ topic: n <= 6 ? '1' : '2', docno: `d${n}` });

describe.skipIf(!runBrowserTests)('the labelling screen in Chromium', () => {
  let h: WebHarness;
  let ada: string;

  beforeAll(async () => {
    h = await startWebHarness(ADMIN);
    const ok = async (r: Promise<Response>) => {
      const response = await r;
      expect(response.status, await response.clone().text()).toBe(201);
      return response;
    };
    await ok(h.call('POST', '/collections?name=aero&format=tsv', ADMIN, DOCS));
    await ok(h.call('POST', '/collections/aero/topics', ADMIN, TOPICS));
    const user = await ok(h.call('POST', '/users', ADMIN, { name: 'ada', role: 'annotator' }));
    ada = ((await user.json()) as { token: string }).token;
  }, 240_000);

  afterAll(async () => {
    await h?.close();
  }, 60_000);

  async function campaign(name: string, docs: number[], inputLockMs?: number) {
    const made = await h.call('POST', '/collections/aero/campaigns', ADMIN, {
      name,
      items: docs.map(item),
      judge: 'graded-0-3',
      annotators: ['ada'],
      ...(inputLockMs === undefined ? {} : { inputLockMs }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    return ((await made.json()) as { id: number }).id;
  }

  /** The campaign's stored labels as "docno grade", sorted. */
  async function stored(name: string) {
    const labels = (await (
      await h.call('GET', `/collections/aero/label-sets/${name}/labels`, ADMIN)
    ).json()) as Array<{ docId: string; grade: number }>;
    return labels.map((l) => `${l.docId} ${l.grade}`).sort();
  }

  it('ignores keys in the input lock, confirms the last grade and undoes it with u', async () => {
    // A lock of 600 ms: three keys 120 ms apart all fall inside one.
    const id = await campaign('locked', [1, 2, 3, 4], 600);
    const page = await h.signedIn(ada, `/annotate/${id}`);
    await page.getByText('Progress: 0 of 4').waitFor();
    await keysTaken(page);
    const first = await itemOnScreen(page);
    await page.keyboard.press('1');
    await page.waitForTimeout(120);
    await page.keyboard.press('2');
    await page.waitForTimeout(120);
    await page.keyboard.press('3');
    await page.getByText('Progress: 1 of 4').waitFor();
    const hint = page.getByTestId('lock-hint');
    expect(await hint.textContent()).toMatch(
      /^Key 3 ignored: this item appeared \d+ ms ago; keys count from 600 ms after a new item appears/,
    );
    const second = await itemOnScreen(page);
    expect(second).not.toBe(first);
    const confirm = page.getByTestId('last-grade');
    expect((await confirm.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `item ${first} → 1 · u to undo`,
    );
    await page.getByText('All labels saved.').waitFor();
    // Only the first item is graded, with the first key's grade (items are served in order).
    expect(await stored('locked')).toEqual(['d1 1']);

    // After the lock a key grades.
    await keysTaken(page);
    await page.keyboard.press('2');
    await page.getByText('Progress: 2 of 4').waitFor();
    expect((await confirm.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `item ${second} → 2 · u to undo`,
    );
    await page.getByText('All labels saved.').waitFor();
    expect(await stored('locked')).toEqual(['d1 1', 'd2 2']);

    // u undoes the last grade: its item is back on screen, the confirmation gone.
    await page.keyboard.press('u');
    await page.getByText('Undone: grade this item again.').waitFor();
    await page.getByText('Progress: 1 of 4').waitFor();
    expect(await itemOnScreen(page)).toBe(second);
    expect(await confirm.count()).toBe(0);
    expect(await stored('locked')).toEqual(['d1 1']);
    await keysTaken(page);
    await page.keyboard.press('0');
    await page.getByText('Progress: 2 of 4').waitFor();
    await page.getByText('All labels saved.').waitFor();
    expect(await stored('locked')).toEqual(['d1 1', 'd2 0']);
  }, 240_000);

  it('labels every item once, in the order served, with a reload in the middle', async () => {
    const docs = [3, 9, 1, 7, 2, 11, 5, 12, 4, 8];
    const id = await campaign('ahead', docs, 0);
    // The order the server serves them in, and which passage each item is.
    const served = (
      (await (await h.call('GET', `/campaigns/${id}/next-items?count=20`, ada)).json()) as {
        items: Array<{ item: { id: number; document: { id: string } } }>;
      }
    ).items.map((i) => ({ id: i.item.id, doc: i.item.document.id }));
    expect(served.map((s) => s.doc).sort()).toEqual(docs.map((d) => `d${d}`).sort());
    const page = await h.signedIn(ada, `/annotate/${id}`);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) requests.push(new URL(r.url()).pathname);
    });
    await page.getByText('Progress: 0 of 10').waitFor();
    const seen: number[] = [];
    for (let i = 0; i < docs.length; i++) {
      if (i === 4) {
        // Four labels given, possibly not all sent yet: a reload keeps them and goes on.
        await page.reload();
        await page.getByText('Progress: 4 of 10').waitFor();
      }
      seen.push(await itemOnScreen(page));
      await page.keyboard.press(String(i % 4));
      if (i + 1 < docs.length) await page.getByText(`Progress: ${i + 1} of 10`).waitFor();
    }
    await page.getByText('Everything is labelled. Thank you!').waitFor();
    await page.getByText('All labels saved.').waitFor();
    // Every item shown once, in the order served.
    expect(seen).toEqual(served.map((s) => s.id));
    // Each passage has the grade given when it was on screen: the i-th served, i mod 4.
    expect(await stored('ahead')).toEqual(served.map((s, i) => `${s.doc} ${i % 4}`).sort());
    // Items came from the look-ahead: far fewer fetches than items.
    expect(requests.filter((p) => p.endsWith('/next-items')).length).toBeLessThan(10);
  }, 240_000);
});
