// End-to-end in Chromium: an admin brings data in from the web app (a new collection from
// a gzipped document file, then topics, two runs and qrels), picks a campaign's judge
// template from the server's list, and reads a leaderboard whose table (means, 95%
// intervals, Judged@10) comes before its charts; admin and public pages fit a phone; a
// judge job that is finished offers nothing to stop.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE (never a judge): every passage graded 1.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { runBrowserTests, shots, startWebHarness, type WebHarness } from './harness.js';

const ADMIN = 'assay_e2e-data-admin-token-0123456789';

// 1,204 passages: the answer's count reads "1,204".
const DOCS =
  Array.from({ length: 1204 }, (_, i) => `d${i + 1}\tpassage ${i + 1} about wing flutter`).join(
    '\n',
  ) + '\n';
const TOPICS = '1\twing flutter\n2\tboundary layer\n3\tshock waves\n';
// Topic t judges d(4t-3) … d(4t) with grades 1, 2, 3, 0.
const QRELS = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} 0 d${(t - 1) * 4 + r} ${r % 4}`))
  .join('\n');
// runA ranks each topic's four judged documents in order (gains 1, 2, 3, 0), runB reversed
// (gains 0, 3, 2, 1). nDCG@10 on every topic, ideal 3, 2, 1, 0 (DCG 3 + 2/log2 3 + 1/2 =
// 4.76186): runA (1 + 2/log2 3 + 3/2) / 4.76186 = 0.7900, runB (3/log2 3 + 2/2 +
// 1/log2 5) / 4.76186 = 0.6979. Every document is judged: Judged@10 is 1 for both.
const RUN_A = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} Q0 d${(t - 1) * 4 + r} ${r} ${10 - r} runA`))
  .join('\n');
const RUN_B = [1, 2, 3]
  .flatMap((t) => [1, 2, 3, 4].map((r) => `${t} Q0 d${(t - 1) * 4 + 5 - r} ${r} ${10 - r} runB`))
  .join('\n');

const PHONE = { width: 390, height: 844 };

/** How wide the page is laid out: wider than the viewport means it scrolls sideways. */
const pageWidth = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );

