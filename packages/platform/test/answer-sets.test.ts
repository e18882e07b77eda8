import { fileURLToPath } from 'node:url';
import { createUser } from '@assay/db';
import { loadJudgeTemplates } from '@assay/judge';
import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  getResponseSetDetail,
  getScoreSetDetail,
  importResponseSet,
  importScoreSet,
  listStoredResponseSets,
  removeResponseSet,
  scoreResponseSet,
  scoreSetReport,
} from '../src/index.js';
import { countRows, rejection } from './helpers.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const quality = loadJudgeTemplates(JUDGES).get('answer-quality')!;

const RESPONSES = [
  { topic: 'q1', system: 'a', query: 'first request', answer: 'A1 [4]' },
  { topic: 'q1', system: 'b', query: 'first request', answer: 'B1 [2]' },
  { topic: 'q2', system: 'a', query: 'second request', answer: 'A2 [5]', references: ['d1'] },
  { topic: 'q2', system: 'b', query: 'second request', answer: 'B2 [oops]' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

forEachDatabase('answer sets', (t) => {
  it('stores a responses file as a response set, and nothing of a file with a bad line', async () => {
    const user = await createUser(t.db, { name: 'ada', role: 'admin' });
    const set = await importResponseSet(t.db, {
      name: 'cqed-run',
      text: RESPONSES,
      file: 'r.jsonl',
      createdBy: { id: user.id, name: 'ada' },
    });
    expect(set).toMatchObject({ name: 'cqed-run', responses: 4, topics: 2, systems: 2 });
    const detail = await getResponseSetDetail(t.db, 'cqed-run', { topic: 'q2' });
    expect(detail.answers).toEqual([
      {
        topicId: 'q2',
        system: 'a',
        query: 'second request',
        answer: 'A2 [5]',
        references: ['d1'],
        sentences: null,
      },
      {
        topicId: 'q2',
        system: 'b',
        query: 'second request',
        answer: 'B2 [oops]',
        references: null,
        sentences: null,
      },
    ]);
    const bad = await rejection(
      importResponseSet(t.db, {
        name: 'other',
        text: `${RESPONSES}\n{"topic":"q3"}`,
        file: 'x.jsonl',
      }),
    );
    expect(bad).toMatchObject({
      code: 'invalid_input',
      message: 'x.jsonl:5: "system" must be a non-empty string',
    });
    expect(
      await rejection(importResponseSet(t.db, { name: 'cqed-run', text: RESPONSES })),
    ).toMatchObject({ code: 'conflict' });
    expect(await countRows(t.db, 'responses')).toBe(4);
    expect((await listStoredResponseSets(t.db)).map((s) => s.name)).toEqual(['cqed-run']);
  });

  it('scores a response set into a score set: scored rows and failed rows with their raw text', async () => {
    await importResponseSet(t.db, { name: 'rs', text: RESPONSES });
    server = await startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const m = /\[(\d)\]/.exec(user);
      if (!m) return { reply: 'I would rather not grade this.' };
      const v = Number(m[1]);
      return {
        reply: JSON.stringify({
          informativeness: v,
          completeness: v,
          novelty: v - 1,
          actionability: v,
          justification: `grade ${v}`,
        }),
      };
    });
    const deps = {
      client: new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k' }),
      store: new MemoryCallStore(),
    };
    const scored = await scoreResponseSet(t.db, deps, {
      responseSet: 'rs',
      name: 'aq-pointwise',
      template: quality,
      settings: { model: 'm' },
    });
    expect(scored).toMatchObject({
      name: 'aq-pointwise',
      judgeId: 'answer-quality',
      mode: 'pointwise',
      scored: 3,
      failed: 1,
      failures: 1,
    });
    expect(scored.criteria).toEqual([
      'informativeness',
      'completeness',
      'novelty',
      'actionability',
    ]);
    const detail = await getScoreSetDetail(t.db, scored.id, { topic: 'q2' });
    expect(detail.rows).toEqual([
      {
        topicId: 'q2',
        system: 'a',
        trial: 1,
        scores: { informativeness: 5, completeness: 5, novelty: 4, actionability: 5 },
        justification: 'grade 5',
        label: null,
        error: null,
        raw: null,
      },
      {
        topicId: 'q2',
        system: 'b',
        trial: 1,
        scores: null,
        justification: null,
        label: null,
        error: expect.stringMatching(/^unreadable answer after 3 attempts/),
        raw: 'I would rather not grade this.',
      },
    ]);
    // The report leaves the failed row out: b has one topic (q1, grade 2).
    const { report } = await scoreSetReport(t.db, scored.id, { correction: 'none' });
    expect(report.systems.map((s) => [s.system, s.n, s.means.informativeness])).toEqual([
      ['a', 2, 4.5],
      ['b', 1, 2],
    ]);
    // Only q1 has both systems: a (4) beats b (2).
    expect(report.systems.map((s) => s.winRate.informativeness)).toEqual([1, 0]);
    expect(
      await rejection(
        scoreResponseSet(t.db, deps, {
          responseSet: 'rs',
          name: 'aq-pointwise',
          template: quality,
          settings: { model: 'm' },
        }),
      ),
    ).toMatchObject({ code: 'conflict' });
  });

  it('imports a score file for the answers of the set only, and deletes with the response set', async () => {
    await importResponseSet(t.db, { name: 'rs', text: RESPONSES });
    const lines = [
      '{"topic":"q1","system":"a","trial":1,"scores":{"x":3},"justification":"j"}',
      '',
      '{"topic":"q1","system":"c","trial":1,"scores":{"x":1},"justification":"j"}',
    ];
    expect(
      await rejection(
        importScoreSet(t.db, {
          responseSet: 'rs',
          name: 's',
          text: lines.join('\n'),
          file: 's.jsonl',
        }),
      ),
    ).toMatchObject({
      code: 'invalid_input',
      message: 's.jsonl:3: response set rs has no answer of system c to topic q1',
    });
    expect(await countRows(t.db, 'score_sets')).toBe(0);
    const set = await importScoreSet(t.db, { responseSet: 'rs', name: 's', text: lines[0]! });
    expect(set).toMatchObject({
      mode: 'imported',
      judgeId: 'imported',
      criteria: ['x'],
      scored: 1,
      failed: 0,
    });
    await removeResponseSet(t.db, 'rs');
    expect(await countRows(t.db, 'answer_scores')).toBe(0);
    expect(await rejection(getScoreSetDetail(t.db, set.id))).toMatchObject({ code: 'not_found' });
  });
});
