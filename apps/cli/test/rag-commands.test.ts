import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { assay } from './run-cli.js';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { describeOnEngines } from './cli-fixtures.js';

const PASSAGES: Record<string, [string, string, number][]> = {
  t1: [
    ['d11', 'Solar power turns sunlight into electricity.', 3],
    ['d12', 'Wind power uses turbines.', 2],
    ['d13', 'Hydro power needs dams.', 2],
    ['d14', 'Coal is black.', 0],
  ],
  t2: [
    ['d21', 'Rust is iron oxide.', 3],
    ['d22', 'Salt water speeds rust.', 2],
  ],
  t3: [
    ['d31', 'Bee pollen is collected by bees.', 2],
    ['d32', 'Bees make honey.', 3],
  ],
};

/** The double's nugget for a passage: its first two words, lower case. */
const nuggetOf = (passage: string) =>
  passage
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .split(' ')
    .slice(0, 2)
    .join(' ');

/** The double's assignment rule: the answer holds the nugget (support), its first word (partial), or not. */
function oracle(answer: string, nugget: string): string {
  const a = answer.toLowerCase();
  if (a.includes(nugget)) return 'support';
  return a.includes(nugget.split(' ')[0]!) ? 'partial_support' : 'not_support';
}

const ANSWERS: Record<string, Record<string, Array<[string, number[]]>>> = {
  t1: {
    S1: [
      ['Solar power and wind power help.', [0, 1]],
      ['So does hydro power.', [2]],
    ],
    S2: [['Solar is nice.', [0, 3]]],
    S3: [['Hydro power matters.', [2]]],
  },
  t2: {
    S1: [['Rust is iron oxide.', [0]]],
    S2: [['Salt water speeds it.', [1]]],
    S3: [
      ['Rust is bad.', [0]],
      ['Salt water too.', []],
    ],
  },
  t3: {
    S1: [['Bees make honey.', [1]]],
    S2: [['Bee pollen matters.', [0, 1]]],
    S3: [['Nothing to say.', []]],
  },
};

const TOPICS = { t1: 'energy sources', t2: 'what is rust', t3: 'what bees make' };

/** TREC RAG 2024 answer lines: citations are positions in `references`. */
const responses = Object.entries(ANSWERS)
  .flatMap(([topic, systems]) =>
    Object.entries(systems).map(([system, sentences]) =>
      JSON.stringify({
        run_id: system,
        topic_id: topic,
        topic: TOPICS[topic as keyof typeof TOPICS],
        references: [...PASSAGES[topic]!.map(([id]) => id), 'not-in-collection'],
        response_length: 10,
        answer: sentences.map(([text, citations]) => ({
          text,
          citations: citations.map((c) => (c === 3 ? PASSAGES[topic]!.length : c)),
        })),
      }),
    ),
  )
  .join('\n');

