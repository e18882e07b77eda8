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
  importCollection,
  importResponseSet,
  runLlmAssessment,
  scoreAssessmentSet,
} from '../src/index.js';
import { countRows, rejection } from './helpers.js';

// Support of citations where the collection lacks the cited passages, and answers that
// cite nothing: a run that could assess no citation is refused, one that could assess some
// counts the others; an answer without citations scores 0 like any other.

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const template = loadJudgeTemplates(JUDGES).get('citation-support')!;
const SETTINGS = {
  test: 't',
  correction: 'holm',
  alpha: 0.05,
  permutations: 1000,
  seed: 42,
} as const;

/** S1 and S2 cite passages (S2 one the collection lacks); S3 answers in plain text. */
const ANSWERS = [
  { topic: 't1', system: 'S1', query: 'energy?', answer: [{ text: 'Solar.', citations: ['d1'] }] },
  { topic: 't2', system: 'S1', query: 'rust?', answer: [{ text: 'Oxide.', citations: ['d2'] }] },
  {
    topic: 't1',
    system: 'S2',
    query: 'energy?',
    answer: [{ text: 'Wind.', citations: ['d1', 'gone'] }],
  },
  { topic: 't2', system: 'S2', query: 'rust?', answer: [{ text: 'Red.', citations: ['d2'] }] },
  { topic: 't1', system: 'S3', query: 'energy?', answer: 'Solar, I think.' },
  { topic: 't2', system: 'S3', query: 'rust?', answer: 'Iron oxide.' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

forEachDatabase('support of citations that can and cannot be assessed', (t) => {
  const deps = (s: TestServer) => ({
    client: new OpenAIChatClient({ baseURL: s.baseURL, apiKey: 'k' }),
    store: new DbCallStore(t.db),
    sleep: async () => {},
    random: () => 0,
  });
  /** The double: S1's sentences are fully supported, every other one not at all. */
  const start = () =>
    startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const passages = user.split('Cited passages, numbered:\n')[1]!.split('\n\n')[0]!;
      const n = passages.split('\n').filter((l) => /^\[\d+\]/.test(l)).length;
      const label = /The sentence: (Solar|Oxide)\./.test(user) ? 'full' : 'none';
      return {
        reply: JSON.stringify(
          Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i + 1), label])),
        ),
      };
    });

  it('refuses to assess citations when the collection holds none of their passages', async () => {
    server = await start();
    await importCollection(t.db, { name: 'bare', format: 'jsonl', text: '', file: 'e.jsonl' });
    await importResponseSet(t.db, { name: 'answers', text: ANSWERS });
    const input = {
      collection: 'bare',
      kind: 'support' as const,
      responseSet: 'answers',
      template,
      settings: { model: 'm' },
    };
    const message =
      'none of the 3 passages the answers cite is in collection "bare", so none of their 5 ' +
      'citations can be assessed (every system would score 0): add the documents with ' +
      '`assay import documents --collection bare FILE` or POST /api/collections/bare/documents, ' +
      'then run again';
    for (const dryRun of [false, true]) {
      const refused = await rejection(runLlmAssessment(t.db, deps(server), { ...input, dryRun }));
      expect(refused).toMatchObject({ code: 'invalid_input', message });
    }
    expect(server.requests).toHaveLength(0);
    expect(await countRows(t.db, 'rag_assessment_sets')).toBe(0);
  });

  it('counts the citations it cannot assess, and scores an answer without citations 0', async () => {
    server = await start();
    await importCollection(t.db, {
      name: 'rag',
      format: 'jsonl',
      text: '{"id":"d1","text":"Solar power."}\n{"id":"d2","text":"Rust is iron oxide."}',
      file: 'd.jsonl',
    });
    await importResponseSet(t.db, { name: 'answers', text: ANSWERS });
    const run = await runLlmAssessment(t.db, deps(server), {
      collection: 'rag',
      kind: 'support',
      name: 'llm',
      responseSet: 'answers',
      template,
      settings: { model: 'm' },
    });
    // Four sentences cite passages (four calls); S2's second citation has no passage.
    expect(server.requests).toHaveLength(4);
    expect(run).toMatchObject({
      items: 5,
      cannotAssess: { citations: 1, passages: 1 },
      skippedAnswers: 2,
    });
    expect(run.set).toMatchObject({ judged: 5, failed: 0 });

    const scores = await scoreAssessmentSet(t.db, run.set!.id, SETTINGS);
    expect(scores.citations).toEqual({ total: 5, cannotAssess: 1 });
    const precision = Object.fromEntries(
      scores.answers.map((a) => [`${a.topic}/${a.system}`, a.scores.support_precision]),
    );
    // S1: full everywhere; S2: none (its uncheckable citation counts in neither); S3 cites
    // nothing: 0, as an answer without citations scores.
    expect(precision).toEqual({
      't1/S1': 1,
      't1/S2': 0,
      't1/S3': 0,
      't2/S1': 1,
      't2/S2': 0,
      't2/S3': 0,
    });
    expect(scores.leaderboard!.systems).toEqual(['S1', 'S2', 'S3']);
    // The export holds S3's answers too, one uncited sentence each.
    const exported = (await exportAssessmentSet(t.db, run.set!.id)).text.trim().split('\n');
    const lines = exported.map((l) => JSON.parse(l) as { system: string });
    expect(lines.filter((l) => l.system === 'S3')).toEqual([
      { qid: 't1', system: 'S3', sentences: [{ text: 'Solar, I think.', citations: [] }] },
      { qid: 't2', system: 'S3', sentences: [{ text: 'Iron oxide.', citations: [] }] },
    ]);
  });
});
