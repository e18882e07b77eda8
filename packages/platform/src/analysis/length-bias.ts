// The length-bias probe of the judge report: does a judge's grade (or its difference from
// the human grade) grow with the passage's length? A Pearson correlation with a
// topic-clustered interval, and the mean difference in five bands of length.
import { clusterBootstrapSteps, runSteps } from '@assay/stats';
import type { Grades, Interval } from './agreement.js';

/** Grade difference (judge − human, or the judge's grade alone) against passage length. */
export interface LengthBias {
  /** Items with a known length. */
  n: number;
  /** Pearson correlation of length (words) with the difference, and its interval. */
  pearson: number;
  ci?: Interval;
  /** Mean difference in five bands of length (quintiles of the items' lengths). */
  bands: Array<{ from: number; to: number; n: number; meanDifference: number }>;
  /** What the difference is: 'judge − human' or 'judge grade'. */
  difference: string;
}

/** Per-topic sums of a Pearson correlation, so a bootstrap over topics adds them. */
interface Moments {
  n: number;
  x: number;
  y: number;
  xx: number;
  yy: number;
  xy: number;
}

function pearsonOf(m: Moments): number {
  const cov = m.xy - (m.x * m.y) / m.n;
  const vx = m.xx - (m.x * m.x) / m.n;
  const vy = m.yy - (m.y * m.y) / m.n;
  return vx > 0 && vy > 0 ? cov / Math.sqrt(vx * vy) : Number.NaN;
}

/** Length bias: the difference (or grade) against the passage length. */
export function lengthBias(
  judge: Grades,
  human: Grades | undefined,
  lengths: ReadonlyMap<string, number>,
  samples: number,
  seed: number,
): LengthBias | undefined {
  return runSteps(lengthBiasSteps(judge, human, lengths, samples, seed));
}

/** {@link lengthBias} one step at a time (a step every few resamples of its interval). */
export function* lengthBiasSteps(
  judge: Grades,
  human: Grades | undefined,
  lengths: ReadonlyMap<string, number>,
  samples: number,
  seed: number,
): Generator<void, LengthBias | undefined, void> {
  const perTopic: Moments[] = [];
  const points: Array<[number, number]> = [];
  for (const [topic, docs] of judge) {
    const m: Moments = { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 };
    for (const [docno, g] of docs) {
      const length = lengths.get(docno);
      if (length === undefined) continue;
      let d = g;
      if (human) {
        const h = human.get(topic)?.get(docno);
        if (h === undefined) continue;
        d = g - h;
      }
      m.n++;
      m.x += length;
      m.y += d;
      m.xx += length * length;
      m.yy += d * d;
      m.xy += length * d;
      points.push([length, d]);
    }
    if (m.n > 0) perTopic.push(m);
  }
  if (points.length < 3) return undefined;
  const total = perTopic.reduce(
    (s, m) => ({
      n: s.n + m.n,
      x: s.x + m.x,
      y: s.y + m.y,
      xx: s.xx + m.xx,
      yy: s.yy + m.yy,
      xy: s.xy + m.xy,
    }),
    { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 },
  );
  points.sort((p, q) => p[0] - q[0]);
  const bands: LengthBias['bands'] = [];
  for (let b = 0; b < 5; b++) {
    const part = points.slice(
      Math.floor((b * points.length) / 5),
      Math.floor(((b + 1) * points.length) / 5),
    );
    if (part.length === 0) continue;
    bands.push({
      from: part[0]![0],
      to: part[part.length - 1]![0],
      n: part.length,
      meanDifference: part.reduce((s, p) => s + p[1], 0) / part.length,
    });
  }
  const result: LengthBias = {
    n: points.length,
    pearson: pearsonOf(total),
    bands,
    difference: human ? 'judge − human' : 'judge grade',
  };
  if (samples > 0 && perTopic.length > 1) {
    const [found] = yield* clusterBootstrapSteps(
      [perTopic.length],
      ([counts]) => {
        const s: Moments = { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 };
        perTopic.forEach((m, i) => {
          const c = counts![i]!;
          s.n += c * m.n;
          s.x += c * m.x;
          s.y += c * m.y;
          s.xx += c * m.xx;
          s.yy += c * m.yy;
          s.xy += c * m.xy;
        });
        return [pearsonOf(s)];
      },
      { samples, seed },
    );
    result.ci = [found!.lower, found!.upper];
  }
  return result;
}
