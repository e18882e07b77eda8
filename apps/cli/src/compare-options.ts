import {
  compareSettings,
  CompareSettingsError,
  type CompareSettings,
} from '@assay/platform/analysis';
import { type OptionSpec, TEXT, UsageError } from './getopt.js';

/** The options of a significance-tested leaderboard, declared once for every command with one. */
export const COMPARE_SETTING_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'test',
    key: 'test',
    kind: TEXT,
    arg: 'T',
    help: `t (paired t-test, default), wilcoxon (signed-rank) or randomization
(paired sign-flip test); all two-sided, as scipy.stats`,
  },
  {
    long: 'permutations',
    key: 'permutations',
    kind: TEXT,
    arg: 'N',
    help: 'sign flips of the randomization test (default 10000)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: TEXT,
    arg: 'S',
    help: 'seed of the randomization test and the bootstrap (default 42)',
  },
  {
    long: 'correction',
    key: 'correction',
    kind: TEXT,
    arg: 'C',
    help: `holm (default), bonferroni, bh (Benjamini-Hochberg) or none; one family
per measure: the correction runs over that measure's comparisons`,
  },
  {
    long: 'alpha',
    key: 'alpha',
    kind: TEXT,
    arg: 'A',
    help: 'significant when the corrected p < A (default 0.05)',
  },
];

/** A `--flag X` that must be a number. */
export function numberOption(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`${name} must be a number, not '${text}'`);
  return value;
}

/** The comparison settings of --test, --correction, --alpha, --permutations and --seed. */
export function compareSettingsOf(
  option: (key: string) => string | undefined,
): Required<Omit<CompareSettings, 'baseline'>> {
  try {
    return compareSettings({
      test: option('test'),
      correction: option('correction'),
      alpha: numberOption(option('alpha'), '--alpha'),
      permutations: numberOption(option('permutations'), '--permutations'),
      seed: numberOption(option('seed'), '--seed'),
    });
  } catch (error) {
    if (error instanceof CompareSettingsError)
      throw new UsageError(`--${error.setting} ${error.problem}`);
    throw error;
  }
}