const RUBRICS = [
  {
    qid: 't1',
    domain: 'energy',
    rubrics: [
      { criterion: 'names solar power', weight: 4, axis: 'Explicit' },
      { criterion: 'names wind power', weight: 2, axis: 'Explicit' },
      { criterion: 'is rude', weight: -3, axis: 'Communication' },
    ],
  },
  { qid: 't2', rubrics: [{ criterion: 'names iron oxide', weight: 5, axis: 'Explicit' }] },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

function userOf(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

function numbered(block: string): string[] {
  return [...block.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2]!);
}

const reply = (labels: string[]): Behaviour => ({
  reply: JSON.stringify(Object.fromEntries(labels.map((l, i) => [String(i + 1), l]))),
});

/** The double: every RAG prompt answered by rule, with faults the client must survive. */
function script() {
  const seen = new Map<string, number>();
  const times = (key: string) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n;
  };
  return (body: Record<string, unknown>): Behaviour => {
    const user = userOf(body);
    const name = (body.response_format as { json_schema: { name: string } }).json_schema.name;
    if (name === 'nugget_create') {
      if (times('first-create') === 1) return { status: 429, retryAfter: '0' };
      const passages = numbered(user.split('Passages:\n')[1]!.split('\n\n')[0]!);
      const so = user.includes('The nuggets so far:')
        ? numbered(user.split('The nuggets so far:\n')[1]!.split('\n\n')[0]!)
        : [];
      return { reply: JSON.stringify({ nuggets: [...so, ...passages.map(nuggetOf)] }) };
    }
    if (name === 'nugget_importance') {
      if (times('first-importance') === 1) return { malformedBody: true };
      const nuggets = numbered(user.split('numbered:\n')[1]!.split('\n\n')[0]!);
      return reply(nuggets.map((_, i) => (i % 2 === 0 ? 'vital' : 'okay')));
    }
    if (name === 'nugget_assign') {
      const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
      const nuggets = numbered(user.split('Nuggets, numbered:\n')[1]!.split('\n\n')[0]!);
      if (answer.startsWith('Rust is bad') && times(`drop ${answer}`) === 1) return { drop: true };
      // An unreadable first answer is asked again (with a seed), and then reads.
      if (answer.startsWith('Bee pollen') && body.seed === undefined) return { reply: 'support?' };
      return reply(nuggets.map((n) => oracle(answer, n)));
    }
    if (name === 'citation_support') {
      const sentence = /The sentence: (.*)\n/.exec(user)![1]!;
      const passages = numbered(user.split('Cited passages, numbered:\n')[1]!.split('\n\n')[0]!);
      return reply(
        passages.map((p) => {
          const words = sentence
            .toLowerCase()
            .replace(/[^a-z ]/g, '')
            .split(' ');
          const shared = words.filter((w) => w.length > 3 && p.toLowerCase().includes(w)).length;
          return shared >= 2 ? 'full' : shared === 1 ? 'partial' : 'none';
        }),
      );
    }
    if (name === 'rubric_judge') {
      const answer = /The answer to grade:\n([\s\S]*?)\n\nCriteria, numbered/.exec(user)![1]!;
      const criteria = numbered(user.split('criterion describes:\n')[1]!.split('\n\n')[0]!);
      const judgment = { support: 'met', partial_support: 'partly_met', not_support: 'not_met' };
      return reply(
        criteria.map((c) =>
          c === 'is rude'
            ? 'not_met'
            : judgment[oracle(answer, c.replace(/^names /, '')) as keyof typeof judgment],
        ),
      );
    }
    throw new Error(`unexpected prompt ${name}`);
  };
}

