import {
  evaluateRun,
  prepareQrels,
  resolveMeasures,
  type EvaluationOptions,
} from '@assay/measures';
import { parseQrels, parseRun } from '@assay/trec';
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { evaluateRuns, importCollection, importQrels, importRun } from '../src/index.js';

// Topic 3 is judged but retrieved by no run: under -c it counts, with 0.
const QRELS = '1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 1\n3 0 f 1\n';
// Topic 2: y and d tie at 4.0; trec_eval breaks ties by docno descending, so y comes first.
const RUN_A =
  '1 Q0 a 1 3.0 A\n1 Q0 x 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 e 1 5 A\n2 Q0 d 2 4 A\n2 Q0 y 3 4 A\n';
const RUN_B = '1 Q0 b 1 9 B\n1 Q0 a 2 8 B\n4 Q0 z 1 1 B\n';
const MEASURES = ['map', 'P.1', 'recip_rank', 'ndcg_cut.3', 'num_rel_ret', 'Judged@3'];

/** What `assay eval` computes from the same text (the path of `assay eval -c`). */
function fileEvaluation(runText: string, options: EvaluationOptions) {
  const result = evaluateRun(
    prepareQrels(parseQrels(QRELS, 'qrels')),
    parseRun(runText, 'run'),
    resolveMeasures(MEASURES),
    options,
  );
  const mean: Record<string, number> = {};
  result.columns.forEach((c, i) => {
    if (c.output !== 'string' && c.aggregate !== 'runid')
      mean[c.name] = result.summary[i] as number;
  });
  const perQuery: Record<string, Record<string, number>> = {};
  for (const t of result.topics) {
    perQuery[t.qid] = {};
    result.columns.forEach((c, i) => {
      if (c.perQuery && c.output !== 'string') perQuery[t.qid]![c.name] = t.values[i] as number;
    });
  }
  return { mean, perQuery };
}

forEachDatabase('evaluateRuns', (t) => {
  beforeEach(async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'a\tx\n' });
    await importQrels(t.db, { collection: 'c', labelSet: 'nist', file: 'qrels', text: QRELS });
    await importRun(t.db, { collection: 'c', file: 'a.run', text: RUN_A });
    await importRun(t.db, { collection: 'c', file: 'b.run', text: RUN_B });
  });

  it('gives the hand-checked trec_eval -c values', async () => {
    const result = await evaluateRuns(t.db, {
      collection: 'c',
      labelSet: 'nist',
      runs: ['A', 'B'],
      measures: ['map', 'P.1', 'ndcg_cut.3'],
    });
    expect(result.labelSet).toBe('nist');
    expect(result.measures).toEqual(['map', 'P_1', 'ndcg_cut_3']);
    expect(result.topicHandling).toMatch(/trec_eval -c/);
    const [a, b] = result.runs;
    // A, topic 1: a (rel) x (unjudged) c (rel), R = 2 → AP (1 + 2/3) / 2.
    expect(a!.perQuery['1']!.map).toBeCloseTo(5 / 6, 12);
    // A, topic 2: e (rel), y (tie, docno descending first), d (rel) → AP (1 + 2/3) / 2.
    expect(a!.perQuery['2']!.map).toBeCloseTo(5 / 6, 12);
    // nDCG@3 topic 1: gains 2, 0, 1 → (2 + 1/log2 4) / (2 + 1/log2 3).
    expect(a!.perQuery['1']!.ndcg_cut_3).toBeCloseTo(2.5 / (2 + 1 / Math.log2(3)), 12);
    // Means over the three judged topics; topic 3 (no results) scores 0.
    expect(a!.mean.map).toBeCloseTo((5 / 6 + 5 / 6 + 0) / 3, 12);
    expect(a!.mean.P_1).toBeCloseTo(2 / 3, 12);
    // B, topic 1: b (non-relevant) then a (rel) → AP (1/2) / 2; topic 4 is not judged.
    expect(b!.run).toBe('B');
    expect(b!.mean.map).toBeCloseTo(0.25 / 3, 12);
    expect(Object.keys(b!.perQuery)).not.toContain('4');
  });

  it('matches the file-based evaluation of `assay eval` for every option', async () => {
    const optionSets: Array<EvaluationOptions & { judgedOnly?: boolean }> = [
      { completeTopics: true },
      { completeTopics: true, relevanceLevel: 2 },
      { completeTopics: true, judgedOnly: true },
      { completeTopics: true, maxDocs: 1 },
    ];
    for (const options of optionSets) {
      const result = await evaluateRuns(t.db, {
        collection: 'c',
        labelSet: 'nist',
        runs: ['A', 'B'],
        measures: MEASURES,
        ...options,
      });
      expect(result.runs[0]).toEqual({ run: 'A', ...fileEvaluation(RUN_A, options) });
      expect(result.runs[1]).toEqual({ run: 'B', ...fileEvaluation(RUN_B, options) });
    }
  });

  it('reports missing topics without -c, unknown names and bad measures', async () => {
    await expect(
      evaluateRuns(t.db, {
        collection: 'c',
        labelSet: 'nist',
        runs: ['A'],
        measures: ['map'],
        completeTopics: false,
      }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/topic 3/) });
    await expect(
      evaluateRuns(t.db, { collection: 'c', labelSet: 'nist', runs: ['Z'], measures: [] }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'no run "Z" in collection "c"' });
    await expect(
      evaluateRuns(t.db, { collection: 'c', labelSet: 'gpt', runs: ['A'], measures: [] }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      evaluateRuns(t.db, { collection: 'c', labelSet: 'nist', runs: ['A'], measures: ['nope'] }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      evaluateRuns(t.db, { collection: 'c', labelSet: 'nist', runs: [], measures: ['map'] }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
