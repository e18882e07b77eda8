import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedData, SHARED_DATA_SKIP } from '@assay/test-support/shared-data';
import {
  axisMeans,
  formatNuggetAssignments,
  formatNuggetBank,
  nuggetAnswerScores,
  parseNuggetAssignments,
  parseNuggetBank,
  parseResponses,
  parseRubricJudgments,
  parseRubrics,
  parseSupportAssessments,
  ragLeaderboard,
  rubricAnswerScores,
  supportAnswerScores,
  PlatformError,
} from '../src/index.js';

const SETTINGS = {
  test: 't',
  correction: 'holm',
  alpha: 0.05,
  permutations: 1000,
  seed: 42,
} as const;

function error(fn: () => unknown): PlatformError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlatformError) return e;
    throw e;
  }
  throw new Error('expected a PlatformError');
}

describe('answers in the TREC RAG forms', () => {
  it('reads the 2024 form: citations are positions in references', () => {
    const line = {
      run_id: 'team-run',
      topic_id: '2027497',
      topic: 'how often should you take your toddler to the potty',
      references: ['seg#1', 'seg#2', 'seg#3'],
      response_length: 12,
      answer: [
        { text: 'About three times a day.', citations: [0, 2] },
        { text: ' Watch for signs. ', citations: [] },
        { text: 'Every toddler differs.', citations: [1] },
      ],
    };
    const [r] = parseResponses(JSON.stringify(line), 'ag.jsonl');
    expect(r).toEqual({
      topic: '2027497',
      system: 'team-run',
      query: 'how often should you take your toddler to the potty',
      references: ['seg#1', 'seg#2', 'seg#3'],
      answer: 'About three times a day. Watch for signs. Every toddler differs.',
      sentences: [
        { text: 'About three times a day.', citations: ['seg#1', 'seg#3'] },
        { text: 'Watch for signs.', citations: [] },
        { text: 'Every toddler differs.', citations: ['seg#2'] },
      ],
    });
  });

  it('reads the 2025 forms: metadata, citations as positions or as passage ids', () => {
    const meta = {
      team_id: 't',
      run_id: 'r1',
      type: 'automatic',
      narrative_id: 1,
      narrative: 'I want to know X.',
    };
    const text = [
      { metadata: meta, references: ['a', 'b'], answer: [{ text: 'One.', citations: [1, 0] }] },
      {
        metadata: { ...meta, run_id: 'r2' },
        references: ['a', 'b'],
        answer: [{ text: 'Two.', citations: ['b'] }],
      },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const [one, two] = parseResponses(text, 'ag25.jsonl');
    expect(one).toMatchObject({
      topic: '1',
      system: 'r1',
      query: 'I want to know X.',
      answer: 'One.',
    });
    expect(one!.sentences).toEqual([{ text: 'One.', citations: ['b', 'a'] }]);
    expect(two!.sentences).toEqual([{ text: 'Two.', citations: ['b'] }]);
  });

  it("reads assay's own form, with an answer as text or as sentences, beside the track's", () => {
    const text = [
      { topic: 'q1', system: 's', answer: 'plain', references: ['d1'] },
      { topic: 'q2', system: 's', answer: [{ text: 'Cited.', citations: ['d9'] }] },
      {
        run_id: 'x',
        topic_id: 'q1',
        topic: 'q',
        references: ['d1'],
        answer: [{ text: 'A.', citations: [0] }],
      },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const rs = parseResponses(text, 'mixed.jsonl');
    expect(rs.map((r) => [r.topic, r.system, r.answer])).toEqual([
      ['q1', 's', 'plain'],
      ['q2', 's', 'Cited.'],
      ['q1', 'x', 'A.'],
    ]);
    expect(rs[0]!.sentences).toBeUndefined();
    expect(rs[1]!.sentences).toEqual([{ text: 'Cited.', citations: ['d9'] }]);
  });

  it('names the file and line of a bad citation, a duplicate answer, a missing run id', () => {
    const good = JSON.stringify({
      run_id: 'r',
      topic_id: 't',
      topic: 'q',
      references: ['a', 'b'],
      answer: [{ text: 'x', citations: [0] }],
    });
    const outOfRange = JSON.stringify({
      run_id: 'r',
      topic_id: 't2',
      topic: 'q',
      references: ['a', 'b'],
      answer: [
        { text: 'x', citations: [] },
        { text: 'y', citations: [5] },
      ],
    });
    expect(error(() => parseResponses(`${good}\n${outOfRange}`, 'ag.jsonl')).message).toBe(
      'ag.jsonl:2: answer[1].citations[0] is position 5, but "references" has 2 passages',
    );
    const unknownId = JSON.stringify({
      metadata: { run_id: 'r', narrative_id: 't3' },
      references: ['a'],
      answer: [{ text: 'x', citations: ['zz'] }],
    });
    expect(error(() => parseResponses(`${good}\n\n${unknownId}`, 'ag.jsonl')).message).toBe(
      'ag.jsonl:3: answer[0].citations[0] "zz" is not among "references"',
    );
    expect(error(() => parseResponses(`${good}\n${good}`, 'ag.jsonl')).message).toBe(
      'ag.jsonl:2: system r already answered topic t on line 1',
    );
    const noRun = JSON.stringify({ metadata: { narrative_id: 1 }, answer: [{ text: 'x' }] });
    expect(error(() => parseResponses(noRun, 'ag.jsonl')).message).toBe(
      'ag.jsonl:1: "metadata.run_id" must be a non-empty string',
    );
    const deep = `{"topic":"q","system":"s","answer":"a","x":${'['.repeat(120)}${']'.repeat(120)}}`;
    expect(error(() => parseResponses(deep, 'ag.jsonl')).message).toMatch(
      /^ag\.jsonl:1: the line is nested more than 100 levels/,
    );
  });
});

describe('nugget banks', () => {
  const bank = [
    {
      qid: '58',
      nuggets: [
        {
          text: 'low emissions',
          mapped_sub_narrative: '"advantages"',
          importance: 'vital',
          source: 'original',
        },
        { text: 'fusion is experimental', importance: 'Okay', source: 'post-edit' },
      ],
    },
    { qid: '7', nuggets: [], note: 'kept' },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');

  it('keeps unknown fields and writes them back', () => {
    const topics = parseNuggetBank(bank, 'bank.jsonl');
    expect(topics[0]!.nuggets[1]).toEqual({
      text: 'fusion is experimental',
      importance: 'okay',
      extra: { source: 'post-edit' },
    });
    expect(topics[1]!.extra).toEqual({ note: 'kept' });
    const written = formatNuggetBank(topics);
    expect(parseNuggetBank(written, 'again.jsonl')).toEqual(topics);
    expect(JSON.parse(written.split('\n')[0]!).nuggets[0]).toEqual({
      text: 'low emissions',
      importance: 'vital',
      mapped_sub_narrative: '"advantages"',
      source: 'original',
    });
  });

  it('refuses an unknown importance and a topic given twice, with file:line', () => {
    expect(
      error(() =>
        parseNuggetBank('{"qid":"1","nuggets":[{"text":"x","importance":"high"}]}', 'b.jsonl'),
      ).message,
    ).toBe('b.jsonl:1: nuggets[0].importance must be "vital", "okay", not "high"');
    expect(
      error(() => parseNuggetBank('{"qid":"1","nuggets":[]}\n{"qid":1,"nuggets":[]}', 'b.jsonl'))
        .message,
    ).toBe('b.jsonl:2: topic 1 is on line 1 already');
  });

  const devBank = sharedData('trec_rag_2026_dev/rag25-dev-nuggets/rag25-dev-nuggets.jsonl');
  it.skipIf(!devBank)(
    `reads the RAG 2026 development nugget bank (${devBank ? 'present' : SHARED_DATA_SKIP})`,
    () => {
      const text = readFileSync(devBank!, 'utf8');
      const topics = parseNuggetBank(text, devBank!);
      const nuggets = topics.flatMap((t) => t.nuggets);
      expect(topics).toHaveLength(22);
      expect(nuggets).toHaveLength(1255);
      expect(nuggets.filter((n) => n.importance === 'vital')).toHaveLength(925);
      expect(nuggets.filter((n) => n.importance === 'okay')).toHaveLength(330);
      expect(nuggets.every((n) => 'source' in n.extra && 'mapped_sub_narrative' in n.extra)).toBe(
        true,
      );
      // Written back, every line holds the same values as the file's (key order aside).
      const back = formatNuggetBank(topics).trim().split('\n');
      text
        .trim()
        .split('\n')
        .forEach((line, i) => expect(JSON.parse(back[i]!)).toEqual(JSON.parse(line)));
    },
  );
});

describe('nugget assignments in nuggetizer form', () => {
  const line = (qid: string, system: string, a: Array<[string, string]>) =>
    JSON.stringify({
      qid,
      system,
      nuggets: a.map(([importance, assignment], i) => ({ text: `n${i}`, importance, assignment })),
    });
  const file = [
    line('t1', 'A', [
      ['vital', 'support'],
      ['vital', 'partial_support'],
      ['okay', 'not_support'],
    ]),
    line('t1', 'B', [
      ['vital', 'not_support'],
      ['vital', 'support'],
      ['okay', 'support'],
    ]),
    line('t2', 'A', [
      ['vital', 'support'],
      ['okay', 'support'],
    ]),
    line('t2', 'B', [
      ['vital', 'partial_support'],
      ['okay', 'not_support'],
    ]),
    line('t3', 'A', [
      ['vital', 'not_support'],
      ['okay', 'partial_support'],
    ]),
  ].join('\n');

  it('scores each answer and ranks the systems with a missing answer scoring 0', () => {
    const records = parseNuggetAssignments(file, 'a.jsonl');
    expect(parseNuggetAssignments(formatNuggetAssignments(records), 'b.jsonl')).toEqual(records);
    const answers = nuggetAnswerScores(records);
    // t1 A: vital 1 + 0.5 of 2 → 0.75; strict vital 0.5; all (1 + 0.5 + 0)/3 = 0.5; weighted (1 + 0.5 + 0)/2.5 = 0.6.
    expect(answers[0]!.scores).toEqual({
      strict_vital: 0.5,
      vital: 0.75,
      strict_all: 1 / 3,
      all: 0.5,
      weighted: 0.6,
    });
    // t1 B: vital (0 + 1)/2; all 2/3; weighted (0 + 1 + 0.5)/2.5 = 0.6.
    expect(answers[1]!.scores.vital).toBe(0.5);
    expect(answers[1]!.scores.weighted).toBeCloseTo(0.6, 15);
    const board = ragLeaderboard('nuggets', answers, SETTINGS, 'nist');
    const c = board.report.leaderboards[0]!.comparison;
    expect(c.topics).toBe(3);
    expect(c.source).toBe('nugget assignments');
    const mean = (run: string, m: string) => c.runs.find((r) => r.run === run)!.means[m]!;
    // A: vital t1 0.75, t2 1, t3 0 → 1.75/3; B: t1 0.5, t2 0.5, t3 (no answer) 0 → 1/3.
    expect(mean('A', 'vital')).toBeCloseTo(1.75 / 3, 15);
    expect(mean('B', 'vital')).toBeCloseTo(1 / 3, 15);
    // weighted A: t1 0.6, t2 (1 + 0.5)/1.5 = 1, t3 (0 + 0.25)/1.5 → (0.6 + 1 + 1/6)/3.
    expect(mean('A', 'weighted')).toBeCloseTo((0.6 + 1 + 0.25 / 1.5) / 3, 15);
    expect(c.runs.map((r) => r.run)).toEqual(['A', 'B']);
    expect(c.pairs.filter((p) => p.measure === 'strict_vital')).toHaveLength(1);
    expect(c.runs[0]!.judgedAt10).toBeUndefined();
  });

  it('names a bad assignment', () => {
    expect(
      error(() =>
        parseNuggetAssignments(
          '{"qid":"1","system":"s","nuggets":[{"text":"x","importance":"vital","assignment":"yes"}]}',
          'a.jsonl',
        ),
      ).message,
    ).toBe(
      'a.jsonl:1: nuggets[0].assignment must be "support", "partial_support", "not_support", not "yes"',
    );
  });
});

describe('support and rubric files', () => {
  it('scores support precision and recall per answer', () => {
    const text = JSON.stringify({
      qid: 't',
      system: 's',
      sentences: [
        {
          text: 'a',
          citations: [
            { docid: 'd1', support: 'full' },
            { docid: 'd2', support: 'partial' },
          ],
        },
        { text: 'b', citations: [] },
      ],
    });
    const [answer] = supportAnswerScores(parseSupportAssessments(text, 's.jsonl'));
    expect(answer!.scores).toEqual({
      support_precision: 0.75,
      support_recall: 0.5,
      strict_support_precision: 0.5,
      strict_support_recall: 0.5,
    });
    const [first] = supportAnswerScores(parseSupportAssessments(text, 's.jsonl'), {
      firstCitationOnly: true,
    });
    expect(first!.scores.support_precision).toBe(1);
  });

  it('scores rubrics with negative weights, overall and per axis', () => {
    const text = JSON.stringify({
      qid: 't',
      system: 's',
      criteria: [
        { criterion: 'covers X', weight: 4, axis: 'Explicit', judgment: 'met' },
        { criterion: 'gives sources', weight: 2, axis: 'Citations', judgment: 'partly_met' },
        { criterion: 'rambles', weight: -3, axis: 'Explicit', judgment: 'met' },
      ],
    });
    const [answer] = rubricAnswerScores(parseRubricJudgments(text, 'j.jsonl'));
    // (4 + 1 − 3) / (4 + 2) = 1/3; Explicit (4 − 3)/4; Citations 1/2.
    expect(answer!.scores.rubric).toBeCloseTo(1 / 3, 15);
    expect(answer!.axes).toEqual({ Citations: 0.5, Explicit: 0.25 });
    expect(axisMeans([answer!])).toEqual([
      { system: 's', axis: 'Citations', mean: 0.5, topics: 1 },
      { system: 's', axis: 'Explicit', mean: 0.25, topics: 1 },
    ]);
  });

  it('refuses a rubric without positive weight or a weight out of range', () => {
    expect(
      error(() => parseRubrics('{"qid":"1","rubrics":[{"criterion":"x","weight":-2}]}', 'r.jsonl'))
        .message,
    ).toBe('r.jsonl:1: topic 1 has no criterion of positive weight to score against');
    expect(
      error(() => parseRubrics('{"qid":"1","rubrics":[{"criterion":"x","weight":6}]}', 'r.jsonl'))
        .message,
    ).toBe('r.jsonl:1: rubrics[0].weight must be a number from -5 to 5, not 6');
  });

  const devRubrics = sharedData(
    'trec_rag_2026_dev/researchrubrics-dev-rubrics/research-rubrics-dev-rubrics.jsonl',
  );
  it.skipIf(!devRubrics)(
    `reads the RAG 2026 development rubrics (${devRubrics ? 'present' : SHARED_DATA_SKIP})`,
    () => {
      const topics = parseRubrics(readFileSync(devRubrics!, 'utf8'), devRubrics!);
      expect(topics).toHaveLength(30);
      expect(topics.flatMap((t) => t.criteria)).toHaveLength(755);
      expect(topics.flatMap((t) => t.criteria).filter((c) => c.weight < 0)).toHaveLength(97);
      expect(topics[0]!.extra).toMatchObject({ domain: 'STEM' });
    },
  );
});
