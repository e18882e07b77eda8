import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import {
  bootstrapCI,
  createRng,
  kendallTauB,
  quantileSorted,
  rankBiasedOverlap,
  tauAP,
} from '@assay/stats';
import { evaluateRun, prepareQrels, resolveMeasures } from '@assay/measures';
import { parseQrels, parseRun } from '@assay/trec';
import { bootstrapMeanIntervals, correlateMeans } from '@assay/platform/analysis';
import { cli } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { dir, file } = scratchDir('assay-compare-');

// Six topics; per topic R1-R4 are relevant (grade 1) and N1-N4 are not (grade 0). A run
// lists four documents per topic, its first k relevant, so its P@4 on that topic is k/4:
//
//   topic      1     2     3     4     5     6     mean
//   A  k      4     4     3     4     3     4     P@4 0.9166…  (5.5/6)
//   B  k      2     3     2     2     1     3     P@4 0.5416…  (3.25/6)
//   C  k      1     1     2     0     1     1     P@4 0.25     (1.5/6)
//   D  k      3     2     4     1     2     –     P@4 0.5      (3/6): topic 6 missing scores 0
//
// B's fourth document on topic 1 is X, in no qrels: unjudged. Judged@10 (= 1 − unj_10; ranks
// past the end of a short ranking count as judged) is 1 for A and C, (0.9 + 5)/6 for B, and
// 5/6 for D (a missing topic has nothing judged). Leaderboard by P@4: A (a), B (b), D (c), C (d).
const TOPICS = ['1', '2', '3', '4', '5', '6'];
const qrelsText = TOPICS.flatMap((t) =>
  ['R1', 'R2', 'R3', 'R4', 'N1', 'N2', 'N3', 'N4'].map(
    (d) => `${t} 0 ${d} ${d[0] === 'R' ? 1 : 0}`,
  ),
).join('\n');
const qrels = file('qrels', `${qrelsText}\n`);

function ranking(k: number): string[] {
  return ['R1', 'R2', 'R3', 'R4'].slice(0, k).concat(['N1', 'N2', 'N3', 'N4'].slice(0, 4 - k));
}
function runText(tag: string, docs: Record<string, string[]>): string {
  return Object.entries(docs)
    .flatMap(([t, ds]) => ds.map((d, i) => `${t} Q0 ${d} ${i + 1} ${10 - i} ${tag}`))
    .join('\n');
}
function run(tag: string, ks: Array<number | undefined>, name = tag): string {
  const docs: Record<string, string[]> = {};
  ks.forEach((k, i) => {
    if (k !== undefined) docs[TOPICS[i]!] = ranking(k);
  });
  return file(name, `${runText(tag, docs)}\n`);
}
const A = run('A', [4, 4, 3, 4, 3, 4]);
const B = file(
  'B',
  `${runText('B', {
    1: ['R1', 'R2', 'N1', 'X'],
    2: ranking(3),
    3: ranking(2),
    4: ranking(2),
    5: ranking(1),
    6: ranking(3),
  })}\n`,
);
const C = run('C', [1, 1, 2, 0, 1, 1]);
const D = run('D', [3, 2, 4, 1, 2, undefined]);

interface Pair {
  a: string;
  b: string;
  measure: string;
  meanDiff: number;
  statistic: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}
interface Row {
  run: string;
  means: Record<string, number>;
  ci: Record<string, [number, number]>;
  judgedAt10: number;
  differsFrom: Record<string, string[]>;
  betterThan: Record<string, string[]>;
}
interface Single {
  topicHandling: string;
  test: string;
  correction: string;
  alpha: number;
  measures: string[];
  topics: number;
  runs: Row[];
  pairs: Pair[];
}

