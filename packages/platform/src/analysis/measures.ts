import { resolveMeasures } from '@assay/measures';

/** The measures a comparison can test, in the order asked for, and those it cannot. */
export interface TestableMeasures {
  /** Output column names, in the order of the specs (the first orders the leaderboard). */
  measures: string[];
  /** Columns that are not a mean of per-topic values (counts, sums, geometric means, relstring). */
  skipped: string[];
}

/**
 * Splits measure specs (`nDCG@10`, `map`, `num_ret` …) into output columns that are a mean
 * of per-topic values, which can be tested topic by topic, and the others. Measures are
 * resolved together, trec_eval style: the first parameters given for a measure win.
 * Throws MeasureSpecError for an unknown measure.
 */
export function testableMeasures(specs: readonly string[]): TestableMeasures {
  const computed = resolveMeasures(specs);
  const testable = new Set<string>();
  const skipped: string[] = [];
  for (const m of computed) {
    const ok = m.definition.output !== 'string' && m.definition.aggregate === 'mean';
    for (const name of m.names) {
      if (ok) testable.add(name);
      else skipped.push(name);
    }
  }
  const ordered: string[] = [];
  for (const spec of specs) {
    for (const m of resolveMeasures([spec])) {
      for (const name of m.names) {
        if (testable.has(name) && !ordered.includes(name)) ordered.push(name);
      }
    }
  }
  for (const name of testable) if (!ordered.includes(name)) ordered.push(name);
  return { measures: ordered, skipped };
}