function lines<T = Record<string, unknown>>(text: string): T[] {
  return text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

/** nuggetizer's scores, written here again from the track's definitions. */
function nuggetScoresByHand(nuggets: Array<{ importance: string; assignment: string }>) {
  const credit = (a: string, strict: boolean) =>
    a === 'support' ? 1 : a === 'partial_support' && !strict ? 0.5 : 0;
  const vital = nuggets.filter((n) => n.importance === 'vital');
  const sum = (xs: typeof nuggets, strict: boolean) =>
    xs.reduce((s, n) => s + credit(n.assignment, strict), 0);
  const w = (n: { importance: string }) => (n.importance === 'vital' ? 1 : 0.5);
  return {
    strict_vital: vital.length ? sum(vital, true) / vital.length : 0,
    vital: vital.length ? sum(vital, false) / vital.length : 0,
    strict_all: nuggets.length ? sum(nuggets, true) / nuggets.length : 0,
    all: nuggets.length ? sum(nuggets, false) / nuggets.length : 0,
    weighted:
      nuggets.reduce((s, n) => s + w(n) * credit(n.assignment, false), 0) /
      nuggets.reduce((s, n) => s + w(n), 0),
  };
}

describeOnEngines(
  'assay nuggets, support, rubrics',
  {
    prefix: 'assay-rag-',
    timeout: 240_000,
    files: {
      'docs.jsonl': Object.values(PASSAGES)
        .flat()
        .map(([id, text]) => JSON.stringify({ id, text }))
        .join('\n'),
      'topics.tsv': Object.entries(TOPICS)
        .map(([id, q]) => `${id}\t${q}\n`)
        .join(''),
      'qrels.txt': Object.entries(PASSAGES)
        .flatMap(([t, ps]) => ps.map(([d, , g]) => `${t} 0 ${d} ${g}\n`))
        .join(''),
      'answers.jsonl': responses,
      'rubrics.jsonl': RUBRICS,
    },
  },
  (ws) => {
    it('creates nuggets for 3 topics, assigns them to 3 systems, scores; a rerun sends no request', async () => {
      const server = await ws.double.start(script());
      const env = { ...ws.env, OPENAI_BASE_URL: server.baseURL };
      expect(
        (await assay(env, 'import', 'collection', '--name', 'rag', ws.path('docs.jsonl'))).code,
      ).toBe(0);
      expect(
        (await assay(env, 'import', 'topics', '--collection', 'rag', ws.path('topics.tsv'))).code,
      ).toBe(0);
      expect(
        (
          await assay(
            env,
            'import',
            'qrels',
            '--collection',
            'rag',
            '--label-set',
            'qrels',
            ws.path('qrels.txt'),
          )
        ).code,
      ).toBe(0);
      const create = [
        'nuggets',
        'create',
        '--collection',
        'rag',
        '--bank',
        'auto',
        '--label-set',
        'qrels',
        '--min-grade',
        '2',
        '--batch',
        '2',
        '--model',
        'm',
      ];
      const dry = await assay(env, ...create, '--dry-run');
      expect(dry.code).toBe(0);
      expect(server.requests).toHaveLength(0);
      // t1 has 3 relevant passages (2 calls), t2 and t3 2 (1 call each), then importance.
      expect(dry.stdout).toMatch(/calls to send: \d+ \(0 prompts answered by stored calls\)/);
      expect(dry.stdout).toContain('nothing was sent or stored');

      const made = await assay(env, ...create);
      // Seven prompts (t1: two batches, the others one; one importance call each), whatever
      // the retries cost the client (a 429 and a cut-off body were answered again).
      expect(made.stderr).toContain('nuggets for 3 topics: 7 calls paid');
      expect(made.code).toBe(0);
      expect(made.stdout).toContain(
        'stored nugget bank "auto" version 1: 3 topics, 7 nuggets (4 vital, 3 okay)',
      );
      const exported = await assay(
        env,
        'nuggets',
        'export',
        '--collection',
        'rag',
        '--bank',
        'auto',
      );
      const bank = lines<{ qid: string; nuggets: Array<{ text: string; importance: string }> }>(
        exported.stdout,
      );
      expect(bank.map((b) => [b.qid, b.nuggets.map((n) => `${n.text}/${n.importance}`)])).toEqual([
        ['t1', ['solar power/vital', 'wind power/okay', 'hydro power/vital']],
        ['t2', ['rust is/vital', 'salt water/okay']],
        ['t3', ['bees make/vital', 'bee pollen/okay']],
      ]);

      const assign = [
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'auto',
        '--responses',
        ws.path('answers.jsonl'),
        '--name',
        'llm',
        '--batch',
        '2',
        '--model',
        'm',
        '--out',
        ws.path('assign.jsonl'),
      ];
      const assigned = await assay(env, ...assign);
      expect(assigned.code).toBe(0);
      expect(assigned.stdout).toContain('stored nuggets assessment set "llm"');
      expect(assigned.stdout).toContain('21 items judged, 0 failed');
      const records = lines<{
        qid: string;
        system: string;
        nuggets: Array<{ text: string; importance: string; assignment: string }>;
      }>(readFileSync(ws.path('assign.jsonl'), 'utf8'));
      expect(records).toHaveLength(9);
      // Every label is the double's rule applied to the answer (re-asked or retried where it failed).
      for (const r of records) {
        const text = ANSWERS[r.qid]![r.system]!.map(([s]) => s).join(' ');
        for (const n of r.nuggets) expect(n.assignment).toBe(oracle(text, n.text));
      }

      // Everything again: no request is sent.
      const sent = server.requests.length;
      expect((await assay(env, ...create)).stdout).toContain(
        'unchanged: nugget bank "auto" version 1',
      );
      const again = await assay(env, ...assign);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('updated nuggets assessment set "llm"');
      expect(server.requests.length).toBe(sent);
      expect(readFileSync(ws.path('assign.jsonl'), 'utf8')).toBe(
        records.map((r) => `${JSON.stringify(r)}\n`).join(''),
      );

      // Scores of the file equal a recomputation from the assignments.
      const scored = await assay(
        env,
        'nuggets',
        'score',
        ws.path('assign.jsonl'),
        '--format',
        'json',
        '--per-answer',
        ws.path('per-answer.jsonl'),
      );
      expect(scored.code).toBe(0);
      const json = JSON.parse(scored.stdout);
      const perAnswer = lines<Record<string, number | string>>(
        readFileSync(ws.path('per-answer.jsonl'), 'utf8'),
      );
      for (const r of records) {
        const byHand = nuggetScoresByHand(r.nuggets);
        const got = perAnswer.find((a) => a.qid === r.qid && a.system === r.system)!;
        for (const [m, v] of Object.entries(byHand)) expect(got[m]).toBeCloseTo(v, 12);
      }
      for (const system of ['S1', 'S2', 'S3']) {
        const row = json.runs.find((x: { run: string }) => x.run === system);
        for (const m of ['strict_vital', 'vital', 'strict_all', 'all', 'weighted'] as const) {
          const mean =
            records
              .filter((r) => r.system === system)
              .reduce((s, r) => s + nuggetScoresByHand(r.nuggets)[m], 0) / 3;
          expect(row.means[m]).toBeCloseTo(mean, 12);
        }
      }
      // By hand, S1 on t1 ("Solar power and wind power help. So does hydro power."): all three supported.
      expect(perAnswer.find((a) => a.qid === 't1' && a.system === 'S1')).toMatchObject({
        vital: 1,
        all: 1,
      });
      // S3 on t3 ("Nothing to say."): nothing supported.
      expect(perAnswer.find((a) => a.qid === 't3' && a.system === 'S3')).toMatchObject({
        weighted: 0,
      });

      // The stored set scores the same, and is stored and published as a leaderboard.
      const stored = await assay(
        env,
        'nuggets',
        'score',
        '--collection',
        'rag',
        '--set',
        'llm',
        '--format',
        'json',
        '--store',
        '--publish',
        'rag-nuggets',
      );
      expect(stored.code).toBe(0);
      expect(JSON.parse(stored.stdout).runs).toEqual(json.runs);
      expect(stored.stderr).toContain('published at /leaderboards/rag-nuggets');
      // The same assignments, as if made elsewhere, stored as a set of their own: same scores.
      const copy = await assay(
        env,
        'nuggets',
        'import',
        ws.path('assign.jsonl'),
        '--assignments',
        '--collection',
        'rag',
        '--bank',
        'auto',
        '--response-set',
        'answers',
        '--name',
        'copy',
      );
      expect(copy.stdout).toContain('stored nuggets assessment set "copy"');
      expect(copy.stdout).toContain('21 items judged');
      const copied = await assay(
        env,
        'nuggets',
        'score',
        '--collection',
        'rag',
        '--set',
        'copy',
        '--format',
        'json',
      );
      expect(JSON.parse(copied.stdout).runs).toEqual(json.runs);
      const latex = await assay(
        env,
        'nuggets',
        'score',
        ws.path('assign.jsonl'),
        '--format',
        'latex',
      );
      expect(latex.stdout).toContain(
        'Run & strict\\_vital & vital & strict\\_all & all & weighted \\\\',
      );
    });

    it('assesses the support of citations and rubric criteria, and stops at a budget', async () => {
      const server = await ws.double.start(script());
      const env = { ...ws.env, OPENAI_BASE_URL: server.baseURL };
      const support = [
        'support',
        'assign',
        '--collection',
        'rag',
        '--response-set',
        'answers',
        '--name',
        'sup',
        '--model',
        'm',
        '--out',
        ws.path('support.jsonl'),
      ];
      const ran = await assay(env, ...support);
      expect(ran.code).toBe(0);
      // Run again: stored calls answer every prompt, and model m has no price: nothing was
      // paid, and no dollar figure says otherwise.
      const rerun = await assay(env, ...support);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toMatch(/: 0 calls paid \(nothing paid\), \d+ prompts answered/);
      expect(rerun.stderr).not.toContain('$0.0000');
      const records = lines<{
        qid: string;
        system: string;
        sentences: Array<{ text: string; citations: Array<{ docid: string; support: string }> }>;
      }>(readFileSync(ws.path('support.jsonl'), 'utf8'));
      expect(records).toHaveLength(9);
      // S2's answer to t1 cites the passage the collection lacks: "cannot assess", never sent.
      const s2 = records.find((r) => r.qid === 't1' && r.system === 'S2')!;
      expect(s2.sentences[0]!.citations).toEqual([
        { docid: 'd11', support: 'partial' },
        { docid: 'not-in-collection', support: 'cannot_assess' },
      ]);
      const score = await assay(
        env,
        'support',
        'score',
        ws.path('support.jsonl'),
        '--format',
        'json',
        '--per-answer',
        ws.path('sp.jsonl'),
      );
      expect(score.code).toBe(0);
      const per = lines<Record<string, number | string>>(readFileSync(ws.path('sp.jsonl'), 'utf8'));
      // S1 on t1: sentence 1 cites d11 (solar power … shares "solar", "power": full) and d12
      // ("wind power": shares "power", "wind": full); sentence 2 cites d13 (hydro, power: full).
      expect(per.find((a) => a.qid === 't1' && a.system === 'S1')).toMatchObject({
        support_precision: 1,
        support_recall: 1,
      });
      // S3 on t2: "Rust is bad." cites d21 ("rust": partial); "Salt water too." cites nothing.
      expect(per.find((a) => a.qid === 't2' && a.system === 'S3')).toMatchObject({
        support_precision: 0.5,
        support_recall: 0.25,
        strict_support_precision: 0,
        strict_support_recall: 0,
      });
      const first = await assay(
        env,
        'support',
        'score',
        ws.path('support.jsonl'),
        '--first-citation-only',
        '--format',
        'json',
      );
      expect(first.code).toBe(0);

      const rubric = [
        'rubrics',
        'assign',
        '--collection',
        'rag',
        '--rubrics',
        ws.path('rubrics.jsonl'),
        '--response-set',
        'answers',
        '--name',
        'rub',
        '--model',
        'm',
        '--out',
        ws.path('rubric.jsonl'),
      ];
      const judged = await assay(env, ...rubric);
      expect(judged.code).toBe(0);
      const rs = await assay(
        env,
        'rubrics',
        'score',
        ws.path('rubric.jsonl'),
        '--per-answer',
        ws.path('rp.jsonl'),
      );
      expect(rs.code).toBe(0);
      expect(rs.stdout).toContain('per axis');
      const rp = lines<Record<string, unknown>>(readFileSync(ws.path('rp.jsonl'), 'utf8'));
      // S1 on t1: solar met (4), wind met (2), not rude: (4 + 2) / 6 = 1. S3 on t1: hydro only: 0.
      expect(rp.find((a) => a.qid === 't1' && a.system === 'S1')).toMatchObject({ rubric: 1 });
      expect(rp.find((a) => a.qid === 't1' && a.system === 'S3')).toMatchObject({ rubric: 0 });
      // S2 on t1 ("Solar is nice."): solar partly (2), wind not: 2 / 6.
      expect(rp.find((a) => a.qid === 't1' && a.system === 'S2')!.rubric).toBeCloseTo(1 / 3, 12);

      // A budget of $0.15 at $1000 / $1000 per million tokens (the double bills 100 + 10 tokens,
      // $0.11 a call): two calls, then it stops with items left (exit 6); a rerun finishes.
      const budgeted = [
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'auto',
        '--response-set',
        'answers',
        '--name',
        'cheap',
        '--batch',
        '1',
        '--model',
        'm',
        '--concurrency',
        '1',
        '--price-in',
        '1000',
        '--price-out',
        '1000',
      ];
      const before = server.requests.length;
      const stopped = await assay(env, ...budgeted, '--budget', '0.15');
      expect(stopped.code).toBe(6);
      expect(server.requests.length - before).toBe(2);
      expect(stopped.stdout).toMatch(/, \d+ left/);
      const finished = await assay(env, ...budgeted);
      expect(finished.code).toBe(0);
      expect(finished.stdout).toContain('21 items judged, 0 failed');
      const usage = await assay(
        env,
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'auto',
        '--response-set',
        'answers',
        '--model',
        'm',
        '--budget',
        '1',
      );
      expect(usage.code).toBe(1);
      expect(usage.stderr).toContain('--budget needs the price of m');
    });
  },
);
