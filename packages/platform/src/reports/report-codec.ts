import type { JsonObject, JsonValue, Report } from '@assay/db';
import type { CompareReport, Comparison } from '../analysis/index.js';
import type { ReportProvenance, StoredReport } from './reports.js';

/** The tag a non-finite number is stored under (jsonb has no NaN or Infinity). */
const FLOAT_TAG = '$float';

/**
 * A value as JSON for jsonb: NaN and ±Infinity (a kappa over no pairs, a t statistic when
 * every topic differs by the same amount) become `{ "$float": "NaN" }` and so on, so that a
 * snapshot reads back exactly as computed; undefined properties are dropped.
 */
export function toJson(value: unknown): JsonValue {
  if (typeof value === 'number')
    return Number.isFinite(value) ? value : { [FLOAT_TAG]: String(value) };
  if (Array.isArray(value)) return value.map((v) => toJson(v));
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = toJson(v);
    return out;
  }
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  throw new TypeError(`cannot store a ${typeof value} in a report`);
}

/** The inverse of {@link toJson}: tagged non-finite numbers become numbers again. */
export function fromJson(value: JsonValue): unknown {
  if (Array.isArray(value)) return value.map((v) => fromJson(v));
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === FLOAT_TAG && typeof value[FLOAT_TAG] === 'string')
      return Number(value[FLOAT_TAG]);
    return Object.fromEntries(keys.map((k) => [k, fromJson(value[k]!)]));
  }
  return value;
}

/** A stored report row as the platform returns it: result decoded, comparison keys in order. */
export function decodeReport(report: Report): StoredReport {
  const result = fromJson(report.result);
  return {
    ...report,
    provenance: report.provenance as unknown as ReportProvenance,
    result: report.kind === 'comparison' ? canonicalComparison(result as CompareReport) : result,
  } as StoredReport;
}

/** An object with the keys of `keys` (those present) in that order. */
function ordered<T extends object>(value: T, keys: readonly (keyof T)[]): T {
  const out = {} as T;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

/** A record keyed by `keys` in that order, each value mapped by `map`. */
function keyedBy<V, W = V>(
  value: Record<string, V>,
  keys: readonly string[],
  map: (v: V) => W = (v) => v as unknown as W,
): Record<string, W> {
  const out: Record<string, W> = {};
  for (const key of keys) if (key in value) out[key] = map(value[key]!);
  return out;
}

/**
 * A comparison read back from jsonb, with its keys in the order `compareRuns` made them.
 * jsonb keeps objects with sorted keys, and the JSON download must come out byte for byte
 * as `assay compare --format json` writes it (measures in -m order, fields as documented).
 */
function canonicalComparison(report: CompareReport): CompareReport {
  const leaderboards = report.leaderboards.map(({ qrels, comparison: c }) => {
    const runNames = Object.keys(c.perTopic[c.measures[0]!] ?? {});
    const comparison: Comparison = ordered(
      {
        ...c,
        runs: c.runs.map((r) => ({
          run: r.run,
          means: keyedBy(r.means, c.measures),
          ci: keyedBy(r.ci, c.measures),
          judgedAt10: r.judgedAt10,
          differsFrom: keyedBy(r.differsFrom, c.measures),
          betterThan: keyedBy(r.betterThan, c.measures),
        })),
        pairs: c.pairs.map((p) =>
          ordered(p, [
            'a',
            'b',
            'measure',
            'meanDiff',
            'statistic',
            'p',
            'pAdjusted',
            'significant',
          ]),
        ),
        perTopic: keyedBy(c.perTopic, [...c.measures, 'Judged@10'], (byRun) =>
          keyedBy(byRun, runNames),
        ),
      },
      [
        'topicHandling',
        'source',
        'topics',
        'test',
        'correction',
        'alpha',
        'seed',
        'permutations',
        'baseline',
        'measures',
        'runs',
        'pairs',
        'perTopic',
        'topicIds',
      ],
    );
    return { qrels, comparison };
  });
  const measures = leaderboards[0]?.comparison.measures ?? [];
  const coefficients = [
    'kendallTauB',
    'tauAP',
    'spearman',
    'rbo',
    'kendallTauTop',
    'gapAwareTau',
  ] as const;
  const settings = report.rankCorrelationSettings;
  return report.rankCorrelation === undefined
    ? { leaderboards }
    : {
        leaderboards,
        ...(settings === undefined
          ? {}
          : {
              rankCorrelationSettings: ordered(settings, [
                'topRuns',
                'tolerance',
                'samples',
                'seed',
                'level',
                'resampling',
              ]),
            }),
        rankCorrelation: keyedBy(report.rankCorrelation, measures, (r) => {
          const out = ordered(r, [...coefficients, 'ci']);
          if (r.ci !== undefined) out.ci = ordered(r.ci, coefficients);
          return out;
        }),
      };
}
