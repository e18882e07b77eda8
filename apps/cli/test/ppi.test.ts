import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateRun, prepareQrels, resolveMeasures, type RunEvaluation } from '@assay/measures';
import { ppiLeaderboard, sampleUnits, topicUnits, type PpiReport } from '@assay/platform/analysis';
import { predictionPoweredMean } from '@assay/stats';
import { parseQrels, parseRun, type Qrels, type Run } from '@assay/trec';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import { scratchDir } from './cli-fixtures.js';
import { cli } from './run-cli.js';

const { file } = scratchDir('assay-ppi-');

// Six topics; runs A and B list four documents each (A1..A4, B1..B4). P@4 on a topic is the
// number of relevant documents among them over 4. The LLM labels every topic, people
// labelled topics 1-3:
//
//   topic              1     2     3     4     5     6
//   A  LLM relevant    4     3     2     4     1     2     P@4 mean 4/6
//   A  human           3     3     1
//   B  LLM relevant    2     2     1     3     1     0     P@4 mean 9/24
//   B  human           2     1     1
const LLM_A = [4, 3, 2, 4, 1, 2];
const LLM_B = [2, 2, 1, 3, 1, 0];
const HUMAN_A = [3, 3, 1];
const HUMAN_B = [2, 1, 1];

function labels(counts: Record<string, number[]>): string {
  const lines: string[] = [];
  Object.entries(counts).forEach(([run, ks]) =>
    ks.forEach((k, t) => {
      for (let i = 1; i <= 4; i++) lines.push(`${t + 1} 0 ${run}${i} ${i <= k ? 1 : 0}`);
    }),
  );
  return `${lines.join('\n')}\n`;
}
const llm = file('llm.qrels', labels({ A: LLM_A, B: LLM_B }));
const human = file('human.qrels', labels({ A: HUMAN_A, B: HUMAN_B }));
const runFile = (tag: string) =>
  file(
    tag,
    `${[1, 2, 3, 4, 5, 6].flatMap((t) => [1, 2, 3, 4].map((i) => `${t} Q0 ${tag}${i} ${i} ${10 - i} ${tag}`)).join('\n')}\n`,
  );
const A = runFile('A');
const B = runFile('B');

