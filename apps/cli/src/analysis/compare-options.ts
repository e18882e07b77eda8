import {
  COMPARE_CORRECTIONS,
  COMPARE_TESTS,
  compareSettings,
  type CompareSettings,
} from '@assay/platform/analysis';
import { integer, number, oneOf, type OptionSpec, type ParsedArgs } from '../shell/getopt.js';

/**
 * The options of a significance-tested leaderboard, declared once for every command with
 * one; their kinds take the tests and corrections the platform knows and its bounds.
 */
export const COMPARE_SETTING_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'test',
    key: 'test',
    kind: oneOf(...COMPARE_TESTS),
    arg: 'T',
    help: `t (paired t-test, default), wilcoxon (signed-rank) or randomization
(paired sign-flip test); all two-sided, as scipy.stats`,
  },
  {
    long: 'permutations',
    key: 'permutations',
    kind: integer({ min: 1 }),
    help: 'sign flips of the randomization test (default 10000)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: integer(),
    arg: 'S',
    help: 'seed of the randomization test and the bootstrap (default 42)',
  },
  {
    long: 'correction',
    key: 'correction',
    kind: oneOf(...COMPARE_CORRECTIONS),
    arg: 'C',
    help: `holm (default), bonferroni, bh (Benjamini-Hochberg) or none; one family
per measure: the correction runs over that measure's comparisons`,
  },
  {
    long: 'alpha',
    key: 'alpha',
    kind: number({ above: 0, below: 1 }),
    arg: 'A',
    help: 'significant when the corrected p < A (default 0.05)',
  },
];

/** The comparison settings of --test, --correction, --alpha, --permutations and --seed. */
export function compareSettingsOf(parsed: ParsedArgs): Required<Omit<CompareSettings, 'baseline'>> {
  // Every value was checked against its option's kind when parsed.
  return compareSettings({
    test: parsed.option('test'),
    correction: parsed.option('correction'),
    alpha: parsed.number('alpha'),
    permutations: parsed.number('permutations'),
    seed: parsed.number('seed'),
  });
}
