import { describe, expect, it } from 'vitest';
import {
  agreement,
  agreementSteps,
  comparisonReport,
  comparisonReportSteps,
  correlateLeaderboards,
  correlateLeaderboardsSteps,
  judgeReport,
  judgeReportSteps,
  type CorrelatedLeaderboard,
  type Comparison,
  type JudgeReportInput,
} from '@assay/platform/analysis';
import { createRng } from '@assay/stats';
import type { Run } from '@assay/trec';
import { inSlices } from '../src/core/work-slices.js';

// The analyses with bootstrap intervals, written as steps for the server, give the numbers
// they gave in one piece: the figures below were printed by the one-piece versions on the
// same seeded inputs before they were written as steps.

const rng = createRng(7);
/** Graded labels 0–3 of `topics` × `docs` items; `shift` 1 moves grades at random by ±1. */
function grades(topics: number, docs: number, shift: number) {
  const m = new Map<string, Map<string, number>>();
  for (let t = 0; t < topics; t++) {
    const d = new Map<string, number>();
    for (let k = 0; k < docs; k++)
      d.set(
        `d${k}`,
        Math.min(3, Math.max(0, ((t * 7 + k * 3) % 4) + (rng.nextInt(3) - 1) * shift)),
      );
    m.set(`q${t}`, d);
  }
  return m;
}
const human = grades(20, 15, 0);
const j1 = grades(20, 15, 1);
const j2 = grades(20, 15, 1);
const j3 = grades(18, 12, 1);
const scale = { min: 0, max: 3 };
const runs: Run[] = Array.from({ length: 5 }, (_, r) => ({
  name: `r${r}`,
  topics: new Map(
    Array.from({ length: 20 }, (_, t) => [
      `q${t}`,
      Array.from({ length: 15 }, (_, k) => ({
        docno: `d${(k * (r + 1) + t) % 15}`,
        score: 100 - k,
        rank: k + 1,
      })),
    ]),
  ),
}));
const lengths = new Map(Array.from({ length: 15 }, (_, k) => [`d${k}`, 10 + k * 13]));

/** A leaderboard of eight runs on 20 topics; `shift` reorders the runs' per-topic values. */
function board(shift: number): CorrelatedLeaderboard {
  const topicIds = Array.from({ length: 20 }, (_, t) => `q${t}`);
  const perTopic: Record<string, number[]> = {};
  const rows = Array.from({ length: 8 }, (_, r) => {
    const v = topicIds.map((_, t) => ((r * 13 + t * 7 + shift * t) % 17) / 17);
    perTopic[`r${r}`] = v;
    return { run: `r${r}`, means: { m: v.reduce((s, x) => s + x, 0) / v.length } };
  });
  return { topicIds, perTopic: { m: perTopic }, runs: rows };
}

/** Runs `steps` to the end, counting its steps. */
function counted<T>(steps: Generator<void, T, void>): { value: T; steps: number } {
  let n = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { value: next.value, steps: n };
    n++;
  }
}

describe('analyses in steps', () => {
  it('agreement: the same report, its intervals as before', async () => {
    const whole = agreement(human, j1, scale, undefined, { samples: 300, seed: 5 });
    expect(whole.intervals!.cohenKappa.linear).toEqual([0.6045815276104044, 0.6769308505196688]);
    expect(whole.intervals!.krippendorffAlpha.ordinal).toEqual([
      0.8024670626788118, 0.8400255029734478,
    ]);
    const stepped = counted(agreementSteps(human, j1, scale, undefined, { samples: 300, seed: 5 }));
    expect(stepped.value).toEqual(whole);
    // A step every few resamples: at least one per ten of them.
    expect(stepped.steps).toBeGreaterThan(300 / 10);
    expect(
      await inSlices(agreementSteps(human, j1, scale, undefined, { samples: 300, seed: 5 })),
    ).toEqual(whole);
  });

  it('judge report: the same report, with panel, drift, length bias and leaderboards', async () => {
    const inputs: JudgeReportInput[] = [
      {
        human: { name: 'h', grades: human },
        judges: [
          { name: 'a', grades: j1 },
          { name: 'b', grades: j2 },
          { name: 'c', grades: j3 },
        ],
        scale,
        drift: [['a', 'b']],
        lengths,
        samples: 200,
        seed: 9,
      },
      {
        human: { name: 'h', grades: human },
        judges: [
          { name: 'a', grades: j1 },
          { name: 'b', grades: j2 },
        ],
        scale,
        runs,
        samples: 120,
        seed: 4,
      },
      {
        judges: [
          { name: 'a', grades: j1 },
          { name: 'b', grades: j2 },
          { name: 'c', grades: j3 },
        ],
        scale,
        samples: 150,
        seed: 3,
      },
    ];
    const [probes, boards, judgesOnly] = inputs.map((input) => judgeReport(input));
    expect(probes!.panel!.fleissKappa.ci).toEqual([0.20047866453142918, 0.29664509804947486]);
    expect(probes!.panel!.krippendorffAlpha.ci!.ordinal).toEqual([
      0.6337015461040165, 0.7070586857161556,
    ]);
    expect(probes!.judges[0]!.lengthBias!.ci).toEqual([-0.1201716978261383, 0.07483494470021375]);
    expect(probes!.drift[0]!.agreement.intervals!.gwet.ac1).toEqual([
      0.23560839707923295, 0.36074202198901917,
    ]);
    expect(boards!.judges[0]!.leaderboard!.ci!.tauAP).toEqual([-0.1291666666666662, 1]);
    expect(judgesOnly!.judges[1]!.agreement.intervals!.pabak).toEqual([
      0.2888888888888889, 0.4222222222222222,
    ]);
    for (const [k, input] of inputs.entries()) {
      const stepped = counted(judgeReportSteps(input));
      expect(stepped.value).toEqual([probes, boards, judgesOnly][k]);
      expect(stepped.steps).toBeGreaterThan(100);
      expect(await inSlices(judgeReportSteps(input))).toEqual([probes, boards, judgesOnly][k]);
    }
  });

  it('rank correlation and comparison reports: the same intervals, paired or not', async () => {
    const settings = { topRuns: 4, tolerance: 0.01, samples: 400, seed: 8 };
    const paired = correlateLeaderboards(board(0), board(3), 'm', settings);
    expect(paired.ci!.spearman).toEqual([-0.7863095238095237, 0.880952380952381]);
    const other = { ...board(3), topicIds: board(3).topicIds.map((t) => `${t}x`) };
    const unpaired = correlateLeaderboards(board(0), other, 'm', settings);
    expect(unpaired.ci!.rbo).toEqual([0.5894589857142859, 0.9111794982142858]);
    const stepped = counted(correlateLeaderboardsSteps(board(0), board(3), 'm', settings));
    expect(stepped.value).toEqual(paired);
    expect(stepped.steps).toBeGreaterThan(400 / 10);
    expect(await inSlices(correlateLeaderboardsSteps(board(0), other, 'm', settings))).toEqual(
      unpaired,
    );
    // Two leaderboards of a comparison report: their rank correlation, as above.
    const comparison = (b: CorrelatedLeaderboard) => ({ ...b, seed: 8 }) as unknown as Comparison;
    const leaderboards = [
      { qrels: 'h', comparison: comparison(board(0)) },
      { qrels: 'j', comparison: comparison(board(3)) },
    ];
    const report = comparisonReport(leaderboards, ['m'], settings);
    expect(report.rankCorrelation!['m']).toEqual(paired);
    expect(await inSlices(comparisonReportSteps(leaderboards, ['m'], settings))).toEqual(report);
  });
});
