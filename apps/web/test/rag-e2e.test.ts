// End-to-end in Debian's Chromium (playwright-core) against the real assay server on
// embedded PGlite and the OpenAI-compatible test double: a person post-edits a nugget bank,
// the LLM assigns its nuggets to answers, and the person assigns them too by keyboard; the
// page shows how far the two agree. Skipped without /usr/bin/chromium unless CI=true.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { runBrowserTests, shots, startWebHarness, type WebHarness } from './harness.js';

const ADMIN = 'assay_e2e-rag-admin-token-0123456789';
const XSS = '<img src=x onerror=alert(1)>';

// Topic t2 has no answers: it is there to switch the editor to another topic and back.
const BANK = [
  {
    qid: 't1',
    nuggets: [
      { text: 'solar power', importance: 'vital', source: 'original' },
      { text: 'wind power', importance: 'vital' },
      { text: 'hydro power', importance: 'vital' },
    ],
  },
  { qid: 't2', nuggets: [{ text: 'tidal power', importance: 'okay' }] },
]
  .map((t) => JSON.stringify(t))
  .join('\n');
const RESPONSES = [
  {
    topic: 't1',
    system: 'A',
    query: 'which energy sources are renewable',
    answer: 'Solar power and wind energy.',
  },
  {
    topic: 't1',
    system: 'B',
    query: 'which energy sources are renewable',
    answer: `Hydro only ${XSS}.`,
  },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

/** The double's rule: support when the answer holds the nugget, partial when its first word. */
function oracle(answer: string, nugget: string): string {
  const a = answer.toLowerCase();
  if (a.includes(nugget)) return 'support';
  return a.includes(nugget.split(' ')[0]!) ? 'partial_support' : 'not_support';
}

describe.skipIf(!runBrowserTests)('RAG evaluation in Chromium', () => {
  let h: WebHarness;
  let llm: TestServer;
  let browser: Browser;
  let base: string;

  async function call(method: string, path: string, body?: object) {
    return fetch(`${base}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  beforeAll(async () => {
    llm = await startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
      const nuggets = [
        ...user.split('Nuggets, numbered:\n')[1]!.matchAll(/^\[(\d+)\] (.*)$/gm),
      ].map((m) => m[2]!);
      return {
        reply: JSON.stringify(
          Object.fromEntries(nuggets.map((n, i) => [String(i + 1), oracle(answer, n)])),
        ),
      };
    });
    h = await startWebHarness(ADMIN, {
      name: 'rag',
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'test-key', ASSAY_JUDGE_MODEL: 'm' },
    });
    ({ browser, base } = h);
    const created = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await created(h.call('POST', '/collections?name=rag&format=tsv', ADMIN, ''));
    await created(call('POST', '/collections/rag/nugget-banks', { name: 'nist', nuggets: BANK }));
    await created(call('POST', '/response-sets', { name: 'answers', responses: RESPONSES }));
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await llm?.close();
  }, 60_000);

  it('post-edits a nugget bank, assigns nuggets by keyboard, and shows the agreement with the LLM', async () => {
    const page = await browser.newPage();
    let alerted = false;
    page.on('dialog', async (dialog) => {
      alerted = true;
      await dialog.dismiss();
    });
    await page.goto(
      `${base}/admin/collections/rag/nuggets/nist#token=${encodeURIComponent(ADMIN)}`,
    );
    const table = page.getByRole('table', { name: 'nuggets of topic t1' });
    await table.waitFor();
    // Post-editing: a text changed, an importance lowered, a nugget added.
    await page.getByLabel('text of nugget 2').fill('wind energy');
    await page.getByRole('button', { name: 'Save text' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByLabel('importance of nugget 3').selectOption('okay');
    await table.getByRole('cell', { name: 'imported, edited' }).nth(1).waitFor();
    const add = page.getByRole('form', { name: 'add a nugget' });
    await add.getByLabel('New nugget').fill('geothermal heat');
    await add.getByRole('button', { name: 'Add nugget' }).click();
    await table.getByRole('cell', { name: 'person', exact: true }).waitFor();
    expect(await page.getByLabel('text of nugget 4').inputValue()).toBe('geothermal heat');
    expect(await table.getByRole('cell', { name: 'imported', exact: true }).count()).toBe(1);
    // Another topic's nuggets, then back: the edits were kept by the server.
    await page.getByRole('combobox', { name: /^Topic/ }).selectOption('t2');
    const t2 = page.getByRole('table', { name: 'nuggets of topic t2' });
    await t2.waitFor();
    expect(await page.getByLabel('text of nugget 1').inputValue()).toBe('tidal power');
    expect(await t2.getByRole('row').count()).toBe(2);
    await page.getByRole('combobox', { name: /^Topic/ }).selectOption('t1');
    await table.waitFor();
    expect(await page.getByLabel('text of nugget 2').inputValue()).toBe('wind energy');
    expect(await page.getByLabel('text of nugget 4').inputValue()).toBe('geothermal heat');
    await page.screenshot({ path: join(shots, 'nugget-bank.png'), fullPage: true });

    // The LLM assigns the edited bank's nuggets (this freezes the version): a dry run first.
    await page.goto(`${base}/admin/collections/rag/rag`);
    const llmForm = page.getByRole('form', { name: 'assess answers with an LLM' });
    await llmForm.getByLabel('Response set').fill('answers');
    await llmForm.getByLabel('Nugget bank').selectOption('nist');
    await llmForm.getByLabel('Set name').fill('llm');
    await llmForm.getByRole('button', { name: 'Dry run' }).click();
    await page.getByTestId('llm-step').filter({ hasText: 'Dry run: 2 calls to send' }).waitFor();
    expect(llm.requests).toHaveLength(0);
    await llmForm.getByRole('button', { name: 'Assess' }).click();
    await page
      .getByTestId('llm-step')
      .filter({ hasText: 'llm: 8 items judged, 0 failed.' })
      .waitFor();
    expect(llm.requests).toHaveLength(2);

    // A blind set for people, compared with the LLM's.
    const form = page.getByRole('form', { name: 'new assessment set for people' });
    await form.getByLabel('Set name').fill('people');
    await form.getByLabel('LLM set').selectOption({ label: 'llm' });
    await form.getByRole('button', { name: 'Create assessment set' }).click();
    await page.getByRole('link', { name: 'Assess' }).click();
    await page.getByText('0 of 8 items labelled').waitFor();
    const item = page.getByTestId('item');
    await expect.poll(() => item.textContent()).toBe('solar power');
    await page.keyboard.press('?');
    await page.getByRole('region', { name: 'keyboard shortcuts' }).waitFor();
    await page.keyboard.press('?');
    // A wrong key, undone.
    await page.keyboard.press('0');
    await page.getByText('1 of 8 items labelled').waitFor();
    await page.keyboard.press('u');
    await page.getByText('Undone: label this item again.').waitFor();
    await page.getByText('0 of 8 items labelled').waitFor();
    // The LLM's labels (A: s s n n; B: n n p n) but hydro power on B, which the person
    // holds supported: 7 of 8 alike.
    const keys = ['2', '2', '0', '0', '0', '0', '2', '0'];
    for (const [i, key] of keys.entries()) {
      if (i === 4) {
        // Answer B's markup is shown as characters, no element made of it.
        const answer = page.getByTestId('answer');
        await expect.poll(() => answer.textContent()).toContain(XSS);
        expect(await answer.locator('img').count()).toBe(0);
        await page.screenshot({ path: join(shots, 'assess-nuggets.png'), fullPage: true });
      }
      await page.keyboard.press(key);
      await page.getByText(`${i + 1} of 8 items labelled`).waitFor();
    }
    // By hand: LLM s 2, p 1, n 5; person s 3, n 5. p_o = 7/8, p_e = (2·3 + 5·5)/64 = 31/64,
    // κ = (56 − 31)/(64 − 31) = 25/33.
    await page
      .getByTestId('agreement')
      .filter({ hasText: "Over 8 items both labelled: Cohen's κ 0.7576, exact agreement 0.8750." })
      .waitFor();
    const matrix = page.getByRole('table', { name: /Confusion matrix/ });
    expect(await matrix.getByRole('row').nth(2).textContent()).toBe('partial_support100');
    await page.screenshot({ path: join(shots, 'assess-agreement.png'), fullPage: true });
    expect(alerted).toBe(false);

    // The set's page ranks the systems from the person's labels.
    const sets = (await (await call('GET', '/collections/rag/assessment-sets')).json()) as Array<{
      id: number;
      name: string;
    }>;
    const people = sets.find((s) => s.name === 'people')!;
    await page.goto(`${base}/admin/assessments/${people.id}`);
    await page.getByRole('heading', { name: 'nuggets assessment set people' }).waitFor();
    await page.getByText('A leaderboard needs two systems on two fully labelled topics.').waitFor();
  });
});
