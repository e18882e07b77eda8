import type { PValueAdjustment } from '@assay/stats';
import type { CompareSettings, TestName } from './compare.js';

/** The significance tests a comparison can run. */
export const COMPARE_TESTS = [
  't',
  'wilcoxon',
  'randomization',
] as const satisfies readonly TestName[];

/** The multiple-comparison corrections a comparison can apply (one family per measure). */
export const COMPARE_CORRECTIONS = [
  'holm',
  'bonferroni',
  'bh',
  'none',
] as const satisfies readonly PValueAdjustment[];

/** The settings of a comparison when none are given. */
export const COMPARE_DEFAULTS = {
  test: 't',
  correction: 'holm',
  alpha: 0.05,
  permutations: 10000,
  seed: 42,
} as const satisfies Required<Omit<CompareSettings, 'baseline'>>;

/** Comparison settings as a caller gives them: any may be missing or out of range. */
export interface CompareSettingsInput {
  test?: string | undefined;
  correction?: string | undefined;
  alpha?: number | undefined;
  permutations?: number | undefined;
  seed?: number | undefined;
}

/** A comparison setting out of range: which one, and what is wrong (`must be …`). */
export class CompareSettingsError extends Error {
  constructor(
    readonly setting: keyof CompareSettingsInput,
    readonly problem: string,
  ) {
    super(`${setting} ${problem}`);
    this.name = 'CompareSettingsError';
  }
}

/**
 * The comparison settings with their defaults filled in, each checked: a known test and
 * correction, 0 < alpha < 1, a positive whole number of permutations, a whole-number
 * seed. Throws a CompareSettingsError naming the first setting that is wrong.
 */
export function compareSettings(
  input: CompareSettingsInput,
): Required<Omit<CompareSettings, 'baseline'>> {
  const test = input.test ?? COMPARE_DEFAULTS.test;
  if (!(COMPARE_TESTS as readonly string[]).includes(test))
    throw new CompareSettingsError('test', `must be ${oneOf(COMPARE_TESTS)}, not '${test}'`);
  const correction = input.correction ?? COMPARE_DEFAULTS.correction;
  if (!(COMPARE_CORRECTIONS as readonly string[]).includes(correction))
    throw new CompareSettingsError(
      'correction',
      `must be ${oneOf(COMPARE_CORRECTIONS)}, not '${correction}'`,
    );
  const alpha = input.alpha ?? COMPARE_DEFAULTS.alpha;
  if (!(alpha > 0 && alpha < 1))
    throw new CompareSettingsError('alpha', 'must lie between 0 and 1');
  const permutations = input.permutations ?? COMPARE_DEFAULTS.permutations;
  if (!Number.isSafeInteger(permutations) || permutations < 1)
    throw new CompareSettingsError('permutations', 'must be a positive integer');
  const seed = input.seed ?? COMPARE_DEFAULTS.seed;
  if (!Number.isSafeInteger(seed)) throw new CompareSettingsError('seed', 'must be an integer');
  return {
    test: test as TestName,
    correction: correction as PValueAdjustment,
    alpha,
    permutations,
    seed,
  };
}

/** `a, b or c`. */
function oneOf(names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
