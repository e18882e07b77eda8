import { fileURLToPath } from 'node:url';
import { createUser } from '@assay/db';
import { loadJudgeTemplates } from '@assay/judge';
import { OpenAIChatClient } from '@assay/llm';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  assessmentAgreement,
  assessmentScreen,
  createAssessmentReport,
  createNuggetBankWithLlm,
  createPeopleAssessmentSet,
  DbCallStore,
  editNuggetBank,
  exportAssessmentSet,
  exportNuggetBank,
  getPublishedLeaderboard,
  importAssessmentSet,
  importCollection,
  importNuggetBank,
  importQrels,
  importResponseSet,
  importRubricSet,
  importTopics,
  listAssessmentAnswers,
  nuggetBankDetail,
  parseNuggetBank,
  publishLeaderboard,
  renderLeaderboard,
  runLlmAssessment,
  saveAssessment,
  scoreAssessmentSet,
  undoAssessment,
} from '../src/index.js';
import { countRows, rejection } from './helpers.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const templates = loadJudgeTemplates(JUDGES);
const SETTINGS = {
  test: 't',
  correction: 'holm',
  alpha: 0.05,
  permutations: 1000,
  seed: 42,
} as const;

const BANK = [
  {
    qid: 't1',
    nuggets: [
      { text: 'solar power', importance: 'vital', source: 'original' },
      { text: 'wind power', importance: 'vital' },
      { text: 'hydro power', importance: 'okay' },
    ],
  },
  {
    qid: 't2',
    nuggets: [
      { text: 'iron oxide', importance: 'vital' },
      { text: 'salt water', importance: 'okay' },
    ],
  },
  { qid: 't3', nuggets: [{ text: 'bee pollen', importance: 'vital' }] },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

const RESPONSES = [
  { topic: 't1', system: 'A', query: 'energy?', answer: 'We use solar power and wind.' },
  { topic: 't1', system: 'B', query: 'energy?', answer: 'Hydro power and solar.' },
  { topic: 't2', system: 'A', query: 'rust?', answer: 'Rust is iron oxide, sped by salt water.' },
  { topic: 't2', system: 'B', query: 'rust?', answer: 'Rust is red.' },
  { topic: 't3', system: 'A', query: 'bees?', answer: 'Bees make honey.' },
  { topic: 't3', system: 'B', query: 'bees?', answer: 'Bee pollen is food.' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

/**
 * The double's rule for nugget assignment: support when the answer holds the nugget's
 * text, partial support when it holds only its first word, else not_support.
 */
function oracle(answer: string, nugget: string): string {
  const a = answer.toLowerCase();
  if (a.includes(nugget)) return 'support';
  return a.includes(nugget.split(' ')[0]!) ? 'partial_support' : 'not_support';
}

function userOf(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

function numbered(block: string): string[] {
  return [...block.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2]!);
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function depsOf(s: TestServer, db: ConstructorParameters<typeof DbCallStore>[0]) {
  return {
    client: new OpenAIChatClient({ baseURL: s.baseURL, apiKey: 'k' }),
    store: new DbCallStore(db),
    sleep: async () => {},
    random: () => 0,
  };
}

forEachDatabase('RAG assessment sets', (t) => {
  async function seed() {
    const user = await createUser(t.db, { name: 'ada', role: 'admin' });
    const actor = { id: user.id, name: 'ada' };
    await importCollection(t.db, { name: 'rag', format: 'jsonl', text: '', file: 'empty.jsonl' });
    const bank = await importNuggetBank(t.db, {
      collection: 'rag',
      bank: 'nist',
      text: BANK,
      file: 'bank.jsonl',
    });
    await importResponseSet(t.db, { name: 'answers', text: RESPONSES, file: 'answers.jsonl' });
    return { actor, bank };
  }

  it('refuses a set without what it judges in one wording, whoever makes it', async () => {
    const { actor } = await seed();
    const never = { complete: () => Promise.reject(new Error('nothing is sent')) };
    const deps = { client: never, store: new DbCallStore(t.db) };
    const refusals = async (kind: 'nuggets' | 'rubric', template: string) =>
      Promise.all([
        rejection(
          runLlmAssessment(t.db, deps, {
            collection: 'rag',
            kind,
            responseSet: 'answers',
            template: templates.get(template)!,
            settings: { model: 'm' },
          }),
        ),
        rejection(
          createPeopleAssessmentSet(t.db, {
            collection: 'rag',
            kind,
            name: 'people',
            responseSet: 'answers',
            mode: 'blind',
            createdBy: actor,
          }),
        ),
        rejection(
          importAssessmentSet(t.db, {
            collection: 'rag',
            kind,
            name: 'imported',
            responseSet: 'answers',
            text: '',
          }),
        ),
      ]);
    for (const e of await refusals('nuggets', 'nugget-assign'))
      expect([e.code, e.message]).toEqual([
        'invalid_input',
        'a nuggets assessment set needs a nugget bank (bank)',
      ]);
    for (const e of await refusals('rubric', 'rubric-judge'))
      expect([e.code, e.message]).toEqual([
        'invalid_input',
        'a rubric assessment set needs a rubric set (rubricSet)',
      ]);
    // The answers come first: an unknown response set is named before the missing bank.
    const unknown = await rejection(
      createPeopleAssessmentSet(t.db, {
        collection: 'rag',
        kind: 'nuggets',
        name: 'people',
        responseSet: 'other',
        mode: 'blind',
      }),
    );
    expect([unknown.code, unknown.message]).toEqual(['not_found', 'no response set "other"']);
    expect(await countRows(t.db, 'rag_assessment_sets')).toBe(0);
  });

  it('assigns nuggets by LLM through faults, scores them by hand, and a rerun sends nothing', async () => {
    const { actor, bank } = await seed();
    expect(bank.version).toMatchObject({
      version: 1,
      nuggets: 6,
      vital: 4,
      okay: 2,
      topicCount: 3,
    });
    let first = true;
    let red = 0;
    server = await startOpenAITestServer((body) => {
      const user = userOf(body);
      const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
      const nuggets = numbered(user.split('Nuggets, numbered:')[1]!);
      if (first) {
        first = false;
        return { status: 500, retryAfterMs: '0' };
      }
      // A body cut short, then a dropped connection: each retried, then answered.
      if (answer === 'Rust is red.' && ++red === 1) return { malformedBody: true };
      if (answer === 'Rust is red.' && red === 2) return { drop: true };
      if (answer === 'Bees make honey.') return { reply: 'I cannot tell.' };
      return {
        reply: JSON.stringify(
          Object.fromEntries(nuggets.map((n, i) => [String(i + 1), oracle(answer, n)])),
        ),
      };
    });
    const run = () =>
      runLlmAssessment(t.db, depsOf(server!, t.db), {
        collection: 'rag',
        kind: 'nuggets',
        name: 'llm',
        responseSet: 'answers',
        bank: { name: 'nist' },
        template: templates.get('nugget-assign')!,
        settings: { model: 'm' },
        batchSize: 2,
        createdBy: actor,
      });
    const result = await run();
    expect(result.created).toBe(true);
    expect(result.answers).toBe(6);
    expect(result.items).toBe(12);
    // t3/A never reads: its one nugget fails with the raw answer, never a label.
    expect(result.failures).toEqual([
      expect.objectContaining({ topic: 't3', system: 'A', raw: 'I cannot tell.' }),
    ]);
    expect(result.failures[0]!.reason).toMatch(/unreadable answer after 3 attempts/);
    expect(result.set).toMatchObject({ judged: 11, failed: 1, assessor: 'llm' });

    const sent = server.requests.length;
    const again = await run();
    expect(server.requests.length).toBe(sent);
    expect(again.created).toBe(false);
    expect(again.report.paidCalls).toBe(0);

    const scores = await scoreAssessmentSet(t.db, result.set!.id, SETTINGS);
    expect(scores.incomplete).toEqual([{ topic: 't3', system: 'A', missing: 1 }]);
    const by = (topic: string, system: string) =>
      scores.answers.find((a) => a.topic === topic && a.system === system)!.scores;
    // t1/A: solar support, wind partial, hydro not. t1/B: solar partial, wind not, hydro support.
    expect(by('t1', 'A')).toEqual({
      strict_vital: 0.5,
      vital: 0.75,
      strict_all: 1 / 3,
      all: 0.5,
      weighted: 0.6,
    });
    expect(by('t1', 'B').vital).toBe(0.25);
    expect(by('t1', 'B').weighted).toBeCloseTo(0.4, 15);
    expect(by('t2', 'A').all).toBe(1);
    expect(by('t2', 'B').all).toBe(0);
    // t3 is left out (t3/A not fully judged): the leaderboard is over t1 and t2.
    const c = scores.leaderboard!.report.leaderboards[0]!.comparison;
    expect(c.topicIds).toEqual(['t1', 't2']);
    const mean = (run: string, m: string) => c.runs.find((r) => r.run === run)!.means[m]!;
    expect(mean('A', 'vital')).toBeCloseTo(0.875, 15);
    expect(mean('B', 'vital')).toBeCloseTo(0.125, 15);
    expect(mean('A', 'weighted')).toBeCloseTo(0.8, 15);
    expect(mean('B', 'weighted')).toBeCloseTo(0.2, 15);

    // Stored and published as a leaderboard, downloadable like any comparison.
    const report = await createAssessmentReport(t.db, result.set!.id, {
      settings: SETTINGS,
      createdBy: actor,
    });
    expect(report.provenance.rag).toMatchObject({
      kind: 'nuggets',
      assessmentSet: { name: 'llm' },
      nuggetBank: { name: 'nist', version: 1 },
      incompleteAnswers: 1,
    });
    await publishLeaderboard(t.db, { report: report.id, slug: 'rag-nuggets', publishedBy: actor });
    const published = await getPublishedLeaderboard(t.db, 'rag-nuggets');
    const csv = renderLeaderboard(published.report.result, 'csv').body;
    expect(csv).toContain('run,measure,mean,ci_lower,ci_upper,rank');
    expect(csv).not.toContain('judged_at_10');
    expect(renderLeaderboard(published.report.result, 'html').body).toContain(
      'nugget assignments <code>llm</code>: 2 topics, 2 systems',
    );
    const json = JSON.parse(renderLeaderboard(published.report.result, 'json').body);
    expect(json.runs[0]).toMatchObject({ run: 'A', means: { vital: 0.875 } });
    expect(json.runs[0].judgedAt10).toBeUndefined();

    // Exported in nuggetizer's form and imported back as a set of its own: full agreement.
    const exported = await exportAssessmentSet(t.db, result.set!.id);
    expect(exported.text.trim().split('\n')).toHaveLength(5);
    const imported = await importAssessmentSet(t.db, {
      collection: 'rag',
      kind: 'nuggets',
      name: 'nist-copy',
      responseSet: 'answers',
      bank: { name: 'nist' },
      text: exported.text,
      file: 'out.jsonl',
    });
    const same = await assessmentAgreement(t.db, result.set!.id, imported.id);
    expect(same.overall.n).toBe(11);
    expect(same.overall.exact).toBe(1);
    const bad = await rejection(
      importAssessmentSet(t.db, {
        collection: 'rag',
        kind: 'nuggets',
        name: 'bad',
        responseSet: 'answers',
        bank: { name: 'nist' },
        text: `${exported.text}${JSON.stringify({ qid: 't1', system: 'C', nuggets: [] })}\n`,
        file: 'bad.jsonl',
      }),
    );
    expect(bad.message).toBe('bad.jsonl:6: response set answers has no answer of C to topic t1');
  });

  it('lets people assess blind or post-edit, undo, and measures their agreement with the LLM', async () => {
    const { actor } = await seed();
    server = await startOpenAITestServer((body) => {
      const user = userOf(body);
      const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
      const nuggets = numbered(user.split('Nuggets, numbered:')[1]!);
      return {
        reply: JSON.stringify(
          Object.fromEntries(nuggets.map((n, i) => [String(i + 1), oracle(answer, n)])),
        ),
      };
    });
    const llm = await runLlmAssessment(t.db, depsOf(server, t.db), {
      collection: 'rag',
      kind: 'nuggets',
      name: 'llm',
      responseSet: 'answers',
      bank: { name: 'nist' },
      template: templates.get('nugget-assign')!,
      settings: { model: 'm' },
    });
    const blind = await createPeopleAssessmentSet(t.db, {
      collection: 'rag',
      kind: 'nuggets',
      name: 'people',
      responseSet: 'answers',
      bank: { name: 'nist' },
      mode: 'blind',
      referenceSet: llm.set!.id,
      createdBy: actor,
    });
    const post = await createPeopleAssessmentSet(t.db, {
      collection: 'rag',
      kind: 'nuggets',
      name: 'post',
      responseSet: 'answers',
      mode: 'post_edit',
      referenceSet: llm.set!.id,
    });
    const blindScreen = await assessmentScreen(t.db, blind.id, 't1', 'A');
    expect(blindScreen.items.map((i) => i.text)).toEqual([
      'solar power',
      'wind power',
      'hydro power',
    ]);
    expect(blindScreen.items.every((i) => !('reference' in i))).toBe(true);
    const postScreen = await assessmentScreen(t.db, post.id, 't1', 'A');
    expect(postScreen.items.map((i) => i.reference?.label)).toEqual([
      'support',
      'partial_support',
      'not_support',
    ]);

    const save = async (topic: string, system: string, text: string, label: string) => {
      const screen = await assessmentScreen(t.db, blind.id, topic, system);
      const item = screen.items.find((i) => i.text === text)!.item;
      return saveAssessment(t.db, blind.id, { topic, system, item, label, seconds: 2 }, actor);
    };
    // Undo goes back one change at a time, to nothing.
    await save('t1', 'A', 'solar power', 'partial_support');
    await save('t1', 'A', 'solar power', 'support');
    await undoAssessment(t.db, blind.id, actor);
    expect((await assessmentScreen(t.db, blind.id, 't1', 'A')).items[0]!.label).toBe(
      'partial_support',
    );
    await undoAssessment(t.db, blind.id, actor);
    expect((await assessmentScreen(t.db, blind.id, 't1', 'A')).items[0]!.label).toBeNull();
    expect(await undoAssessment(t.db, blind.id, actor)).toBeUndefined();
    // The person's labels (LLM's in brackets): t1/A s(s) s(p) n(n); t1/B p(p) n(n) s(s); t2/A s(s) p(s).
    await save('t1', 'A', 'solar power', 'support');
    await save('t1', 'A', 'wind power', 'support');
    await save('t1', 'A', 'hydro power', 'not_support');
    await save('t1', 'B', 'solar power', 'partial_support');
    await save('t1', 'B', 'wind power', 'not_support');
    await save('t1', 'B', 'hydro power', 'support');
    await save('t2', 'A', 'iron oxide', 'support');
    await save('t2', 'A', 'salt water', 'partial_support');
    expect(await rejection(save('t2', 'A', 'iron oxide', 'vital'))).toMatchObject({
      code: 'invalid_input',
    });
    const answers = await listAssessmentAnswers(t.db, blind.id);
    expect(answers.find((a) => a.topic === 't1' && a.system === 'A')).toEqual({
      topic: 't1',
      system: 'A',
      items: 3,
      judged: 3,
    });

    const agreement = await assessmentAgreement(t.db, llm.set!.id, blind.id);
    // By hand: 8 items, 6 alike; both raters' marginals s 4, p 2, n 2: p_e = 24/64, κ = (3/4 − 3/8)/(5/8) = 0.6.
    expect(agreement.overall.n).toBe(8);
    expect(agreement.overall.exact).toBe(0.75);
    expect(agreement.overall.kappa).toBeCloseTo(0.6, 12);
    expect(agreement.overall.confusion.matrix).toEqual([
      [3, 1, 0],
      [1, 1, 0],
      [0, 0, 2],
    ]);
    // t1: 5 of 6 alike; LLM s2 p2 n2, person s3 p1 n2: p_e = 12/36, κ = 0.75. t2: κ = 0.
    expect(agreement.perTopic.map((p) => [p.topic, p.n])).toEqual([
      ['t1', 6],
      ['t2', 2],
    ]);
    expect(agreement.perTopic[0]!.kappa).toBeCloseTo(0.75, 12);
    expect(agreement.perTopic[1]!.kappa).toBeCloseTo(0, 12);
  });

  it('lets people judge citations and rubric criteria, and scores them by hand', async () => {
    const user = await createUser(t.db, { name: 'bo', role: 'annotator' });
    const actor = { id: user.id, name: 'bo' };
    await importCollection(t.db, {
      name: 'docs',
      format: 'jsonl',
      text: '{"id":"d1","text":"one"}\n{"id":"d2","title":"Two","text":"two"}',
      file: 'd.jsonl',
    });
    const sentences = (a: string, b: string) =>
      JSON.stringify({
        run_id: a,
        topic_id: 'q',
        topic: 'question',
        references: ['d1', 'd2', 'zz'],
        answer: [
          { text: `${b} first.`, citations: [0, 1] },
          { text: 'Second.', citations: [2] },
          { text: 'Third.', citations: [] },
        ],
      });
    await importResponseSet(t.db, {
      name: 'cited',
      text: `${sentences('A', 'A')}\n${sentences('B', 'B')}\n${JSON.stringify({ topic: 'q2', system: 'A', answer: 'plain text' })}`,
    });
    const support = await createPeopleAssessmentSet(t.db, {
      collection: 'docs',
      kind: 'support',
      name: 'people',
      responseSet: 'cited',
      mode: 'blind',
    });
    // The plain-text answer has no citations to judge.
    expect(await listAssessmentAnswers(t.db, support.id)).toEqual([
      { topic: 'q', system: 'A', items: 3, judged: 0 },
      { topic: 'q', system: 'B', items: 3, judged: 0 },
    ]);
    const screen = await assessmentScreen(t.db, support.id, 'q', 'A');
    expect(screen.items.map((i) => [i.item, i.docid, i.passage])).toEqual([
      ['0/0', 'd1', 'one'],
      ['0/1', 'd2', 'Two\ntwo'],
      ['1/0', 'zz', null],
    ]);
    const give = (system: string, item: string, label: string) =>
      saveAssessment(t.db, support.id, { topic: 'q', system, item, label }, actor);
    await give('A', '0/0', 'full');
    await give('A', '0/1', 'partial');
    await give('A', '1/0', 'cannot_assess');
    await give('B', '0/0', 'none');
    await give('B', '0/1', 'partial');
    await give('B', '1/0', 'full');
    const supportScores = await scoreAssessmentSet(t.db, support.id, SETTINGS);
    const byAnswer = Object.fromEntries(
      supportScores.answers.filter((a) => a.topic === 'q').map((a) => [a.system, a.scores]),
    );
    // The plain-text answer to q2 cites nothing: it scores 0, as answers without citations do.
    expect(supportScores.answers.find((a) => a.topic === 'q2')).toEqual({
      topic: 'q2',
      system: 'A',
      scores: {
        support_precision: 0,
        support_recall: 0,
        strict_support_precision: 0,
        strict_support_recall: 0,
      },
    });
    // A: citations full, partial (zz cannot be assessed): precision 1.5/2; sentences: 1, left
    // out, 0 (uncited) → recall 1/2. B: none, partial, full: 1.5/3; sentences 0.5, 1, 0 → 1.5/3.
    expect(byAnswer.A).toEqual({
      support_precision: 0.75,
      support_recall: 0.5,
      strict_support_precision: 0.5,
      strict_support_recall: 0.5,
    });
    expect(byAnswer.B!.support_precision).toBeCloseTo(0.5, 15);
    expect(byAnswer.B!.support_recall).toBeCloseTo(0.5, 15);
    expect(byAnswer.B!.strict_support_recall).toBeCloseTo(1 / 3, 15);
    const first = await scoreAssessmentSet(t.db, support.id, SETTINGS, { firstCitationOnly: true });
    // B, first citations: none, full → precision 1/2; recall (0 + 1 + 0)/3.
    expect(first.answers.find((a) => a.system === 'B')!.scores.support_recall).toBeCloseTo(
      1 / 3,
      15,
    );

    await importRubricSet(t.db, {
      collection: 'docs',
      name: 'rubric',
      text: JSON.stringify({
        qid: 'q',
        domain: 'x',
        rubrics: [
          { criterion: 'answers the question', weight: 4, axis: 'Explicit' },
          { criterion: 'cites sources', weight: 2, axis: 'Citations' },
          { criterion: 'invents facts', weight: -5, axis: 'Explicit' },
        ],
      }),
    });
    const rubric = await createPeopleAssessmentSet(t.db, {
      collection: 'docs',
      kind: 'rubric',
      name: 'people',
      responseSet: 'cited',
      rubricSet: 'rubric',
      mode: 'blind',
    });
    const criteria = (await assessmentScreen(t.db, rubric.id, 'q', 'A')).items;
    expect(criteria.map((c) => [c.text, c.weight, c.axis])).toEqual([
      ['answers the question', 4, 'Explicit'],
      ['cites sources', 2, 'Citations'],
      ['invents facts', -5, 'Explicit'],
    ]);
    const judge = (system: string, labels: string[]) =>
      Promise.all(
        criteria.map((c, i) =>
          saveAssessment(
            t.db,
            rubric.id,
            { topic: 'q', system, item: c.item, label: labels[i]! },
            actor,
          ),
        ),
      );
    await judge('A', ['met', 'partly_met', 'met']);
    await judge('B', ['partly_met', 'met', 'not_met']);
    const rubricScores = await scoreAssessmentSet(t.db, rubric.id, SETTINGS);
    const a = rubricScores.answers.find((x) => x.system === 'A')!;
    // A: (4 + 1 − 5) / 6 = 0; Explicit (4 − 5)/4, Citations 1/2. B: (2 + 2)/6.
    expect(a.scores.rubric).toBe(0);
    expect(a.axes).toEqual({ Citations: 0.5, Explicit: -0.25 });
    expect(rubricScores.answers.find((x) => x.system === 'B')!.scores.rubric).toBeCloseTo(
      4 / 6,
      15,
    );
    // One topic only: no leaderboard.
    expect(rubricScores.leaderboard).toBeUndefined();
  });

  it('edits a nugget bank with provenance, copying a frozen version into a new one', async () => {
    const { actor } = await seed();
    const ref = { collection: 'rag', bank: 'nist', version: 1 };
    const t1 = (await nuggetBankDetail(t.db, { collection: 'rag', bank: 'nist' }, { topic: 't1' }))
      .nuggets;
    const [solar, wind, hydro] = t1 as [(typeof t1)[0], (typeof t1)[0], (typeof t1)[0]];
    let r = await editNuggetBank(
      t.db,
      ref,
      { action: 'edit', nugget: solar.id, text: 'solar panels make power' },
      actor,
    );
    expect(r.newVersion).toBe(false);
    expect(r.nuggets[0]).toMatchObject({
      text: 'solar panels make power',
      origin: 'imported',
      edited: true,
    });
    expect(r.nuggets[0]!.history.at(-1)).toMatchObject({
      action: 'edited',
      before: 'solar power',
      by: { name: 'ada' },
    });
    r = await editNuggetBank(
      t.db,
      ref,
      { action: 'add', topic: 't1', text: 'geothermal heat', importance: 'okay', after: solar.id },
      actor,
    );
    expect(r.nuggets.map((n) => n.text)).toEqual([
      'solar panels make power',
      'geothermal heat',
      'wind power',
      'hydro power',
    ]);
    expect(r.nuggets[1]).toMatchObject({ origin: 'person', edited: false });
    r = await editNuggetBank(
      t.db,
      ref,
      { action: 'merge', nuggets: [wind.id, hydro.id], text: 'wind and hydro power' },
      actor,
    );
    expect(r.nuggets.map((n) => [n.text, n.importance])).toEqual([
      ['solar panels make power', 'vital'],
      ['geothermal heat', 'okay'],
      ['wind and hydro power', 'vital'],
    ]);
    r = await editNuggetBank(
      t.db,
      ref,
      { action: 'split', nugget: wind.id, texts: ['wind power', 'hydro power'] },
      actor,
    );
    expect(r.nuggets.map((n) => n.text)).toEqual([
      'solar panels make power',
      'geothermal heat',
      'wind power',
      'hydro power',
    ]);
    r = await editNuggetBank(t.db, ref, { action: 'move', nugget: solar.id, to: 3 }, actor);
    expect(r.nuggets.map((n) => n.position)).toEqual([0, 1, 2, 3]);
    expect(r.nuggets.at(-1)!.text).toBe('solar panels make power');
    const geo = r.nuggets[0]!;
    r = await editNuggetBank(t.db, ref, { action: 'delete', nugget: geo.id }, actor);
    expect(r.nuggets.map((n) => n.text)).not.toContain('geothermal heat');
    r = await editNuggetBank(
      t.db,
      ref,
      { action: 'edit', nugget: solar.id, importance: 'okay' },
      actor,
    );
    expect(r.version.version).toBe(1);

    // An assessment set freezes version 1: the next edit makes version 2; version 1 stays.
    await createPeopleAssessmentSet(t.db, {
      collection: 'rag',
      kind: 'nuggets',
      name: 'p',
      responseSet: 'answers',
      bank: { name: 'nist' },
      mode: 'blind',
    });
    r = await editNuggetBank(
      t.db,
      ref,
      { action: 'edit', nugget: solar.id, text: 'sun power' },
      actor,
    );
    expect(r.newVersion).toBe(true);
    expect(r.version).toMatchObject({
      version: 2,
      frozen: false,
      provenance: { kind: 'edited', from: 1 },
    });
    expect(r.nuggets.find((n) => n.text === 'sun power')!.lineage).toBe(solar.id);
    expect(
      await rejection(editNuggetBank(t.db, ref, { action: 'delete', nugget: solar.id }, actor)),
    ).toMatchObject({
      code: 'conflict',
    });
    const v1 = parseNuggetBank(
      await exportNuggetBank(t.db, { collection: 'rag', bank: 'nist', version: 1 }),
      'v1',
    );
    expect(v1[0]!.nuggets.map((n) => n.text)).toEqual([
      'wind power',
      'hydro power',
      'solar panels make power',
    ]);
    // The unknown field of the imported nugget is still there after the edits.
    expect(v1[0]!.nuggets[2]!.extra).toEqual({ source: 'original' });
    // Importing the same file again writes no version.
    const same = await importNuggetBank(t.db, { collection: 'rag', bank: 'other', text: BANK });
    const again = await importNuggetBank(t.db, { collection: 'rag', bank: 'other', text: BANK });
    expect([same.created, again.created, again.version.version]).toEqual([true, false, 1]);
  });

  it('makes a nugget bank with an LLM in batches, then importance; a rerun sends nothing', async () => {
    await importCollection(t.db, {
      name: 'c',
      format: 'jsonl',
      text: ['p1', 'p2', 'p3', 'p4', 'q1']
        .map((id) => JSON.stringify({ id, text: `fact ${id}` }))
        .join('\n'),
      file: 'docs.jsonl',
    });
    await importTopics(t.db, {
      collection: 'c',
      text: 't1\tfirst request\nt2\tsecond request\n',
      file: 'topics.tsv',
    });
    await importQrels(t.db, {
      collection: 'c',
      labelSet: 'qrels',
      text: 't1 0 p1 3\nt1 0 p2 2\nt1 0 p3 1\nt1 0 p4 0\nt2 0 q1 2\nt2 0 missing 3\n',
      file: 'qrels.txt',
    });
    server = await startOpenAITestServer((body) => {
      const user = userOf(body);
      const name = (body.response_format as { json_schema: { name: string } }).json_schema.name;
      if (name === 'nugget_create') {
        const passages = numbered(user.split('Passages:\n')[1]!.split('\n\n')[0]!);
        const so = user.includes('The nuggets so far:')
          ? numbered(user.split('The nuggets so far:\n')[1]!.split('\n\n')[0]!)
          : [];
        return {
          reply: JSON.stringify({ nuggets: [...so, ...passages.map((p) => `about ${p}`)] }),
        };
      }
      const nuggets = numbered(user.split('numbered:\n')[1]!.split('\n\n')[0]!);
      return {
        reply: JSON.stringify(
          Object.fromEntries(nuggets.map((_, i) => [String(i + 1), i === 0 ? 'vital' : 'okay'])),
        ),
      };
    });
    const make = (dryRun = false) =>
      createNuggetBankWithLlm(t.db, depsOf(server!, t.db), {
        collection: 'c',
        bank: 'auto',
        labelSet: 'qrels',
        minGrade: 2,
        creator: templates.get('nugget-create')!,
        scorer: templates.get('nugget-importance')!,
        settings: { model: 'm' },
        batchSize: 1,
        ...(dryRun ? { dryRun } : {}),
      });
    const dry = await make(true);
    expect(server.requests).toHaveLength(0);
    // t1: 2 passages (one call each), then importance; t2: 1 passage (one missing), importance.
    // The first prompt of each topic can be built: 2 counted exactly, the rest estimated.
    expect(dry.report.planned!.calls).toBe(2 + 1 + Math.ceil(30 / 10) + Math.ceil(30 / 10));
    expect(dry.stored).toBeUndefined();
    const made = await make();
    expect(server.requests).toHaveLength(5);
    expect(made.missingPassages).toBe(1);
    expect(made.stored).toMatchObject({
      created: true,
      version: { version: 1, nuggets: 3, vital: 2 },
    });
    const t1 = (await nuggetBankDetail(t.db, { collection: 'c', bank: 'auto' }, { topic: 't1' }))
      .nuggets;
    expect(t1.map((n) => [n.text, n.importance, n.origin])).toEqual([
      ['about fact p1', 'vital', 'llm'],
      ['about fact p2', 'okay', 'llm'],
    ]);
    expect(made.stored!.version.provenance).toMatchObject({
      kind: 'llm',
      minGrade: 2,
      labelSet: { name: 'qrels' },
    });
    const rerun = await make();
    expect(server.requests).toHaveLength(5);
    expect(rerun.stored).toMatchObject({ created: false, version: { version: 1 } });
    const dryAgain = await make(true);
    expect(dryAgain.report.planned!.calls).toBe(0);
    expect(await countRows(t.db, 'nugget_bank_versions')).toBe(1);
  });
});