describe.skipIf(!runBrowserTests)('data in from the web app, in Chromium', () => {
  let app: WebHarness;
  let llm: TestServer;

  beforeAll(async () => {
    const graded = { reply: JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: 1 }) };
    // Model slow-model gets no answer within the worker's 400 ms.
    llm = await startOpenAITestServer((body) =>
      body.model === 'slow-model' ? { delayMs: 30_000, then: graded } : graded,
    );
    // The server's own worker judges the judge jobs at the double.
    app = await startWebHarness(ADMIN, {
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'test-key' },
      workerTimeoutMs: 400,
    });
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await llm?.close();
  }, 60_000);

  it('creates a collection and uploads documents, topics, runs and qrels, with counts and errors in words', async () => {
    const admin = await app.signedIn(ADMIN, '/admin');
    const create = admin.getByRole('form', { name: 'new collection' });
    await create.getByLabel('Name', { exact: true }).fill('flutter');
    await create.getByLabel('File to upload').setInputFiles({
      name: 'docs.tsv.gz',
      mimeType: 'application/gzip',
      buffer: gzipSync(DOCS),
    });
    await create.getByRole('button', { name: 'Create collection' }).click();
    await create
      .getByRole('status')
      .getByText('Collection “flutter” created with 1,204 documents.', { exact: false })
      .waitFor();
    await admin.getByRole('link', { name: 'flutter' }).click();
    await admin.getByText('1,204 documents, 0 topics.').waitFor();

    const topics = admin.getByRole('form', { name: 'upload topics' });
    await topics.getByLabel('File to upload').setInputFiles({
      name: 'topics.tsv',
      mimeType: 'text/tab-separated-values',
      buffer: Buffer.from(TOPICS),
    });
    await topics.getByRole('button', { name: 'Upload topics' }).click();
    await topics.getByRole('status').getByText('3 topics added from topics.tsv.').waitFor();
    await admin.getByText('1,204 documents, 3 topics.').waitFor();

    const run = admin.getByRole('form', { name: 'upload a run' });
    // The official TREC runs have no extension (input.bm25, runA): the picker offers every
    // file for runs, qrels and topics, whose contents the server checks.
    for (const form of ['upload a run', 'upload qrels', 'upload topics'])
      expect(
        await admin
          .getByRole('form', { name: form })
          .getByLabel('File to upload')
          .getAttribute('accept'),
        form,
      ).toBeNull();
    await run.getByLabel('File to upload').setInputFiles({
      name: 'runA.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(RUN_A),
    });
    await run.getByRole('button', { name: 'Upload run' }).click();
    await run
      .getByRole('status')
      .getByText('Run “runA” stored: 12 entries over 3 topics.')
      .waitFor();
    // A run named on the form rather than by its tag, sent gzipped.
    await run.getByLabel('Run name').fill('second');
    await run.getByLabel('File to upload').setInputFiles({
      name: 'runB.txt.gz',
      mimeType: 'application/gzip',
      buffer: gzipSync(RUN_B),
    });
    await run.getByRole('button', { name: 'Upload run' }).click();
    await run
      .getByRole('status')
      .getByText('Run “second” stored: 12 entries over 3 topics.')
      .waitFor();
    // A broken file: the server's reason, naming the file and line, shown in words.
    await run.getByLabel('File to upload').setInputFiles({
      name: 'broken.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('1 Q0 d1 1 2 runC\n1 Q0 d2 two 1 runC\n'),
    });
    await run.getByRole('button', { name: 'Upload run' }).click();
    await run.getByRole('alert').getByText('broken.txt:2', { exact: false }).waitFor();

    const qrels = admin.getByRole('form', { name: 'upload qrels' });
    await qrels.getByLabel('Label set name').fill('nist');
    await qrels.getByLabel('File to upload').setInputFiles({
      name: 'qrels.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(QRELS),
    });
    await qrels.getByRole('button', { name: 'Upload qrels' }).click();
    await qrels
      .getByRole('status')
      .getByText('Label set “nist” stored: 12 labels over 3 topics, grades 0–3.')
      .waitFor();
    await admin.screenshot({ path: join(shots, 'admin-data-uploads.png'), fullPage: true });

    // What the server holds is what the page said.
    const runs = (await (
      await app.call('GET', '/collections/flutter/runs', ADMIN)
    ).json()) as Array<{
      name: string;
      entryCount: number;
    }>;
    expect(runs.map((r) => [r.name, r.entryCount])).toEqual([
      ['runA', 12],
      ['second', 12],
    ]);
    const collection = (await (await app.call('GET', '/collections/flutter', ADMIN)).json()) as {
      documentCount: number;
      topicCount: number;
    };
    expect([collection.documentCount, collection.topicCount]).toEqual([1204, 3]);
  }, 240_000);

  it('picks the campaign’s judge template from the server’s list', async () => {
    const admin = await app.signedIn(ADMIN, '/admin/collections/flutter');
    const form = admin.getByRole('form', { name: 'new campaign' });
    const judge = form.getByRole('combobox', { name: /Judge template/ });
    await judge.locator('option[value="graded-0-3"]').waitFor({ state: 'attached' });
    const offered = await judge
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    const templates = (await (await app.call('GET', '/judges', ADMIN)).json()) as Array<{
      id: string;
      kind: string;
    }>;
    // Every relevance template, and only those.
    expect(offered.sort()).toEqual(
      templates
        .filter((t) => t.kind === 'relevance')
        .map((t) => t.id)
        .sort(),
    );
    expect(offered).toContain('graded-0-3');
    await judge.selectOption('graded-0-3');
    expect(await judge.inputValue()).toBe('graded-0-3');
  }, 120_000);

  it('shows the leaderboard table, with intervals and Judged@10, before its charts', async () => {
    const admin = await app.signedIn(ADMIN, '/admin/collections/flutter');
    const form = admin.getByRole('form', { name: 'new leaderboard' });
    await form.getByLabel('nist').check();
    await form.getByRole('button', { name: 'Compute leaderboard of all runs' }).click();
    await admin.waitForURL(/\/admin\/reports\/\d+$/);
    const table = admin.locator('table.board');
    await table.waitFor();
    const heads = await table.locator('thead th').allTextContents();
    expect(heads.map((h) => h.trim())).toEqual(['#', 'run', 'ndcg_cut_10', '95% CI', 'Judged@10']);
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
      );
    // Per-topic values are the same on every topic: the interval is the mean itself.
    expect(rows.map((r) => [r[0], r[1], r[2]!.slice(0, 6), r[3], r[4]])).toEqual([
      ['a', 'runA', '0.7900', '[0.7900, 0.7900]', '1.0000'],
      ['b', 'second', '0.6979', '[0.6979, 0.6979]', '1.0000'],
    ]);
    await admin.getByText('A mark after a mean lists the runs', { exact: false }).waitFor();
    // The table comes before the first chart.
    const order = await admin.evaluate(() => {
      // The test's types have no DOM: the page's objects are typed by what is used.
      type Element = { compareDocumentPosition(other: Element): number };
      const page = globalThis as unknown as {
        document: { querySelector(selector: string): Element | null };
        Node: { DOCUMENT_POSITION_FOLLOWING: number };
      };
      const board = page.document.querySelector('table.board')!;
      const chart = page.document.querySelector('figure svg')!;
      return Boolean(board.compareDocumentPosition(chart) & page.Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(order).toBe(true);
    // After the table: the interval plot, the per-topic differences and the p-value matrix.
    await expectPlotsAfterTable(admin);
    expect(
      await admin
        .getByRole('img', { name: 'Per-topic ndcg_cut_10 differences: runA − second' })
        .count(),
    ).toBe(1);
    // The date as people read it.
    expect(
      await admin.getByText(/^Computed \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC\.$/).count(),
    ).toBe(1);

    const publish = admin.getByRole('form', { name: 'publish' });
    await publish.getByLabel('Slug').fill('flutter-board');
    await publish.getByRole('button', { name: 'Publish' }).click();
    await admin.getByRole('status').getByText('Published as flutter-board.').waitFor();

    const visitor = await app.browser.newPage();
    await visitor.goto(`${app.base}/leaderboards/flutter-board`);
    const publicTable = visitor.locator('table.board');
    await publicTable.waitFor();
    expect((await publicTable.locator('thead th').allTextContents()).map((h) => h.trim())).toEqual([
      '#',
      'run',
      'ndcg_cut_10',
      '95% CI',
      'Judged@10',
    ]);
    await visitor.getByText(/^Published \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC\.$/).waitFor();
    await expectPlotsAfterTable(visitor);
    // A published leaderboard carries the means, not each topic's scores: said in words.
    await visitor.getByText('No per-topic differences of ndcg_cut_10', { exact: false }).waitFor();
    await visitor.screenshot({ path: join(shots, 'public-leaderboard-table.png'), fullPage: true });
  }, 240_000);

  it('fits admin and public pages in a 390 px wide phone', async () => {
    for (const path of ['/admin', '/admin/collections/flutter', '/leaderboards/flutter-board']) {
      const page = await app.signedIn(ADMIN, path, PHONE);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Every table of the page has been drawn.
      await page.waitForLoadState('networkidle');
      expect(await pageWidth(page), path).toBeLessThanOrEqual(390);
      await page.screenshot({
        path: join(shots, `phone${path.replaceAll('/', '-')}.png`),
        fullPage: true,
      });
      await page.close();
    }
  }, 120_000);

  it('offers Stop only while a judge job has items left: not once it is done', async () => {
    const post = async (labelSet: string, paused: boolean) => {
      const r = await app.call('POST', '/collections/flutter/judge-jobs', ADMIN, {
        labelSet,
        judge: 'graded-0-3',
        settings: { model: 'judge-model' },
        pool: { runs: ['runA'], depth: 1 },
        paused,
      });
      expect(r.status, await r.clone().text()).toBe(201);
      return ((await r.json()) as { id: number }).id;
    };
    const judged = await post('judged', false);
    await post('waiting', true);
    // The server's worker judges the active job's three items.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = (await (await app.call('GET', `/judge-jobs/${judged}`, ADMIN)).json()) as {
        status: string;
      };
      if (job.status === 'done') break;
      if (Date.now() > deadline) throw new Error(`judge job ${judged} is still ${job.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const admin = await app.signedIn(ADMIN, '/admin/collections/flutter');
    const jobs = admin.getByRole('region', { name: 'LLM judge jobs' });
    const row = (name: string) => jobs.getByRole('row').filter({ hasText: name });
    await row('judged').getByRole('cell', { name: 'done', exact: true }).waitFor();
    expect(await row('judged').getByRole('cell', { name: '3 / 3 (100%)' }).count()).toBe(1);
    // Done: nothing to stop (nor to start); the paused job can be started.
    expect(await jobs.getByRole('button', { name: 'stop job judged' }).isDisabled()).toBe(true);
    expect(await jobs.getByRole('button', { name: 'start job waiting' }).isEnabled()).toBe(true);
    await admin.screenshot({ path: join(shots, 'admin-judge-jobs.png'), fullPage: true });
    // Started, the waiting job is judged too, and its Stop goes the same way.
    await jobs.getByRole('button', { name: 'start job waiting' }).click();
    await row('waiting')
      .getByRole('cell', { name: 'done', exact: true })
      .waitFor({ timeout: 60_000 });
    expect(await jobs.getByRole('button', { name: 'stop job waiting' }).isDisabled()).toBe(true);
    // Its prompts are the first job's: answered by the stored calls, none sent again.
    expect(llm.requests).toHaveLength(3);
  }, 180_000);

  it('says a judge job’s calls are timing out while the endpoint does not answer in time', async () => {
    const r = await app.call('POST', '/collections/flutter/judge-jobs', ADMIN, {
      labelSet: 'slow',
      judge: 'graded-0-3',
      settings: { model: 'slow-model' },
      pool: { runs: ['runA'], depth: 1 },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    const admin = await app.signedIn(ADMIN, '/admin/collections/flutter');
    const row = admin
      .getByRole('region', { name: 'LLM judge jobs' })
      .getByRole('row')
      .filter({ hasText: 'slow-model' });
    // Its three items: each call timed out, was tried once more, and went back to pending.
    await row
      .getByRole('cell', { name: 'active: calls timing out (3 items)', exact: true })
      .waitFor({ timeout: 60_000 });
    expect(await row.getByRole('cell', { name: '0 / 3 (0%)' }).count()).toBe(1);
    await admin.screenshot({ path: join(shots, 'admin-judge-job-timing-out.png'), fullPage: true });
  }, 120_000);
});

/** The interval plot and the p-value matrix follow the leaderboard table. */
async function expectPlotsAfterTable(page: Page): Promise<void> {
  const plot = page.getByRole('img', { name: 'ndcg_cut_10: means with 95% confidence intervals' });
  await plot.waitFor();
  const matrix = page.locator('table.matrix');
  await matrix.waitFor();
  const cells = await matrix
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((td) => td.textContent!.trim())),
    );
  // Two runs, one test: its corrected p in both off-diagonal cells.
  const p = /^(\d\.\d{4}|\d\.\d\de-\d+)( \(row (better|worse)\))?$/;
  expect(cells.map((row) => row.map((c) => (p.test(c) ? 'p' : c)))).toEqual([
    ['a runA', '–', 'p'],
    ['b second', 'p', '–'],
  ]);
  const order = await page.evaluate(() => {
    type Element = { compareDocumentPosition(other: Element): number };
    const doc = globalThis as unknown as {
      document: { querySelector(selector: string): Element | null };
      Node: { DOCUMENT_POSITION_FOLLOWING: number };
    };
    const board = doc.document.querySelector('table.board')!;
    const plot = doc.document.querySelector(
      'svg[aria-label$="means with 95% confidence intervals"]',
    )!;
    const matrix = doc.document.querySelector('table.matrix')!;
    const follows = doc.Node.DOCUMENT_POSITION_FOLLOWING;
    return [
      board.compareDocumentPosition(plot) & follows,
      plot.compareDocumentPosition(matrix) & follows,
    ];
  });
  expect(order.map(Boolean)).toEqual([true, true]);
}
