import { describe, expect, it } from 'vitest';
import { evaluateRun, MeasureSpecError, prepareQrels, resolveMeasures } from '../src/index.js';
import { qrelsOf, runOf } from './helpers.js';

function perTopic(qrels: string, run: string, measure: string): Record<string, number> {
  const r = evaluateRun(prepareQrels(qrelsOf(qrels)), runOf(run), resolveMeasures([measure]), {
    completeTopics: true,
  });
  return Object.fromEntries(r.topics.map((t) => [t.qid, t.values[0] as number]));
}

/**
 * Compat straight from its definition (Clarke, Vtyurina & Smucker 2021; ir_measures'
 * compat provider): explicit ranking and ideal lists, set overlaps at every depth.
 */
function naiveCompat(
  grades: Map<string, number>,
  scored: Array<[string, number]>,
  p: number,
  normalize: boolean,
): number {
  const ranking = [...scored].sort((x, y) => y[1] - x[1]).map(([d]) => d);
  const score = new Map(scored);
  const ideal = [...grades.keys()]
    .filter((d) => grades.get(d)! > 0)
    .sort((x, y) => grades.get(y)! - grades.get(x)! || (score.get(y) ?? 0) - (score.get(x) ?? 0));
  const depth = Math.max(ranking.length, ideal.length);
  const rbo = (a: string[], b: string[]) => {
    let total = 0;
    let norm = 0;
    let w = 1;
    for (let d = 1; d <= depth; d++) {
      const top = new Set(a.slice(0, d));
      total += (w * b.slice(0, d).filter((x) => top.has(x)).length) / d;
      norm += w;
      w *= p;
    }
    return total / norm;
  };
  const value = rbo(ranking, ideal);
  if (!normalize) return value;
  const best = rbo(ideal, ideal);
  return best > 0 ? value / best : value;
}

describe('Compat (compatibility with an ideal ranking)', () => {
  const QRELS = `
    t1 a 2
    t1 b 0
    t1 c 1
    t1 d 1
    t2 x 0
  `;
  const RUN = `
    t1 a 5
    t1 b 4
    t1 c 3
    t2 x 1
  `;

  it('matches a hand computation', () => {
    // t1: ranking a b c, ideal a c d (d not retrieved), depth 3.
    // Overlaps X_1..3 = 1, 1, 2; the ideal with itself 1, 2, 3.
    // p = 0.5: RBO sum 1 + 0.5·1/2 + 0.25·2/3, ideal 1 + 0.5 + 0.25 → 1.41667/1.75.
    const half = perTopic(QRELS, RUN, 'Compat(p=0.5)');
    expect(half.t1).toBeCloseTo((1 + 0.25 + 0.25 * (2 / 3)) / 1.75, 12);
    // t2 has no relevant document: 0.
    expect(half.t2).toBe(0);
    // Without normalisation the sum is divided by Σ p^(d−1) = 1.75 as well here.
    const raw = perTopic(QRELS, RUN, 'Compat(p=0.5,normalize=False)');
    expect(raw.t1).toBeCloseTo((1 + 0.25 + 0.25 * (2 / 3)) / 1.75, 12);
    // Default p = 0.95.
    const p = 0.95;
    expect(perTopic(QRELS, RUN, 'Compat').t1).toBeCloseTo(
      (1 + p / 2 + (p * p * 2) / 3) / (1 + p + p * p),
      12,
    );
  });

  it('normalisation divides by the ideal overlap when the ranking is longer', () => {
    // One relevant document at rank 2 of 3: X = 0, 1, 1; ideal with itself 1, 1/2·1, 1/3·1.
    const v = perTopic('t1 a 1\nt1 b 0', 't1 b 3\nt1 a 2\nt1 z 1', 'Compat(p=0.5)');
    const score = 0 + 0.5 * (1 / 2) + 0.25 * (1 / 3);
    const best = 1 + 0.5 * (1 / 2) + 0.25 * (1 / 3);
    expect(v.t1).toBeCloseTo(score / best, 12);
    const raw = perTopic('t1 a 1\nt1 b 0', 't1 b 3\nt1 a 2\nt1 z 1', 'Compat(p=0.5,normalize=0)');
    expect(raw.t1).toBeCloseTo(score / 1.75, 12);
  });

  it('equals the definition on random graded topics', () => {
    // A seeded linear congruential generator (Numerical Recipes constants).
    let state = 2021;
    const rng = {
      next: () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32,
      nextInt: (n: number) => Math.floor(rng.next() * n),
    };
    for (let trial = 0; trial < 40; trial++) {
      const grades = new Map<string, number>();
      const judged = 1 + rng.nextInt(25);
      for (let i = 0; i < judged; i++) grades.set(`d${rng.nextInt(40)}`, rng.nextInt(4));
      const retrieved = 1 + rng.nextInt(30);
      const docs = new Set<string>();
      while (docs.size < retrieved) docs.add(`d${rng.nextInt(40)}`);
      // Positive, distinct scores: where ir_measures and trec_eval order alike.
      const scored = [...docs].map((d, i): [string, number] => [d, 100 - i - rng.next() * 0.5]);
      const qrels = [...grades].map(([d, g]) => `t ${d} ${g}`).join('\n');
      const run = scored.map(([d, s]) => `t ${d} ${s}`).join('\n');
      for (const [spec, p, normalize] of [
        ['Compat', 0.95, true],
        ['Compat(p=0.8)', 0.8, true],
        ['Compat(p=0.9,normalize=False)', 0.9, false],
      ] as const) {
        expect(perTopic(qrels, run, spec).t).toBeCloseTo(
          naiveCompat(grades, scored, p, normalize),
          12,
        );
      }
    }
  });

  it('is asked for as ir_measures spells it, and refuses what it does not take', () => {
    expect(resolveMeasures(['Compat(p=0.95)', 'compat']).flatMap((m) => m.names)).toEqual([
      'Compat(p=0.95)',
      'compat',
    ]);
    expect(() => resolveMeasures(['Compat@10'])).toThrow(MeasureSpecError);
    expect(() => resolveMeasures(['Compat(rel=2)'])).toThrow(/unsupported option/);
    expect(() => resolveMeasures(['Compat(p=1.5)'])).toThrow(/p must lie/);
    expect(() => resolveMeasures(['Compat(normalize=maybe)'])).toThrow(/normalize/);
  });
});
