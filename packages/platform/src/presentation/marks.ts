// What a leaderboard's table says beside its numbers: each run's short tag, the marks of the
// runs a mean is significantly better than, the best mean of a column, and the words naming
// the test and the correction. The web app's table and every report's table say it the same.

/** Each run's short tag, in leaderboard order (the order the marks follow). */
export type RunTags = ReadonlyMap<string, string>;

/** Short tags of runs in leaderboard order: `a`–`z`, then `A`–`Z`, then numbers from 53. */
export function runTags(runs: readonly string[]): Map<string, string> {
  const tag = (i: number) =>
    i < 26
      ? String.fromCharCode(97 + i)
      : i < 52
        ? String.fromCharCode(65 + i - 26)
        : String(i + 1);
  return new Map(runs.map((run, i) => [run, tag(i)]));
}

/**
 * The tags of the runs a mean is significantly better than, in leaderboard order: `bd`.
 * Single letters read as a word (the style of published tables); once a tag has two
 * characters they are separated by commas (`b,53`).
 */
export function significanceMarks(
  tags: RunTags,
  betterThan: readonly string[] | undefined,
): string {
  const better = new Set(betterThan ?? []);
  const list = [...tags].filter(([run]) => better.has(run)).map(([, tag]) => tag);
  return list.some((t) => t.length > 1) ? list.join(',') : list.join('');
}

/** Per measure, the highest mean of the runs (shown in bold); runs without one are skipped. */
export function bestMeans(
  measures: readonly string[],
  runs: ReadonlyArray<{ means: Readonly<Record<string, number | null | undefined>> }>,
): Record<string, number> {
  return Object.fromEntries(
    measures.map((m) => [m, Math.max(...runs.map((r) => r.means[m] ?? -Infinity))]),
  );
}

const TEST_NAMES: Readonly<Record<string, string>> = {
  t: 'paired t-test',
  wilcoxon: 'Wilcoxon signed-rank test',
  randomization: 'paired randomization test',
};

const CORRECTION_NAMES: Readonly<Record<string, string>> = {
  holm: 'Holm',
  bonferroni: 'Bonferroni',
  bh: 'Benjamini-Hochberg',
  none: 'no',
};

/** A significance test's name for reading (`t` → `paired t-test`); an unknown id as given. */
export function testName(test: string): string {
  return TEST_NAMES[test] ?? test;
}

/** A correction's name as in "Holm correction" (`bh` → `Benjamini-Hochberg`, `none` → `no`). */
export function correctionName(correction: string): string {
  return CORRECTION_NAMES[correction] ?? correction;
}

/** The sentence explaining the marks, for a leaderboard tested pairwise or against a baseline. */
export function marksLegend(baseline: string | undefined): string {
  return baseline === undefined
    ? 'A mark after a mean lists the runs (by tag) it is significantly better than on that measure.'
    : `A mark after a mean: significantly better than that run (only tests against the baseline ${baseline} were run).`;
}