async function json(...args: string[]) {
  const r = await cli('compare', ...args, '--format', 'json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}
const pair = (c: { pairs: Pair[] }, a: string, b: string, measure?: string) =>
  c.pairs.find((p) => p.a === a && p.b === b && (measure === undefined || p.measure === measure))!;
const row = (c: { runs: Row[] }, run: string) => c.runs.find((r) => r.run === run)!;

describe('assay compare: leaderboard and pairwise tests', () => {
  it('ranks by the first measure, counts every qrels topic and adds Judged@10', async () => {
    const c = (await json(qrels, A, B, C, D, '-m', 'P@4')) as Single;
    expect(c.topicHandling).toMatch(/every qrels topic counts.*scores 0/);
    expect(c).toMatchObject({ test: 't', correction: 'holm', alpha: 0.05, topics: 6 });
    expect(c.measures).toEqual(['P@4']);
    expect(c.runs.map((r) => r.run)).toEqual(['A', 'B', 'D', 'C']);
    expect(c.runs.map((r) => r.means['P@4'])).toEqual([5.5 / 6, 3.25 / 6, 0.5, 0.25]);
    expect(c.runs.map((r) => r.judgedAt10)).toEqual([1, 5.9 / 6, 5 / 6, 1]);
    for (const r of c.runs) {
      const [lo, hi] = r.ci['P@4']!;
      expect(lo).toBeLessThanOrEqual(r.means['P@4']!);
      expect(hi).toBeGreaterThanOrEqual(r.means['P@4']!);
    }
    // The intervals are seeded: the same command gives the same numbers.
    expect((await json(qrels, A, B, C, D, '-m', 'P@4')).runs).toEqual(c.runs);
  });

  it('computes each run’s interval exactly as bootstrapCI, sharing the resampled topics', () => {
    const samples = [
      [1, 1, 0.75, 1, 0.75, 1],
      [0.5, 0.75, 0.5, 0.5, 0.25, 0.75],
      [0.75, 0.5, 1, 0.25, 0.5, 0],
    ];
    const shared = bootstrapMeanIntervals(samples, 42, 3000);
    samples.forEach((values, k) => {
      const one = bootstrapCI(values, { seed: 42, samples: 3000 });
      expect(shared[k]).toEqual([one.lower, one.upper]);
    });
  });

  it('orders measures as given with -m, whatever trec_eval’s own order', async () => {
    // recip_rank would put B above D (means A 1, B 1, C 5/6, D 5/6); P@4 decides.
    const c = (await json(qrels, A, B, C, D, '-m', 'P.4', '-m', 'recip_rank')) as Single;
    expect(c.measures).toEqual(['P_4', 'recip_rank']);
    expect(c.runs.map((r) => r.run)).toEqual(['A', 'B', 'D', 'C']);
    expect(row(c, 'D').means.recip_rank).toBe(5 / 6);
  });

  it('matches scipy.stats.ttest_rel and applies Holm per measure', async () => {
    const c = (await json(qrels, A, B, C, D, '-m', 'P@4')) as Single;
    // Pairs run in leaderboard order (a above b), six comparisons on P@4.
    expect(c.pairs.map((p) => `${p.a}-${p.b}`)).toEqual(['A-B', 'A-D', 'A-C', 'B-D', 'B-C', 'D-C']);
    const P = {
      // scipy.stats.ttest_rel([1,1,.75,1,.75,1], [.5,.75,.5,.5,.25,.75])
      AB: [0.001114437541507422, 6.708203932499369],
      // scipy.stats.ttest_rel([1,1,.75,1,.75,1], [.75,.5,1,.25,.5,0])
      AD: [0.06710577143519894, 2.3312620206007844],
      // scipy.stats.ttest_rel([1,1,.75,1,.75,1], [.25,.25,.5,0,.25,.25])
      AC: [0.0014565817942910077, 6.324555320336758],
      // scipy.stats.ttest_rel([.5,.75,.5,.5,.25,.75], [.75,.5,1,.25,.5,0])
      BD: [0.8327301029268932, 0.2224970797449924],
      // scipy.stats.ttest_rel([.5,.75,.5,.5,.25,.75], [.25,.25,.5,0,.25,.25])
      BC: [0.0335323976037179, 2.906591794880899],
      // scipy.stats.ttest_rel([.75,.5,1,.25,.5,0], [.25,.25,.5,0,.25,.25])
      DC: [0.07558681842161241, 2.23606797749979],
    };
    for (const [key, [p, t]] of Object.entries(P)) {
      const x = pair(c, key[0]!, key[1]!);
      expect(x.p).toBeCloseTo(p!, 14);
      expect(x.statistic).toBeCloseTo(t!, 12);
    }
    expect(pair(c, 'A', 'B').meanDiff).toBeCloseTo(0.375, 15);
    expect(pair(c, 'D', 'C').meanDiff).toBeCloseTo(0.25, 15);
    // Holm by hand, p sorted ascending with multipliers 6, 5, 4, 3, 2, 1 and a running max:
    // AB 6·0.0011144 = 0.0066866; AC 5·0.0014566 = 0.0072829; BC 4·0.0335324 = 0.1341296;
    // AD 3·0.0671058 = 0.2013173; DC 2·0.0755868 = 0.1511736 → max 0.2013173; BD 0.8327301.
    expect(pair(c, 'A', 'B').pAdjusted).toBeCloseTo(6 * P.AB[0]!, 14);
    expect(pair(c, 'A', 'C').pAdjusted).toBeCloseTo(5 * P.AC[0]!, 14);
    expect(pair(c, 'B', 'C').pAdjusted).toBeCloseTo(4 * P.BC[0]!, 14);
    expect(pair(c, 'A', 'D').pAdjusted).toBeCloseTo(3 * P.AD[0]!, 14);
    expect(pair(c, 'D', 'C').pAdjusted).toBeCloseTo(3 * P.AD[0]!, 14);
    expect(pair(c, 'B', 'D').pAdjusted).toBeCloseTo(P.BD[0]!, 14);
    expect(c.pairs.filter((p) => p.significant).map((p) => `${p.a}-${p.b}`)).toEqual([
      'A-B',
      'A-C',
    ]);
    expect(row(c, 'A').betterThan['P@4']).toEqual(['B', 'C']);
    expect(row(c, 'B').differsFrom['P@4']).toEqual(['A']);
    expect(row(c, 'C').betterThan['P@4']).toEqual([]);
    expect(row(c, 'C').differsFrom['P@4']).toEqual(['A']);
  });

  it('applies Benjamini-Hochberg and Bonferroni, and each measure is its own family', async () => {
    const bh = (await json(
      qrels,
      A,
      B,
      C,
      D,
      '-m',
      'P@4',
      '--correction',
      'bh',
      '--alpha',
      '0.07',
    )) as Single;
    // BH by hand (m = 6), p ascending at ranks 1..6, then a running min from the top:
    // BD 6/6·0.8327301 = 0.8327301; DC 6/5·0.0755868 = 0.0907042; AD 6/4·0.0671058 =
    // 0.1006587 → 0.0907042; BC 6/3·0.0335324 = 0.0670648; AC 6/2·0.0014566 = 0.0043697;
    // AB 6/1·0.0011144 = 0.0066866 → 0.0043697. The same numbers as
    // scipy.stats.false_discovery_control([0.001114437541507422, 0.06710577143519894,
    //   0.0014565817942910077, 0.8327301029268932, 0.0335323976037179, 0.07558681842161241])
    //   = [0.004369745382873023, 0.0907041821059349, 0.004369745382873023,
    //      0.8327301029268932, 0.0670647952074358, 0.0907041821059349]
    expect(pair(bh, 'A', 'B').pAdjusted).toBeCloseTo(0.004369745382873023, 14);
    expect(pair(bh, 'A', 'D').pAdjusted).toBeCloseTo(0.0907041821059349, 14);
    expect(pair(bh, 'A', 'C').pAdjusted).toBeCloseTo(0.004369745382873023, 14);
    expect(pair(bh, 'B', 'D').pAdjusted).toBeCloseTo(0.8327301029268932, 14);
    expect(pair(bh, 'B', 'C').pAdjusted).toBeCloseTo(0.0670647952074358, 14);
    expect(pair(bh, 'D', 'C').pAdjusted).toBeCloseTo(0.0907041821059349, 14);
    // At alpha 0.07 BH also finds B > C (0.0671); Holm's 0.1341 does not.
    expect(bh.pairs.filter((p) => p.significant).map((p) => `${p.a}-${p.b}`)).toEqual([
      'A-B',
      'A-C',
      'B-C',
    ]);
    const holm = (await json(qrels, A, B, C, D, '-m', 'P@4', '--alpha', '0.07')) as Single;
    expect(holm.pairs.filter((p) => p.significant)).toHaveLength(2);
    // Bonferroni: min(1, 6p).
    const bonf = (await json(
      qrels,
      A,
      B,
      C,
      D,
      '-m',
      'P@4',
      '--correction',
      'bonferroni',
    )) as Single;
    expect(pair(bonf, 'A', 'C').pAdjusted).toBeCloseTo(6 * 0.0014565817942910077, 14);
    expect(pair(bonf, 'B', 'D').pAdjusted).toBe(1);
    const none = (await json(qrels, A, B, C, D, '-m', 'P@4', '--correction', 'none')) as Single;
    expect(none.pairs.map((p) => p.pAdjusted)).toEqual(none.pairs.map((p) => p.p));
    // Two measures: each has its own six comparisons; Holm's multipliers stay 6..1.
    const two = (await json(qrels, A, B, C, D, '-m', 'P@4', '-m', 'P@2')) as Single;
    expect(two.pairs).toHaveLength(12);
    expect(pair(two, 'A', 'B', 'P@4').pAdjusted).toBeCloseTo(6 * 0.001114437541507422, 14);
  });

  it('matches scipy.stats.wilcoxon (exact, ties and zeros included)', async () => {
    const c = (await json(qrels, A, B, C, D, '-m', 'P@4', '--test', 'wilcoxon')) as Single;
    // scipy.stats.wilcoxon([1,1,.75,1,.75,1], [.5,.75,.5,.5,.25,.75]) → statistic 0.0, pvalue 0.03125
    expect(pair(c, 'A', 'B')).toMatchObject({ statistic: 0, p: 0.03125 });
    // scipy.stats.wilcoxon([1,1,.75,1,.75,1], [.75,.5,1,.25,.5,0]) → 2.0, 0.125
    expect(pair(c, 'A', 'D')).toMatchObject({ statistic: 2, p: 0.125 });
    // scipy.stats.wilcoxon([.5,.75,.5,.5,.25,.75], [.75,.5,1,.25,.5,0]) → 10.0, 1.0
    expect(pair(c, 'B', 'D')).toMatchObject({ statistic: 10, p: 1 });
    // scipy.stats.wilcoxon([.5,.75,.5,.5,.25,.75], [.25,.25,.5,0,.25,.25]) → 0.0, 0.125 (two zeros)
    expect(pair(c, 'B', 'C')).toMatchObject({ statistic: 0, p: 0.125 });
    // scipy.stats.wilcoxon([.75,.5,1,.25,.5,0], [.25,.25,.5,0,.25,.25]) → 2.5, 0.15625
    expect(pair(c, 'D', 'C').statistic).toBe(2.5);
    expect(pair(c, 'D', 'C').p).toBeCloseTo(0.15625, 14);
  });

  it('runs a seeded randomization test: same seed, same p-values', async () => {
    const args = [qrels, A, B, C, D, '-m', 'P@4', '--test', 'randomization'];
    const first = (await json(...args, '--permutations', '20000', '--seed', '7')) as Single;
    const again = (await json(...args, '--permutations', '20000', '--seed', '7')) as Single;
    expect(again.pairs).toEqual(first.pairs);
    const other = (await json(...args, '--permutations', '20000', '--seed', '8')) as Single;
    expect(other.pairs.map((p) => p.p)).not.toEqual(first.pairs.map((p) => p.p));
    // Exact sign-flip p-values by enumerating the 2^6 flips (by hand for A−B: every
    // difference is positive, so only the all-plus and all-minus flips reach |0.375|: 2/64).
    // The Monte Carlo estimate (count + 1)/(N + 1) has standard error ≈ 0.0012 here.
    expect(Math.abs(pair(first, 'A', 'B').p - 2 / 64)).toBeLessThan(0.006);
    expect(Math.abs(pair(first, 'D', 'C').p - 10 / 64)).toBeLessThan(0.015);
    // B−D differences are ±1, ±1, ±2, ±1, ±1, ±3 quarters: every signed sum is odd, so every
    // flip reaches |observed| = 1 quarter and p is exactly 1.
    expect(pair(first, 'B', 'D').p).toBe(1);
    expect(pair(first, 'A', 'B').statistic).toBe(0.375);
  });

  it('tests against a baseline given by tag or by path', async () => {
    const c = (await json(qrels, A, B, C, D, '-m', 'P@4', '--baseline', 'D')) as Single;
    expect(c.pairs.map((p) => `${p.a}-${p.b}`)).toEqual(['A-D', 'B-D', 'C-D']);
    // Holm over three: A−D 3·0.0671058 = 0.2013; C−D 2·0.0755868 = 0.1512 → 0.2013; B−D 0.8327.
    expect(pair(c, 'A', 'D').pAdjusted).toBeCloseTo(3 * 0.06710577143519894, 14);
    expect(pair(c, 'C', 'D').pAdjusted).toBeCloseTo(3 * 0.06710577143519894, 14);
    expect(pair(c, 'C', 'D').meanDiff).toBeCloseTo(-0.25, 15);
    const byPath = (await json(qrels, A, B, C, D, '-m', 'P@4', '--baseline', D)) as Single;
    expect(byPath.pairs).toEqual(c.pairs);
  });
});

describe('assay compare: output formats', () => {
  const args = [qrels, A, B, C, D, '-m', 'P@4'];

  it('table: aligned, with significance letters, the test and the topic handling', async () => {
    const r = await cli('compare', ...args);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('every qrels topic counts');
    expect(r.stdout).toContain('paired t-test');
    expect(r.stdout).toContain('Holm correction per measure over its 6 comparisons');
    // A (a) is significantly better than B (b) and C (d).
    expect(r.stdout).toMatch(/^a {2}A {4}0\.9167 bd {2}1\.0000$/m);
    expect(r.stdout).toMatch(/^c {2}D {4}0\.5000 {5}0\.8333$/m);
    const baseline = await cli('compare', ...args, '--baseline', 'D');
    expect(baseline.stdout).toContain('P@4 against the baseline D:');
    expect(baseline.stdout).toMatch(/^ {2}A\s+\+0\.4167\s+0\.0671\s+0\.2013$/m);
  });

  it('CSV: a (run, measure) section, then a pairs section', async () => {
    const csv = (await cli('compare', ...args, '--format', 'csv')).stdout;
    const [runs, pairs, rest] = csv.trimEnd().split('\n\n');
    expect(rest).toBeUndefined();
    const runLines = runs!.split('\n');
    expect(runLines[0]).toBe(
      'run,measure,mean,ci_lower,ci_upper,judged_at_10,rank,better_than,differs_from,topics,topic_handling',
    );
    expect(runLines).toHaveLength(5);
    expect(runLines[1]).toMatch(
      /^A,P@4,0\.9166666666666666,[\d.]+,[\d.]+,1,1,B C,B C,6,"every qrels topic counts/,
    );
    const pairLines = pairs!.split('\n');
    expect(pairLines[0]).toBe(
      'a,b,measure,mean_diff,statistic,p,p_adjusted,significant,test,correction,alpha',
    );
    expect(pairLines).toHaveLength(7);
    expect(pairLines[1]).toMatch(/^A,B,P@4,0\.375,6\.70820393249936\d*,0\.00111443754150742\d*,/);
  });

  it('LaTeX: booktabs, best per column bold, superscript letters, escaped names', async () => {
    const odd = run('my_run&co', [0, 0, 0, 0, 0, 0], 'odd');
    const tex = (await cli('compare', ...args, odd, '--format', 'latex')).stdout;
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('\\midrule');
    expect(tex).toContain('\\bottomrule');
    expect(tex).toContain('(a) & A & \\textbf{0.9167}\\textsuperscript{bde} & 1.0000 \\\\');
    expect(tex).toContain('my\\_run\\&co');
    expect(tex).toMatch(/^% .*every qrels topic counts/m);
  });

  it('HTML: one self-contained file with SVG plots and escaped names and topic ids', async () => {
    const evil = run('<script>alert(1)</script>', [4, 4, 4, 4, 4, 4], 'evil');
    // A qrels topic id with markup in it: nobody retrieves it, so it scores 0 everywhere.
    const evilQrels = file('qrels-evil', `${qrelsText}\n<img/src=x> 0 R1 1\n`);
    const out = join(dir, 'report.html');
    const r = await cli(
      'compare',
      evilQrels,
      A,
      B,
      evil,
      '-m',
      'P@4',
      '--format',
      'html',
      '--out',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('topic &lt;img/src=x&gt;');
    expect(html).not.toMatch(
      /<(script|img|link|iframe|object|embed)\b|\s(src|href)=|url\(|@import|https?:/i,
    );
    expect(html).toContain('every qrels topic counts');
    expect(html).toContain('Corrected p-values, P@4');
    expect(html).toContain('class="matrix"');
  });
});

describe('assay compare: two qrels', () => {
  // Five runs, topic 1 judged differently by two label sets H and L; topic 2 (one relevant
  // document, retrieved by nobody) scores 0 for everyone. B1-B5 are relevant in both, H1 only
  // in H, L1 only in L, N1-N3 in neither. P@5 on topic 1 (H, L), means over two topics:
  //   r1 B1 B2 B3 B4 H1 → (1.0, 0.8)  means (0.5, 0.4)
  //   r2 B1 B2 B3 B4 L1 → (0.8, 1.0)            (0.4, 0.5)
  //   r3 B1 B2 B3 N1 N2 → (0.6, 0.6)            (0.3, 0.3)
  //   r4 B1 H1 N1 N2 N3 → (0.4, 0.2)            (0.2, 0.1)
  //   r5 B1 L1 N1 N2 N3 → (0.2, 0.4)            (0.1, 0.2)
  // Rankings: H r1 r2 r3 r4 r5; L r2 r1 r3 r5 r4 (the top two and the bottom two swapped).
  const judged = (h: number, l: number) =>
    [
      ...['B1', 'B2', 'B3', 'B4', 'B5'].map((d) => `1 0 ${d} 1`),
      `1 0 H1 ${h}`,
      `1 0 L1 ${l}`,
      ...['N1', 'N2', 'N3'].map((d) => `1 0 ${d} 0`),
      '2 0 Z 1',
    ].join('\n');
  const H = file('qrels-H', judged(1, 0));
  const L = file('qrels-L', judged(0, 1));
  const runs = [
    ['r1', 'B1 B2 B3 B4 H1'],
    ['r2', 'B1 B2 B3 B4 L1'],
    ['r3', 'B1 B2 B3 N1 N2'],
    ['r4', 'B1 H1 N1 N2 N3'],
    ['r5', 'B1 L1 N1 N2 N3'],
  ].map(([tag, docs]) => file(tag!, `${runText(tag!, { 1: docs!.split(' ') })}\n`));

  // Hand-computed, n = 5 runs:
  // - Kendall tau-b: 10 pairs, 2 discordant (r1/r2, r4/r5), no ties: (8 − 2)/10 = 0.6
  //   (scipy.stats.kendalltau([.5,.4,.3,.2,.1], [.4,.5,.3,.1,.2]).statistic = 0.6).
  // - Spearman: rank differences 1, 1, 0, 1, 1: 1 − 6·4/(5·24) = 0.8
  //   (scipy.stats.spearmanr(...).statistic = 0.8).
  // - tau-AP, H as truth, walking L's ranking: r1 has 0 of 1 run above it correctly above
  //   it in H; r3 2 of 2; r5 3 of 3; r4 3 of 4: 2/(5 − 1)·(0 + 1 + 1 + 3/4) − 1 = 0.375.
  // - RBO_ext, p = 0.9: agreements at depths 1..5 are 0, 1, 1, 3/4, 1:
  //   (1/9)·(0.81 + 0.729 + 0.75·0.6561 + 0.59049) + 0.59049 = 0.881775.
  const expected = { kendallTauB: 0.6, tauAP: 0.375, spearman: 0.8, rbo: 0.881775 };

  it('names files by their base name in HTML and LaTeX, and keeps paths only to tell apart two of one name', async () => {
    for (const format of ['html', 'latex']) {
      const out = (
        await cli('compare', '--qrels', H, '--qrels', L, ...runs, '-m', 'P@5', '--format', format)
      ).stdout;
      expect(out).toContain('qrels-H');
      expect(out).not.toContain(dirname(H));
    }
    const twin = await json(
      '--qrels',
      H,
      '--qrels',
      `./${relative(process.cwd(), H)}`,
      ...runs,
      '-m',
      'P@5',
    );
    expect(twin.leaderboards.map((l: { qrels: string }) => l.qrels)).toEqual([
      H,
      `./${relative(process.cwd(), H)}`,
    ]);
  });

  it('reports both leaderboards and their rank correlation in JSON', async () => {
    const c = await json('--qrels', H, '--qrels', L, ...runs, '-m', 'P@5');
    expect(c.topicHandling).toMatch(/every qrels topic counts/);
    // Files go by their names, not their (absolute) paths: reports travel.
    expect(c.leaderboards.map((l: { qrels: string }) => l.qrels)).toEqual(['qrels-H', 'qrels-L']);
    expect(c.leaderboards[0].runs.map((r: Row) => r.run)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(c.leaderboards[1].runs.map((r: Row) => r.run)).toEqual(['r2', 'r1', 'r3', 'r5', 'r4']);
    expect(c.leaderboards[1].runs.map((r: Row) => r.means['P@5'])).toEqual([
      0.5, 0.4, 0.3, 0.2, 0.1,
    ]);
    const r = c.rankCorrelation['P@5'];
    for (const [k, v] of Object.entries(expected)) expect(r[k]).toBeCloseTo(v, 14);
    // Same qrels twice: perfect agreement.
    const same = await json('--qrels', H, '--qrels', H, ...runs, '-m', 'P@5');
    const { ci, ...same5 } = same.rankCorrelation['P@5'];
    for (const v of Object.values(same5)) expect(v).toBeCloseTo(1, 14);
    // Every resample ranks the runs alike under both: every interval is [1, 1].
    for (const v of Object.values(ci as Record<string, number[]>))
      expect(v).toEqual([expect.closeTo(1, 14), expect.closeTo(1, 14)]);
  });

  it('computes the same correlations from the means directly', () => {
    const h = new Map([
      ['r1', 0.5],
      ['r2', 0.4],
      ['r3', 0.3],
      ['r4', 0.2],
      ['r5', 0.1],
    ]);
    const l = new Map([
      ['r1', 0.4],
      ['r2', 0.5],
      ['r3', 0.3],
      ['r4', 0.1],
      ['r5', 0.2],
    ]);
    const r = correlateMeans(h, l);
    for (const [k, v] of Object.entries(expected))
      expect(r[k as keyof typeof r]).toBeCloseTo(v, 14);
    // tau-AP weighs swaps near the top more than Kendall's tau does. Truth r1..r5; swapping
    // the top two: walk r2, r1 (0/1), r3 (2/2), r4 (3/3), r5 (4/4): (2/4)·3 − 1 = 0.5;
    // swapping the bottom two: r2 (1/1), r3 (2/2), r5 (3/3), r4 (3/4): (2/4)·3.75 − 1 = 0.875.
    // Kendall tau-b is (9 − 1)/10 = 0.8 for both.
    const top = correlateMeans(
      h,
      new Map([...h].map(([k, v]) => [k, k === 'r1' ? 0.4 : k === 'r2' ? 0.5 : v])),
    );
    const bottom = correlateMeans(
      h,
      new Map([...h].map(([k, v]) => [k, k === 'r4' ? 0.1 : k === 'r5' ? 0.2 : v])),
    );
    expect(top.tauAP).toBeCloseTo(0.5, 14);
    expect(bottom.tauAP).toBeCloseTo(0.875, 14);
    expect(top.kendallTauB).toBeCloseTo(0.8, 14);
    expect(bottom.kendallTauB).toBeCloseTo(0.8, 14);
    // tau@3: H's top three r1 r2 r3 take L's values 0.4 0.5 0.3: r1/r2 swapped, the other
    // two pairs kept: (2 − 1)/3.
    expect(correlateMeans(h, l, { topRuns: 3, tolerance: 0.01 }).kendallTauTop).toBeCloseTo(
      1 / 3,
      14,
    );
    // Gap-aware tau: with tolerance 0.01 every gap (≥ 0.1) counts fully: (8 − 2)/10. With
    // 0.2, the two swapped pairs (gaps 0.1 in both) weigh ½ and the eight kept pairs 1
    // (each has a gap of at least 0.2 on one side): (8 − ½ − ½)/(8 + ½ + ½) = 7/9.
    expect(correlateMeans(h, l, { topRuns: 10, tolerance: 0.01 }).gapAwareTau).toBeCloseTo(0.6, 14);
    expect(correlateMeans(h, l, { topRuns: 10, tolerance: 0.2 }).gapAwareTau).toBeCloseTo(
      7 / 9,
      14,
    );
  });

  it('shows both rankings side by side in text, CSV, LaTeX and HTML', async () => {
    const base = ['--qrels', H, '--qrels', L, ...runs, '-m', 'P@5'];
    const table = (await cli('compare', ...base)).stdout;
    expect(table).toContain('== leaderboard 2 ==');
    expect(table).toMatch(/^\s+1\s+r1\s+0\.5000\s+r2\s+0\.5000\s+\+1$/m);
    expect(table).toMatch(/^\s+5\s+r5\s+0\.1000\s+r4\s+0\.1000\s+-1$/m);
    expect(table).toMatch(
      /P@5: Kendall tau-b 0\.6000 \[[-0-9.]+, [-0-9.]+\] {3}tau-AP 0\.3750 \[[-0-9.]+, [-0-9.]+\] {3}Spearman 0\.8000 \[[-0-9.]+, [-0-9.]+\] {3}RBO 0\.8818 \[/,
    );
    expect(table).toMatch(/tau@10 0\.6000 \[[-0-9.]+, [-0-9.]+\] {3}gap tau 0\.6000 \[/);
    const csv = (await cli('compare', ...base, '--format', 'csv')).stdout;
    const sections = csv.trimEnd().split('\n\n');
    expect(sections).toHaveLength(3);
    expect(sections[0]!.split('\n')[0]).toMatch(/^qrels,run,measure,mean,/);
    const [corrHead, corrRow] = sections[2]!.split('\n');
    expect(corrHead).toBe(
      'measure,' +
        ['kendall_tau_b', 'tau_ap', 'spearman', 'rbo', 'kendall_tau_top', 'gap_aware_tau']
          .map((n) => `${n},${n}_ci_lower,${n}_ci_upper`)
          .join(','),
    );
    const [m, ...values] = corrRow!.split(',');
    expect(m).toBe('P@5');
    Object.values(expected).forEach((v, i) => expect(Number(values[3 * i])).toBeCloseTo(v, 14));
    const tex = (await cli('compare', ...base, '--format', 'latex')).stdout;
    expect(tex).toContain('P@5 & 0.6000 & 0.3750 & 0.8000 & 0.8818 & 0.6000 & 0.6000 \\\\');
    const html = (await cli('compare', ...base, '--format', 'html')).stdout;
    expect(html).toContain('Leaderboard agreement');
    expect(html).toMatch(
      /<td>0\.6000<br><span class="meta">\[[-0-9.]+, [-0-9.]+\]<\/span><\/td><td>0\.3750<br>/,
    );
    expect(html).toMatch(/<svg [^>]*aria-label="P@5 rankings under/);
  });
});

describe('assay compare: errors', () => {
  it('bad options: usage and exit code 1', async () => {
    for (const bad of [
      ['--test', 'z'],
      ['--correction', 'sidak'],
      ['--alpha', '2'],
      ['--alpha', 'x'],
      ['--permutations', '0'],
      ['--format', 'pdf'],
      ['--baseline', 'nosuchrun'],
      ['--bogus'],
    ]) {
      const r = await cli('compare', qrels, A, B, '-m', 'P@4', ...bad);
      expect(r.code, bad.join(' ')).toBe(1);
      expect(r.stderr).toContain('Usage: assay compare');
    }
    const noMeasure = await cli('compare', qrels, A, B);
    expect(noMeasure.code).toBe(1);
    expect(noMeasure.stderr).toContain('give at least one -m MEASURE');
    const onlyCounts = await cli('compare', qrels, A, B, '-m', 'num_ret');
    expect(onlyCounts.code).toBe(1);
  });

  it('fewer than two runs: a clear error', async () => {
    const r = await cli('compare', qrels, A, '-m', 'P@4');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pairwise tests need at least two runs');
  });

  it('bad files: file:line on stderr and exit code 2', async () => {
    const badRun = file('bad-run', `1 Q0 R1 1 1.0 bad\n1 Q0 R2 2 high bad\n`);
    const r = await cli('compare', qrels, A, badRun, '-m', 'P@4');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${badRun}:2:`);
    expect(r.stdout).toBe('');
    const badQrels = file('bad-qrels', '1 0 R1 1\n1 0 R2 x\n');
    const q = await cli('compare', badQrels, A, B, '-m', 'P@4');
    expect(q.code).toBe(2);
    expect(q.stderr).toContain(`${badQrels}:2:`);
    const missing = await cli('compare', qrels, A, join(dir, 'nope'), '-m', 'P@4');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope: cannot read file');
    const twin = file('twin', readFileSync(A, 'utf8'));
    const dup = await cli('compare', qrels, A, twin, '-m', 'P@4');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain("both carry the run tag 'A'");
  });
});

// Real data: the 14 TREC DL 2021 passage runs, NIST's qrels and GPT-4's SynDL labels. The
// runs are official TREC submissions assay may not redistribute (see ../shared/data/README.md).
const data = SHARED_DATA.replace(/\/$/, '');
const runsDir = `${data}/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs`;
const human = `${data}/anserini_tools/qrels/qrels.dl21-passage.txt`;
// GPT-4 labels (0-3) of the depth-10 pools of the 424 DL 2021 topics NIST did not judge:
// no (topic, passage) pair, not even a topic, in common with the NIST qrels. As in the SynDL
// paper, the LLM labels alone are the synthetic qrels, so the two leaderboards rest on
// disjoint topic sets (53 NIST topics, 424 GPT-4 topics): leaderboard agreement only.
const gpt4 = `${data}/syndl/SynDL-generation/gpt4-judgments/all-queries-processed-errors/gpt4_judgments_dl2021_processed.txt`;

describe.skipIf(missingSharedFile(runsDir) || missingSharedFile(human) || missingSharedFile(gpt4))(
  'assay compare on TREC DL 2021 (needs ../shared/data; skipped when absent)',
  () => {
    const runs = () =>
      readdirSync(runsDir)
        .sort()
        .map((n) => join(runsDir, n));

    // Reference: per-topic values exported by assay eval (whose ndcg_cut_10 matches
    // trec_eval; nDCG@10 gives the same per-topic values), then scipy 1.17 on them:
    //   node apps/cli/bin/assay.js eval -q -c -m ndcg_cut.10 --format json \
    //     ../shared/data/anserini_tools/qrels/qrels.dl21-passage.txt \
    //     ../shared/data/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs/* > human.json
    //   python3 -c "import json, scipy.stats as st
    //   v = {}
    //   for r in json.load(open('human.json')):
    //       if r['qid'] != 'all': v.setdefault(r['run'], {})[r['qid']] = r['value']
    //   x = lambda run: [v[run][q] for q in sorted(v[run])]
    //   print(st.ttest_rel(x('mono_d3'), x('p_bm25rm3')).pvalue)"   # 53 topics
    // and likewise for the other pairs and for st.wilcoxon(a, b).pvalue.
    it('p-values of the paired t-test and Wilcoxon match scipy', async () => {
      const r = runs();
      const t = (await json(human, ...r, '-m', 'nDCG@10', '--test', 't')) as Single;
      expect(t.topics).toBe(53);
      expect(t.pairs).toHaveLength(91);
      // st.ttest_rel(x('mono_d3'), x('p_bm25rm3')).pvalue
      expect(pair(t, 'mono_d3', 'p_bm25rm3').p).toBeCloseTo(5.632384254424636e-6, 15);
      // st.ttest_rel(x('mono_d3'), x('p_bm25')).pvalue
      expect(pair(t, 'mono_d3', 'p_bm25').p).toBeCloseTo(2.3655663830205206e-6, 15);
      // st.ttest_rel(x('p_bm25rm3'), x('p_bm25')).pvalue
      expect(pair(t, 'p_bm25rm3', 'p_bm25').p).toBeCloseTo(0.8698592095471422, 12);
      // st.ttest_rel(x('NLE_P_v1'), x('pash_r1')).pvalue, .statistic 1.8508894183769766
      expect(pair(t, 'NLE_P_v1', 'pash_r1').p).toBeCloseTo(0.06986912061359017, 12);
      expect(pair(t, 'NLE_P_v1', 'pash_r1').statistic).toBeCloseTo(1.8508894183769766, 10);
      // st.ttest_rel(x('p_tct0'), x('TUW_DR_Base')).pvalue (p_tct0 ranks above TUW_DR_Base)
      expect(pair(t, 'p_tct0', 'TUW_DR_Base').p).toBeCloseTo(0.9670749558219746, 12);
      const w = (await json(human, ...r, '-m', 'nDCG@10', '--test', 'wilcoxon')) as Single;
      // st.wilcoxon(x('mono_d3'), x('p_bm25rm3')).pvalue (normal approximation, n = 53)
      expect(pair(w, 'mono_d3', 'p_bm25rm3').p).toBeCloseTo(7.638538311699746e-6, 15);
      // st.wilcoxon(x('p_bm25rm3'), x('p_bm25')).pvalue
      expect(pair(w, 'p_bm25rm3', 'p_bm25').p).toBeCloseTo(0.41517178994786164, 12);
      // st.wilcoxon(x('NLE_P_v1'), x('pash_r1')).pvalue
      expect(pair(w, 'NLE_P_v1', 'pash_r1').p).toBeCloseTo(0.029004072577805576, 12);
    });

    // The same export with the GPT-4 file as qrels (gpt4.json, 424 topics), then
    //   hm = [mean(x_human(run)) for run in sorted runs]; gm = likewise from gpt4.json
    //   scipy.stats.kendalltau(hm, gm).statistic = 0.8901098901098902
    //   scipy.stats.spearmanr(hm, gm).statistic = 0.9736263736263736
    // Human means, best first: NLE_P_v1 0.7347, yorku21_a 0.6965, pash_r1 0.6951,
    // mono_electra_h3 0.6753, ihsm_colbert64 0.6453, bcai_p_mbert 0.6363, mono_d3 0.6037,
    // p_unicoil0 0.5785, TUW_TAS-B_768 0.5619, p_tct0 0.5001, TUW_DR_Base 0.4991,
    // p_bm25rm3 0.4480, p_bm25 0.4458, paug_bm25 0.3977. Under GPT-4 ihsm_colbert64 and
    // bcai_p_mbert swap, so do p_tct0 and TUW_DR_Base, and mono_d3, p_unicoil0,
    // TUW_TAS-B_768 come in reverse order: 1 + 1 + 3 = 5 discordant pairs of 91, tau-b =
    // (86 − 5)/91 = 81/91.
    it('human vs GPT-4 nDCG@10 leaderboards: Kendall tau-b 0.8901', async () => {
      const out = await cli(
        'compare',
        '--qrels',
        human,
        '--qrels',
        gpt4,
        ...runs(),
        '-m',
        'nDCG@10',
        '--format',
        'json',
      );
      expect(out.code).toBe(0);
      // The two label sets judge disjoint topics, and assay says so.
      expect(out.stderr).toContain('the qrels judge different topics');
      expect(out.stderr).toContain('0 in common');
      const c = JSON.parse(out.stdout);
      expect(c.leaderboards.map((l: { topics: number }) => l.topics)).toEqual([53, 424]);
      const r = c.rankCorrelation['nDCG@10'];
      expect(r.kendallTauB).toBeCloseTo(0.8901098901098902, 14);
      expect(r.kendallTauB).toBeCloseTo(81 / 91, 14);
      expect(r.spearman).toBeCloseTo(0.9736263736263736, 14);
      // No scipy function for these two; written out in Python on the same means (runs
      // ordered best first, ties by tag; hm, gm as above, order = GPT-4's ranking):
      //   2/13 · Σ_{k=1..13} #{j in order[:k]: hm[j] > hm[order[k]]}/k − 1 = 0.8934065934065936
      //   RBO_ext, p = 0.9, equal lengths: (1−p)/p · Σ_d X_d/d·p^d + X_14/14·p^14 = 0.9694330695742857
      expect(r.tauAP).toBeCloseTo(0.8934065934065936, 12);
      expect(r.rbo).toBeCloseTo(0.9694330695742857, 12);
      expect(row(c.leaderboards[0], 'NLE_P_v1').means['nDCG@10']).toBeCloseTo(
        0.7346594169367201,
        14,
      );
      expect(row(c.leaderboards[1], 'NLE_P_v1').means['nDCG@10']).toBeCloseTo(
        0.8903320223177555,
        14,
      );
    });

    // The intervals of the rank correlations, against a bootstrap written out here: per-topic
    // nDCG@10 from @assay/measures, createRng(42), NIST's 53 topics then GPT-4's 424 drawn
    // with replacement in each resample (the two label sets share no topic), every run's
    // mean on the drawn topics, the coefficients from @assay/stats, percentile 2.5/97.5.
    it('intervals of tau-b, tau-AP and RBO equal a topic bootstrap computed here', async () => {
      const out = await cli(
        'compare',
        '--qrels',
        human,
        '--qrels',
        gpt4,
        ...runs(),
        '-m',
        'nDCG@10',
        '--correlation-samples',
        '200',
        '--format',
        'json',
      );
      const r = JSON.parse(out.stdout).rankCorrelation['nDCG@10'];
      const parsed = runs().map((p) => parseRun(readFileSync(p, 'latin1'), p));
      const perTopic = (path: string) => {
        const qrels = prepareQrels(parseQrels(readFileSync(path, 'latin1'), path));
        return parsed.map((run) =>
          evaluateRun(qrels, run, resolveMeasures(['nDCG@10']), {
            completeTopics: true,
          }).topics.map((t) => t.values[0] as number),
        );
      };
      const tags = parsed.map((p) => p.name);
      const [h, g] = [perTopic(human), perTopic(gpt4)];
      const rng = createRng(42);
      const draws = { kendallTauB: [] as number[], tauAP: [] as number[], rbo: [] as number[] };
      const drawMeans = (values: number[][]) => {
        const n = values[0]!.length;
        const counts = new Array<number>(n).fill(0);
        for (let i = 0; i < n; i++) counts[rng.nextInt(n)]!++;
        return values.map((v) => v.reduce((s, x, i) => s + counts[i]! * x, 0) / n);
      };
      // Runs by tag (byte order), as assay correlates them.
      const byTag = tags.map((_, i) => i).sort((a, b) => (tags[a]! < tags[b]! ? -1 : 1));
      const order = (m: number[]) =>
        [...byTag]
          .sort((a, b) => m[b]! - m[a]! || (tags[a]! < tags[b]! ? -1 : 1))
          .map((i) => tags[i]!);
      for (let s = 0; s < 200; s++) {
        const mh = drawMeans(h);
        const mg = drawMeans(g);
        const x = byTag.map((i) => mh[i]!);
        const y = byTag.map((i) => mg[i]!);
        draws.kendallTauB.push(kendallTauB(x, y));
        draws.tauAP.push(tauAP(x, y));
        draws.rbo.push(rankBiasedOverlap(order(mh), order(mg), 0.9));
      }
      for (const [k, values] of Object.entries(draws)) {
        const sorted = Float64Array.from(values).sort();
        expect(r.ci[k], k).toEqual([
          expect.closeTo(quantileSorted(sorted, 0.025), 12),
          expect.closeTo(quantileSorted(sorted, 0.975), 12),
        ]);
      }
      expect(r.ci.kendallTauB[0]).toBeLessThan(r.kendallTauB);
      expect(r.ci.kendallTauB[1]).toBeGreaterThan(r.kendallTauB);
    });
  },
);
