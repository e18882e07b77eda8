import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA, missingSharedFile } from '../../../test/shared-data.js';
import { cli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-compare-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// Four topics; R1, R2 relevant and N1, N2 not. Each run puts two documents per topic, so
// its P@2 per topic is set by hand:
//   A: 0.5 1.0 0.0 1.0  (mean 0.625)    B: 0.0 0.5 0.0 0.5 (0.25)    C: 1.0 0.0 0.5 0.0 (0.375)
const qrels = file(
  'qrels',
  ['1', '2', '3', '4']
    .flatMap((t) => [`${t} 0 R1 1`, `${t} 0 R2 1`, `${t} 0 N1 0`, `${t} 0 N2 0`])
    .join('\n'),
);
function run(tag: string, perTopic: Record<string, [string, string]>): string {
  const lines = Object.entries(perTopic).flatMap(([t, [d1, d2]]) => [
    `${t} Q0 ${d1} 1 2 ${tag}`,
    `${t} Q0 ${d2} 2 1 ${tag}`,
  ]);
  return file(tag.replace(/\W/g, '_'), `${lines.join('\n')}\n`);
}
const A = run('A', { 1: ['R1', 'N1'], 2: ['R1', 'R2'], 3: ['N1', 'N2'], 4: ['R1', 'R2'] });
const B = run('B', { 1: ['N1', 'N2'], 2: ['R1', 'N1'], 3: ['N1', 'N2'], 4: ['R1', 'N1'] });
const C = run('C', { 1: ['R1', 'R2'], 2: ['N1', 'N2'], 3: ['R1', 'N1'], 4: ['N1', 'N2'] });

interface Pair {
  a: string;
  b: string;
  meanDiff: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

async function json(...args: string[]) {
  const r = await cli('compare', ...args, '--format', 'json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('assay compare', () => {
  it('ranks runs by mean and tests every pair with scipy-matching p-values', async () => {
    const c = await json(qrels, A, B, C, '-m', 'P.2');
    expect(c.runs.map((r: { run: string }) => r.run)).toEqual(['A', 'C', 'B']);
    expect(c.runs.map((r: { means: Record<string, number> }) => r.means.P_2)).toEqual([
      0.625, 0.375, 0.25,
    ]);
    expect(c.topicHandling).toMatch(/every qrels topic counts/);
    const pair = (a: string, b: string) =>
      c.pairs.find((p: Pair) => p.a === a && p.b === b) as Pair;
    // scipy.stats.ttest_rel([.5,1,0,1],[0,.5,0,.5]).pvalue = 0.0576688856224373
    expect(pair('A', 'B').p).toBeCloseTo(0.0576688856224373, 12);
    expect(pair('A', 'B').meanDiff).toBe(0.375);
    // scipy.stats.ttest_rel([.5,1,0,1],[1,0,.5,0]).pvalue = 0.6041813035905923
    expect(pair('A', 'C').p).toBeCloseTo(0.6041813035905923, 12);
    // scipy.stats.ttest_rel([1,0,.5,0],[0,.5,0,.5]).pvalue = 0.7608203755145106
    expect(pair('C', 'B').p).toBeCloseTo(0.7608203755145106, 12);
    // Holm over the three: 3·0.05767 = 0.17301; 2·0.60418 → 1; 0.76082 → max(1, ·) = 1.
    expect(pair('A', 'B').pAdjusted).toBeCloseTo(3 * 0.0576688856224373, 12);
    expect(pair('A', 'C').pAdjusted).toBe(1);
    expect(pair('C', 'B').pAdjusted).toBe(1);
    expect(c.pairs.every((p: Pair) => !p.significant)).toBe(true);
  });

  it('marks significance after the chosen correction and level', async () => {
    const c = await json(qrels, A, B, C, '-m', 'P.2', '--correction', 'none', '--alpha', '0.06');
    const a = c.runs.find((r: { run: string }) => r.run === 'A');
    expect(a.betterThan.P_2).toEqual(['B']);
    expect(a.differsFrom.P_2).toEqual(['B']);
    const table = await cli(
      'compare',
      qrels,
      A,
      B,
      C,
      '-m',
      'P.2',
      '--correction',
      'none',
      '--alpha',
      '0.06',
    );
    expect(table.stdout).toMatch(/a\s+A\s+0\.6250 c/); // A is better than B, whose letter is c
  });

  it('tests against a baseline only, and with a seeded randomization test', async () => {
    const c = await json(
      qrels,
      A,
      B,
      C,
      '-m',
      'P.2',
      '--baseline',
      'B',
      '--test',
      'randomization',
      '--permutations',
      '2000',
    );
    expect(c.pairs.map((p: Pair) => `${p.a}-${p.b}`)).toEqual(['A-B', 'C-B']);
    const again = await json(
      qrels,
      A,
      B,
      C,
      '-m',
      'P.2',
      '--baseline',
      'B',
      '--test',
      'randomization',
      '--permutations',
      '2000',
    );
    expect(again.pairs).toEqual(c.pairs);
    // Sign flips of the A−B differences (.5, .5, 0, .5): |mean| ≥ 0.375 needs the three
    // non-zero differences to share a sign: 4 of the 16 patterns, exact p = 0.25. With 2000
    // permutations the standard error is about 0.01, so the estimate lies within ±0.04.
    expect(c.pairs[0].p).toBeGreaterThan(0.21);
    expect(c.pairs[0].p).toBeLessThan(0.29);
  });

  it('correlates two leaderboards (a full reversal, hand-computed)', async () => {
    // Swapping relevant and non-relevant documents turns every P@2 into 1 − P@2:
    // A 0.375, B 0.75, C 0.625, the reverse of A, C, B.
    const swapped = file(
      'swapped',
      ['1', '2', '3', '4']
        .flatMap((t) => [`${t} 0 R1 0`, `${t} 0 R2 0`, `${t} 0 N1 1`, `${t} 0 N2 1`])
        .join('\n'),
    );
    const c = await json('--qrels', qrels, '--qrels', swapped, A, B, C, '-m', 'P.2');
    const r = c.rankCorrelation.P_2;
    expect(r.kendallTauB).toBeCloseTo(-1, 12);
    expect(r.spearman).toBeCloseTo(-1, 12);
    expect(r.tauAP).toBeCloseTo(-1, 12);
    // RBO_ext of [A,C,B] vs [B,C,A], p = 0.9: agreements 0, 1/2, 1 at depths 1-3;
    // (X_3/3)·p^3 + ((1-p)/p)·Σ (X_d/d)·p^d = 0.729 + (1/9)(0.405 + 0.729) = 0.855.
    expect(r.rbo).toBeCloseTo(0.855, 12);
    const same = await json('--qrels', qrels, '--qrels', qrels, A, B, C, '-m', 'P.2');
    expect(same.rankCorrelation.P_2).toEqual({ kendallTauB: 1, tauAP: 1, spearman: 1, rbo: 1 });
  });

  it('writes CSV, LaTeX and one self-contained HTML file with escaped names', async () => {
    const evil = run('<script>x', {
      1: ['R1', 'N1'],
      2: ['N1', 'N2'],
      3: ['N1', 'N2'],
      4: ['N1', 'N2'],
    });
    const csv = (await cli('compare', qrels, A, B, evil, '-m', 'P.2', '--format', 'csv')).stdout;
    expect(csv.split('\n')[0]).toBe(
      'run,measure,mean,ci_lower,ci_upper,judged_at_10,better_than,topic_handling',
    );
    expect(csv).toContain(
      '\na,b,measure,mean_diff,statistic,p,p_adjusted,significant,test,correction\n',
    );
    const latex = (await cli('compare', qrels, A, B, C, '-m', 'P.2', '--format', 'latex')).stdout;
    expect(latex).toContain('\\toprule');
    expect(latex).toContain('\\textbf{0.6250}');
    const out = join(dir, 'report.html');
    expect(
      (await cli('compare', qrels, A, B, evil, '-m', 'P.2', '--format', 'html', '--out', out)).code,
    ).toBe(0);
    const html = (await import('node:fs')).readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;x');
    expect(html).not.toMatch(/<link|src=|https?:\/\//);
  });

  it('refuses too few runs or measures, with usage', async () => {
    expect((await cli('compare', qrels, A, '-m', 'P.2')).code).toBe(1);
    expect((await cli('compare', qrels, A, B)).stderr).toMatch(/-m MEASURE/);
  });

  const data = SHARED_DATA.replace(/\/$/, '');
  const runsDir = `${data}/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs`;
  const human = `${data}/anserini_tools/qrels/qrels.dl21-passage.txt`;
  const gpt4 = `${data}/syndl/SynDL-generation/gpt4-judgments/all-queries-processed-errors/gpt4_judgments_dl2021_processed.txt`;
  it.skipIf(missingSharedFile(runsDir))(
    'TREC DL 2021: p-values and the human vs GPT-4 leaderboard correlation',
    async () => {
      const runs = readdirSync(runsDir)
        .sort()
        .map((n) => join(runsDir, n));
      const pick = ['p_bm25', 'p_bm25rm3', 'mono_d3'].map((n) => join(runsDir, n));
      // Reference: per-topic ndcg_cut_10 from `assay eval -q -c -m ndcg_cut.10 --format json`
      // (validated against trec_eval), then in Python: scipy.stats.ttest_rel(a, b).pvalue and
      // scipy.stats.wilcoxon(a, b).pvalue over the 53 judged topics.
      const t = await json(human, ...pick, '-m', 'ndcg_cut.10');
      const w = await json(human, ...pick, '-m', 'ndcg_cut.10', '--test', 'wilcoxon');
      const p = (c: { pairs: Pair[] }, a: string, b: string) =>
        c.pairs.find((x) => x.a === a && x.b === b)!.p;
      expect(p(t, 'mono_d3', 'p_bm25rm3')).toBeCloseTo(5.632384254424636e-6, 15);
      expect(p(t, 'mono_d3', 'p_bm25')).toBeCloseTo(2.3655663830205206e-6, 15);
      expect(p(t, 'p_bm25rm3', 'p_bm25')).toBeCloseTo(0.8698592095471422, 12);
      expect(p(w, 'mono_d3', 'p_bm25rm3')).toBeCloseTo(7.638538311699746e-6, 15);
      expect(p(w, 'p_bm25rm3', 'p_bm25')).toBeCloseTo(0.41517178994786164, 12);
      // nDCG@10 leaderboards of the 14 runs from NIST's qrels and from GPT-4's SynDL labels;
      // scipy.stats.kendalltau(human_means, gpt4_means) = 0.8901098901098902 and
      // scipy.stats.spearmanr(...) = 0.9736263736263736 on the full-precision means.
      const two = await json('--qrels', human, '--qrels', gpt4, ...runs, '-m', 'nDCG@10');
      expect(two.rankCorrelation['nDCG@10'].kendallTauB).toBeCloseTo(0.8901098901098902, 12);
      expect(two.rankCorrelation['nDCG@10'].spearman).toBeCloseTo(0.9736263736263736, 12);
    },
  );
});
