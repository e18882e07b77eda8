import { fileURLToPath } from 'node:url';
import { loadJudgeTemplates } from '@assay/judge';
import { OpenAIChatClient } from '@assay/llm';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  DbCallStore,
  exportAssessmentSet,
  getScoreSetDetail,
  importCollection,
  importNuggetBank,
  importResponseSet,
  runLlmAssessment,
  scoreResponseSet,
} from '../src/index.js';

// A model's answer holding a NUL character (which no database text takes) fails the one
// item it answers, with the reason; the rest of the run is stored, and a rerun pays only
// for the item that failed.

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const templates = loadJudgeTemplates(JUDGES);
const NOT_STORED =
  'the answer could not be stored: a text holds a character that cannot be stored (a NUL character)';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function userOf(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

forEachDatabase('answers the database cannot store', (t) => {
  const deps = (s: TestServer) => ({
    client: new OpenAIChatClient({ baseURL: s.baseURL, apiKey: 'k' }),
    store: new DbCallStore(t.db),
    sleep: async () => {},
    random: () => 0,
  });

  it('fails the nugget assignment whose answer holds a NUL and stores the rest', async () => {
    await importCollection(t.db, { name: 'rag', format: 'jsonl', text: '', file: 'e.jsonl' });
    await importNuggetBank(t.db, {
      collection: 'rag',
      bank: 'nist',
      text: [
        { qid: 't1', nuggets: [{ text: 'solar power', importance: 'vital' }] },
        { qid: 't2', nuggets: [{ text: 'iron oxide', importance: 'vital' }] },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    });
    await importResponseSet(t.db, {
      name: 'answers',
      text: [
        { topic: 't1', system: 'A', query: 'energy?', answer: 'Solar power.' },
        { topic: 't1', system: 'B', query: 'energy?', answer: 'Wind.' },
        { topic: 't2', system: 'A', query: 'rust?', answer: 'Iron oxide.' },
        { topic: 't2', system: 'B', query: 'rust?', answer: 'Red stuff.' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    });
    // The answer about "Red stuff." ends in a NUL character: it reads, but cannot be kept.
    // The answers about "Wind." are unreadable, and hold a NUL too.
    server = await startOpenAITestServer((body) => {
      const user = userOf(body);
      if (user.includes('Red stuff.')) return { reply: '{"1":"not_support"}\u0000' };
      if (user.includes('Wind.')) return { reply: 'no\u0000 idea' };
      return {
        reply: JSON.stringify({
          '1': /Solar power\.|Iron oxide\./.test(user) ? 'support' : 'not_support',
        }),
      };
    });
    const input = {
      collection: 'rag',
      kind: 'nuggets' as const,
      name: 'llm',
      responseSet: 'answers',
      bank: { name: 'nist' },
      template: templates.get('nugget-assign')!,
      settings: { model: 'm' },
    };
    const first = await runLlmAssessment(t.db, deps(server), input);
    // Two answers read at once, one read but not kept, one asked three times.
    expect(first.report.paidCalls).toBe(6);
    expect(first.failures).toEqual([
      {
        topic: 't1',
        system: 'B',
        item: expect.any(String),
        reason:
          'unreadable answer after 3 attempts: no JSON object and no labelled grade in the answer' +
          ' (the raw answer could not be stored: a text holds a character that cannot be stored (a NUL character))',
      },
      { topic: 't2', system: 'B', item: expect.any(String), reason: NOT_STORED },
    ]);
    expect(first.set).toMatchObject({ judged: 2, failed: 2 });
    // The two answers judged are exported; the failed ones are not.
    const exported = await exportAssessmentSet(t.db, first.set!.id);
    expect(
      exported.text
        .trim()
        .split('\n')
        .map((l) => {
          const r = JSON.parse(l) as {
            qid: string;
            system: string;
            nuggets: Array<{ assignment: string }>;
          };
          return [r.qid, r.system, r.nuggets[0]!.assignment];
        }),
    ).toEqual([
      ['t1', 'A', 'support'],
      ['t2', 'A', 'support'],
    ]);
    // Every call is kept, those with a NUL without their answer, saying why.
    const calls = await t.db
      .selectFrom('llm_calls')
      .select(['response', 'error'])
      .where('error', 'is not', null)
      .execute();
    expect(calls).toEqual(Array.from({ length: 4 }, () => ({ response: null, error: NOT_STORED })));
    expect(await t.db.selectFrom('llm_calls').select('id').execute()).toHaveLength(6);

    // A rerun pays for the failed items only.
    const again = await runLlmAssessment(t.db, deps(server), input);
    expect(again.report.paidCalls).toBe(4);
    expect(again.report.cachedAnswers).toBe(2);
    expect(again.set).toMatchObject({ judged: 2, failed: 2 });
    expect(server.requests).toHaveLength(10);
  });

  it('fails the answer score whose judge answer holds a NUL and stores the rest', async () => {
    await importResponseSet(t.db, {
      name: 'rs',
      text: [
        { topic: 'q1', system: 'a', query: 'first request', answer: 'A1 [4]' },
        { topic: 'q1', system: 'b', query: 'first request', answer: 'B1 [2]' },
        { topic: 'q2', system: 'a', query: 'second request', answer: 'A2 [5]' },
        { topic: 'q2', system: 'b', query: 'second request', answer: 'B2 [3]' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    });
    // B1's answer ends in a NUL character (the call cannot keep it); A2's justification
    // holds one written as the escape \u0000 (the call keeps it, the score row could not).
    server = await startOpenAITestServer((body) => {
      const user = userOf(body);
      const v = Number(/\[(\d)\]/.exec(user)![1]);
      const answer = JSON.stringify({
        informativeness: v,
        completeness: v,
        novelty: v,
        actionability: v,
        justification: user.includes('A2 [5]') ? 'grade\u0000 5' : `grade ${v}`,
      });
      return { reply: user.includes('B1 [2]') ? `${answer}\u0000` : answer };
    });
    const input = {
      responseSet: 'rs',
      name: 'aq',
      template: templates.get('answer-quality')!,
      settings: { model: 'm' },
    };
    const scored = await scoreResponseSet(t.db, deps(server), input);
    expect(scored).toMatchObject({ scored: 2, failed: 2, failures: 2 });
    const rows = (await getScoreSetDetail(t.db, scored.id, {})).rows.map((r) => [
      r.topicId,
      r.system,
      r.scores?.informativeness ?? null,
      r.error,
    ]);
    expect(rows).toEqual([
      ['q1', 'a', 4, null],
      ['q1', 'b', null, NOT_STORED],
      ['q2', 'a', null, NOT_STORED],
      ['q2', 'b', 3, null],
    ]);
    // Another score set of the same answers pays again only for the call not kept (B1);
    // A2's kept answer is read again and fails again, a1 and b2 are read as scores.
    const again = await scoreResponseSet(t.db, deps(server), { ...input, name: 'aq-2' });
    expect(again).toMatchObject({ scored: 2, failed: 2 });
    expect(again.settings.calls).toMatchObject({ paid: 1, cached: 2 });
    expect(server.requests).toHaveLength(5);
  });
});