async function ppi(...args: string[]): Promise<PpiReport> {
  const { code, stdout, stderr } = await cli('ppi', ...args, '--format', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as PpiReport;
}

describe('assay ppi on a hand-computed example', () => {
  it('gives the estimate, interval and λ computed by hand', async () => {
    const r = await ppi('--human', human, '--llm', llm, '-m', 'P@4', A, B);
    expect([r.n, r.N, r.sampling, r.level]).toEqual([3, 6, 'topics', 0.95]);
    const a = r.rows.find((x) => x.run === 'A')!;
    // y = (3/4, 3/4, 1/4), f = (1, 3/4, 1/2), f̄_N = 4/6:
    // S(y, f) = S²(f) = 1/16 → λ = 1; estimate 7/12 + (4/6 − 3/4) = 0.5;
    // y − f = (−1/4, 0, −1/4): S² = 1/48; se = √(½·(1/48)/3); t(0.975, 2) = 4.302652729911275.
    const half = 4.302652729911275 * Math.sqrt((0.5 * (1 / 48)) / 3);
    expect(a.lambda).toBe(1);
    expect(a.estimate).toBeCloseTo(0.5, 12);
    expect(a.ci_lower).toBeCloseTo(0.5 - half, 10);
    expect(a.ci_upper).toBeCloseTo(0.5 + half, 10);
    expect(a.llm_mean).toBeCloseTo(4 / 6, 12);
    expect(a.human.estimate).toBeCloseTo(7 / 12, 12);
    expect([a.n, a.N, a.measure]).toEqual([3, 6, 'P@4']);
  });

  it('equals the estimator on the per-topic values, for runs and their difference', async () => {
    const r = await ppi(
      '--human',
      human,
      '--llm',
      llm,
      '-m',
      'P@4',
      '--correction',
      'bonferroni',
      A,
      B,
    );
    const p4 = (ks: number[]) => ks.map((k) => k / 4);
    const expected = {
      A: predictionPoweredMean(p4(HUMAN_A), p4(LLM_A.slice(0, 3)), p4(LLM_A)),
      B: predictionPoweredMean(p4(HUMAN_B), p4(LLM_B.slice(0, 3)), p4(LLM_B)),
    };
    expect(r.rows.map((x) => x.run)).toEqual(['A', 'B']);
    for (const row of r.rows) {
      const e = expected[row.run as 'A' | 'B'];
      expect(row.estimate).toBeCloseTo(e.estimate, 12);
      expect([row.ci_lower, row.ci_upper]).toEqual([
        expect.closeTo(e.lower, 12),
        expect.closeTo(e.upper, 12),
      ]);
      expect(row.lambda).toBeCloseTo(e.lambda, 12);
      expect(row.human.ci_upper).toBeCloseTo(e.classical.upper, 12);
    }
    const diff = predictionPoweredMean(
      p4(HUMAN_A).map((v, i) => v - p4(HUMAN_B)[i]!),
      p4(LLM_A.slice(0, 3)).map((v, i) => v - p4(LLM_B)[i]!),
      p4(LLM_A).map((v, i) => v - p4(LLM_B)[i]!),
    );
    expect(r.pairs).toHaveLength(1);
    const pair = r.pairs[0]!;
    expect([pair.a, pair.b]).toEqual(['A', 'B']);
    expect(pair.estimate).toBeCloseTo(diff.estimate, 12);
    expect(pair.p).toBeCloseTo(diff.p, 12);
    // One pair: Bonferroni leaves p as it is.
    expect(pair.p_adjusted).toBeCloseTo(diff.p, 12);
    expect(pair.significant).toBe(diff.p < 0.05);
  });

  it('says how many topics a target half-width needs, and writes text and CSV', async () => {
    const r = await ppi(
      '--human',
      human,
      '--llm',
      llm,
      '-m',
      'P@4',
      '--target-half-width',
      '0.05',
      A,
      B,
    );
    expect(r.targetHalfWidth).toBe(0.05);
    for (const row of r.rows) expect(row.needed).toBeGreaterThan(3);
    expect(r.needed!.more).toBe(r.needed!.units - 3);
    const text = await cli('ppi', '--human', human, '--llm', llm, '-m', 'P@4', A, B);
    expect(text.stdout).toContain('human labels: 3 of 6 topics');
    expect(text.stdout).toMatch(/A\s+0\.5000\s+\[/);
    const csv = await cli(
      'ppi',
      '--human',
      human,
      '--llm',
      llm,
      '-m',
      'P@4',
      '--format',
      'csv',
      A,
      B,
    );
    const [rows, pairs] = csv.stdout.trim().split('\n\n');
    expect(rows!.split('\n')[0]).toBe(
      'run,measure,estimate,ci_lower,ci_upper,lambda,n,N,human_estimate,human_ci_lower,human_ci_upper,llm_mean,sampling',
    );
    expect(rows!.split('\n')[1]).toMatch(/^A,P@4,0\.5,/);
    expect(pairs!.split('\n')).toHaveLength(2);
  });

  it('refuses human topics the LLM did not label, and pair sampling of nDCG', async () => {
    const extra = file('extra.qrels', `${readFileSync(human, 'utf8')}9 0 A1 1\n`);
    const outside = await cli('ppi', '--human', extra, '--llm', llm, A, B);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('topic(s) the LLM labels do not (9)');
    const pairs = await cli('ppi', '--human', human, '--llm', llm, '--sampling', 'pairs', A, B);
    expect(pairs.code).toBe(1);
    expect(pairs.stderr).toContain('not nDCG@10');
    const usage = await cli('ppi', '--llm', llm, A);
    expect(usage.code).toBe(1);
  });

  it('pair sampling: a labelled pair counts by its share of the measure', async () => {
    // People labelled two of A's pairs and one of B's on topic 1, all in both runs' top 4.
    // A1 human 1 (LLM 1), A4 human 0 (LLM 1), B1 human 0 (LLM 1).
    const sample = file('pairs.qrels', '1 0 A1 1\n1 0 A4 0\n1 0 B1 0\n');
    const r = await ppi('--human', sample, '--llm', llm, '--sampling', 'pairs', '-m', 'P@4', A, B);
    // 48 LLM-labelled pairs over 6 topics: a pair's share is its P@4 contribution (1/4 when
    // relevant and in the top 4) times 48/6 = 8.
    expect([r.n, r.N, r.topics]).toEqual([3, 48, 6]);
    const a = r.rows.find((x) => x.run === 'A')!;
    // For A, in pair order (1 A1, 1 A4, 1 B1): y = (2, 0, 0), f = (2, 2, 0).
    const expected = predictionPoweredMean([2, 0, 0], [2, 2, 0], { mean: 4 / 6, size: 48 });
    expect(a.estimate).toBeCloseTo(expected.estimate, 12);
    expect(a.ci_upper).toBeCloseTo(expected.upper, 12);
    expect(a.lambda).toBeCloseTo(expected.lambda, 12);
  });
});

describe('assay ppi sample', () => {
  it('chooses topics with a seed and writes the pairs to label', async () => {
    const one = await cli('ppi', 'sample', '--llm', llm, '--topics', '2', '--format', 'ids');
    expect(one.code).toBe(0);
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    expect(
      (await cli('ppi', 'sample', '--llm', llm, '--topics', '2', '--format', 'ids')).stdout,
    ).toBe(one.stdout);
    expect(one.stderr).toContain('2 of 6 topics (seed 42, uniform): 16 pairs to label');
    const items = await cli('ppi', 'sample', '--llm', llm, '--topics', '0.5', '--seed', '3');
    expect(items.stdout.trim().split('\n')).toHaveLength(24);
    expect(items.stdout).toMatch(/^\d\tA1\n/);
    const pairs = await cli('ppi', 'sample', '--llm', llm, '--pairs', '5');
    expect(pairs.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('stratified by the LLM score: one topic from each band of scores', async () => {
    // A's P@4 under the LLM orders the topics 5 < 3 = 6 < 2 < 1 = 4 (ties by id): with two
    // topics the systematic choice takes one of the lower three and one of the upper three.
    for (const seed of ['1', '2', '3', '4']) {
      const r = await cli(
        'ppi',
        'sample',
        '--llm',
        llm,
        '--topics',
        '2',
        '--stratify',
        '-m',
        'P@4',
        '--seed',
        seed,
        '--format',
        'ids',
        A,
      );
      const chosen = r.stdout.trim().split('\n');
      expect(chosen.filter((t) => ['3', '5', '6'].includes(t))).toHaveLength(1);
      expect(chosen.filter((t) => ['1', '2', '4'].includes(t))).toHaveLength(1);
    }
  });
});

const RUNS21 = join(SHARED_DATA, 'syndl/TREC-DLs-files/TREC-DL-2021/passages-runs');
const RUNS19 = join(SHARED_DATA, 'syndl/TREC-DLs-files/TREC-DL-2019/passages-runs');
const data = (p: string) => join(SHARED_DATA, p);
const needed = [
  RUNS21,
  RUNS19,
  data('anserini_tools/qrels/qrels.dl21-passage.txt'),
  data('llm_judgement_comparison/binary-gpt4o-dl21.txt'),
];

describe.skipIf(needed.some(missingSharedFile))('assay ppi on TREC DL with GPT-4o labels', () => {
  const read = (path: string) => readFileSync(path, 'latin1');
  const runsIn = (dir: string): Run[] =>
    readdirSync(dir)
      .sort()
      .map((f) => parseRun(read(join(dir, f)), f));
  const evaluate = (qrels: Qrels, runs: Run[]): RunEvaluation[] =>
    runs.map((run) =>
      evaluateRun(prepareQrels(qrels), run, resolveMeasures(['nDCG@10']), { completeTopics: true }),
    );

  /** Coverage of every run's full-NIST nDCG@10 and the width ratio over `draws` samples of 15 topics. */
  function coverage(year: string, runs: Run[], draws: number) {
    const nist = parseQrels(read(data(`anserini_tools/qrels/qrels.${year}-passage.txt`)));
    const gpt = parseQrels(read(data(`llm_judgement_comparison/binary-gpt4o-${year}.txt`)));
    const full = evaluate(nist, runs);
    const judge = evaluate(gpt, runs);
    const truth = new Map(full.map((e) => [e.runid, e.summary[0] as number]));
    const topics = [...nist.keys()].sort();
    let covered = 0;
    let total = 0;
    let width = 0;
    let humanWidth = 0;
    for (let s = 1; s <= draws; s++) {
      const chosen = new Set(sampleUnits(topics, 15, s));
      const human = full.map((e) => ({ ...e, topics: e.topics.filter((t) => chosen.has(t.qid)) }));
      const report = ppiLeaderboard(topicUnits(human, judge, ['nDCG@10']), {
        alpha: 0.05,
        correction: 'holm',
      });
      for (const row of report.rows) {
        const t = truth.get(row.run)!;
        total++;
        if (row.ci_lower <= t && t <= row.ci_upper) covered++;
        width += row.ci_upper - row.ci_lower;
        humanWidth += row.human.ci_upper - row.human.ci_lower;
      }
    }
    return { coverage: covered / total, ratio: width / humanWidth, nist, gpt };
  }

  it('DL 2021, 14 runs: covers the full-NIST means near 95%, narrower than people alone', async () => {
    const runs = runsIn(RUNS21);
    // 100 draws here (bench/ppi.mjs: 200 draws give 93.9% and a width ratio of 0.810).
    const { coverage: c, ratio, nist } = coverage('dl21', runs, 100);
    expect(c).toBeGreaterThan(0.9);
    expect(c).toBeLessThan(0.99);
    expect(ratio).toBeLessThan(0.9);
    // The command gives what the analysis gives, on one draw written to a file.
    const chosen = new Set(sampleUnits([...nist.keys()].sort(), 15, 1));
    const lines = read(data('anserini_tools/qrels/qrels.dl21-passage.txt'))
      .split('\n')
      .filter((l) => chosen.has(l.split(/\s+/)[0]!));
    const human = file('dl21-15.qrels', `${lines.join('\n')}\n`);
    const runFiles = readdirSync(RUNS21)
      .sort()
      .map((f) => join(RUNS21, f));
    const report = await ppi(
      '--human',
      human,
      '--llm',
      data('llm_judgement_comparison/binary-gpt4o-dl21.txt'),
      ...runFiles,
    );
    expect(report.rows).toHaveLength(14);
    expect([report.n, report.N]).toEqual([15, 53]);
    const direct = ppiLeaderboard(
      topicUnits(
        evaluate(parseQrels(read(human)), runs),
        evaluate(parseQrels(read(data('llm_judgement_comparison/binary-gpt4o-dl21.txt'))), runs),
        ['nDCG@10'],
      ),
      { alpha: 0.05, correction: 'holm' },
    );
    expect(report.rows.map((r) => r.estimate)).toEqual(
      direct.rows.map((r) => expect.closeTo(r.estimate, 12)),
    );
  });

  it.skipIf(missingSharedFile(data('llm_judgement_comparison/binary-gpt4o-dl19.txt')))(
    'DL 2019, 3 runs (data the method was not built on): the same',
    () => {
      const { coverage: c, ratio } = coverage('dl19', runsIn(RUNS19), 200);
      // bench/ppi.mjs: 93.3% and 0.854.
      expect(c).toBeGreaterThan(0.9);
      expect(ratio).toBeLessThan(0.9);
    },
  );
});
