import { rankEntries } from './ranking.js';
import { checkInteger, isLabelled, selectRuns, topRanked } from './select.js';
import { runSteps } from './steps.js';
import type { Pool, Qrels, Run } from './types.js';

/** What one run brings to a pool. */
export interface RunContribution {
  /** Distinct documents in the run's top `depth` over the pool's topics. */
  retrieved: number;
  /** Pool items the run retrieved within the depth. */
  contributed: number;
  /** Pool items the run retrieved within the depth and no other of the given runs did. */
  unique: number;
}

/** Size of a pool per topic and what each run contributes. */
export interface PoolStats {
  total: number;
  /** Items per topic, in pool topic order (0 for topics whose documents were all excluded). */
  perTopic: Map<string, number>;
  /** Contribution per run, in the order of the runs given. */
  perRun: Map<string, RunContribution>;
}

/**
 * Pool sizes and per-run contributions. Each run is ranked as trec_eval does and cut at the
 * pool's depth over the pool's topics; "unique" is relative to the runs passed here, so passing
 * the pooled runs gives the usual unique-contribution figures, and a subset shows leave-out effects.
 */
export function poolStats(pool: Pool, runs: readonly Run[]): PoolStats {
  return runSteps(poolStatsSteps(pool, runs));
}

/**
 * {@link poolStats} one step at a time: the generator yields every few thousand items and
 * after each run of each topic.
 */
export function* poolStatsSteps(
  pool: Pool,
  runs: readonly Run[],
): Generator<void, PoolStats, void> {
  const chosen = selectRuns(runs);
  const { depth } = pool.parameters;
  const perTopic = new Map<string, number>(pool.topics.map((topic) => [topic, 0]));
  const pooled = new Map<string, Set<string>>();
  for (let from = 0; from < pool.items.length; from += 4096) {
    countPooled(pool.items, from, Math.min(pool.items.length, from + 4096), perTopic, pooled);
    yield;
  }
  const perRun = new Map<string, RunContribution>(
    chosen.map((run) => [run.name, { retrieved: 0, contributed: 0, unique: 0 }]),
  );
  for (const topic of perTopic.keys()) {
    // Each run's top documents of the topic, and how many runs retrieved each document.
    const tops: string[][] = [];
    const retrievers = new Map<string, number>();
    for (const run of chosen) {
      tops.push(countRetrievers(run, topic, depth, retrievers));
      yield;
    }
    const inPool = pooled.get(topic);
    for (const [r, docnos] of tops.entries()) {
      countContribution(docnos, inPool, retrievers, perRun.get(chosen[r]!.name)!);
      yield;
    }
  }
  return { total: pool.items.length, perTopic, perRun };
}

/** Counts the items [from, to) per topic and gathers each topic's pooled docnos. */
function countPooled(
  items: Pool['items'],
  from: number,
  to: number,
  perTopic: Map<string, number>,
  pooled: Map<string, Set<string>>,
): void {
  for (let i = from; i < to; i++) {
    const item = items[i]!;
    perTopic.set(item.topic, (perTopic.get(item.topic) ?? 0) + 1);
    let docs = pooled.get(item.topic);
    if (docs === undefined) {
      docs = new Set();
      pooled.set(item.topic, docs);
    }
    docs.add(item.docno);
  }
}

/** One run's top `depth` documents of `topic`, each counted once more in `retrievers`. */
function countRetrievers(
  run: Run,
  topic: string,
  depth: number,
  retrievers: Map<string, number>,
): string[] {
  const docnos = topRanked(run, topic, depth).map((e) => e.docno);
  for (const docno of docnos) retrievers.set(docno, (retrievers.get(docno) ?? 0) + 1);
  return docnos;
}

/** Adds one run's retrieved, contributed and unique documents of one topic to its counts. */
function countContribution(
  docnos: readonly string[],
  inPool: Set<string> | undefined,
  retrievers: ReadonlyMap<string, number>,
  stats: RunContribution,
): void {
  stats.retrieved += docnos.length;
  for (const docno of docnos) {
    if (inPool === undefined || !inPool.has(docno)) continue;
    stats.contributed++;
    if (retrievers.get(docno) === 1) stats.unique++;
  }
}

/** Options of `judgedAtK`. */
export interface JudgedAtKOptions {
  /** Whether a negative grade counts as a label (default false: pooled, not judged, as in trec_eval). */
  negativeGradesJudged?: boolean;
  /** Only these topics of the run (default: every topic the run retrieved for). */
  topics?: Iterable<string>;
}

/** Judged@k of a run: per topic and averaged over the topics. */
export interface JudgedAtK {
  perTopic: Map<string, number>;
  /** Mean of the per-topic values; NaN when no topic was measured. */
  mean: number;
}

/**
 * Judged@k as assay defines it everywhere: 1 − trec_eval's unj_k. Per topic of the run with n
 * retrieved documents: 1 − (unjudged documents among the top min(k, n)) / k, where a document
 * is unjudged unless `labels` gives it a grade ≥ 0 (a negative grade means pooled but not
 * judged, as in trec_eval). The denominator is always k: ranks past the end of a short ranking
 * count as judged (trec_eval fills them with non-relevant, not unjudged, documents). A topic
 * with no labels at all scores 1 − min(k, n) / k. Averaged over the run's topics.
 * `negativeGradesJudged: true` counts negative grades as labels.
 */
export function judgedAtK(
  run: Run,
  labels: Qrels,
  k: number,
  options: JudgedAtKOptions = {},
): JudgedAtK {
  checkInteger('k', k, 1);
  const negativeGradesJudged = options.negativeGradesJudged ?? false;
  const wanted = options.topics === undefined ? undefined : new Set(options.topics);
  const perTopic = new Map<string, number>();
  let sum = 0;
  for (const [topic, entries] of run.topics) {
    if (entries.length === 0 || (wanted !== undefined && !wanted.has(topic))) continue;
    const top = rankEntries(
      entries,
      `run ${JSON.stringify(run.name)} topic ${JSON.stringify(topic)}`,
    ).slice(0, k);
    const grades = labels.get(topic);
    let unjudged = 0;
    for (const entry of top)
      if (!isLabelled(grades?.get(entry.docno), negativeGradesJudged)) unjudged++;
    const value = 1 - unjudged / k;
    perTopic.set(topic, value);
    sum += value;
  }
  return { perTopic, mean: perTopic.size === 0 ? Number.NaN : sum / perTopic.size };
}
