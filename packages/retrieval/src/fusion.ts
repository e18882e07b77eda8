import { rankEntries, type Run, type RunEntry } from '@assay/trec';

/** Score normalisations applied to each input run (per topic) before CombSUM/CombMNZ. */
export type ScoreNorm = 'none' | 'minmax' | 'zscore' | 'sum';

/** Fusion methods of {@link fuseRuns}. */
export type FusionMethod = 'rrf' | 'combsum' | 'combmnz' | 'interleave';

/** Options of {@link fuseRuns}. */
export interface FusionOptions {
  method: FusionMethod;
  /** RRF constant k (default 60). */
  k?: number;
  /** Normalisation for CombSUM/CombMNZ (default minmax). */
  norm?: ScoreNorm;
  /** One weight per run (default 1 each); not used by interleaving. */
  weights?: readonly number[];
  /** Documents kept per topic (default 1000). */
  depth?: number;
  /** Name (tag) of the fused run (default `fused`). */
  name?: string;
}

/** The entries of one topic in trec_eval's order (score desc, docno desc). */
function ranked(entries: readonly RunEntry[] | undefined): RunEntry[] {
  return entries ? rankEntries(entries) : [];
}

/** Scores of one ranked list after `norm`, in the same order. */
export function normalizeScores(scores: readonly number[], norm: ScoreNorm): number[] {
  if (norm === 'none' || scores.length === 0) return scores.slice();
  if (norm === 'minmax') {
    const min = Math.min(...scores);
    const max = Math.max(...scores);
    // All equal: every document is as good as the best one.
    return scores.map((s) => (max === min ? 1 : (s - min) / (max - min)));
  }
  if (norm === 'zscore') {
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const sd = Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / scores.length);
    return scores.map((s) => (sd === 0 ? 0 : (s - mean) / sd));
  }
  const sum = scores.reduce((a, b) => a + b, 0);
  return scores.map((s) => (sum === 0 ? 0 : s / sum));
}

/**
 * Fuses runs topic by topic. Each input topic is first ranked as trec_eval ranks it.
 * - `rrf`: Σ_i w_i / (k + rank_i(d)), ranks 1-based (Cormack et al., 2009);
 * - `combsum`: Σ_i w_i · norm_i(score_i(d)); `combmnz`: CombSUM × number of runs with d;
 * - `interleave`: round robin, each run in turn contributes its best document not yet
 *   taken; the fused score is (n − position) so trec_eval keeps that order.
 * Topics appear in order of first appearance across the runs; each keeps `depth` documents.
 */
export function fuseRuns(runs: readonly Run[], options: FusionOptions): Run {
  const depth = options.depth ?? 1000;
  const weights = options.weights ?? runs.map(() => 1);
  if (weights.length !== runs.length)
    throw new RangeError(`${weights.length} weights for ${runs.length} runs`);
  const topicIds: string[] = [];
  const seenTopics = new Set<string>();
  for (const run of runs)
    for (const qid of run.topics.keys())
      if (!seenTopics.has(qid)) {
        seenTopics.add(qid);
        topicIds.push(qid);
      }
  const topics = new Map<string, RunEntry[]>();
  for (const qid of topicIds) {
    const lists = runs.map((run) => ranked(run.topics.get(qid)));
    const fused =
      options.method === 'interleave'
        ? interleave(lists)
        : combine(lists, weights, options.method, options.k ?? 60, options.norm ?? 'minmax');
    topics.set(
      qid,
      rankEntries(fused)
        .slice(0, depth)
        .map((e, i) => ({ ...e, rank: i + 1 })),
    );
  }
  return { name: options.name ?? 'fused', topics };
}

function combine(
  lists: RunEntry[][],
  weights: readonly number[],
  method: 'rrf' | 'combsum' | 'combmnz',
  k: number,
  norm: ScoreNorm,
): RunEntry[] {
  const score = new Map<string, number>();
  const hits = new Map<string, number>();
  lists.forEach((list, i) => {
    const w = weights[i]!;
    const values =
      method === 'rrf'
        ? list.map((_, r) => 1 / (k + r + 1))
        : normalizeScores(
            list.map((e) => e.score),
            norm,
          );
    list.forEach((entry, r) => {
      score.set(entry.docno, (score.get(entry.docno) ?? 0) + w * values[r]!);
      hits.set(entry.docno, (hits.get(entry.docno) ?? 0) + 1);
    });
  });
  return [...score].map(([docno, s]) => ({
    docno,
    rank: 0,
    score: method === 'combmnz' ? s * hits.get(docno)! : s,
  }));
}

/** Round-robin interleaving of ranked lists (documents already taken are skipped). */
export function interleave(lists: readonly (readonly RunEntry[])[]): RunEntry[] {
  const order: string[] = [];
  const taken = new Set<string>();
  const next = lists.map(() => 0);
  let remaining = true;
  while (remaining) {
    remaining = false;
    lists.forEach((list, i) => {
      while (next[i]! < list.length && taken.has(list[next[i]!]!.docno)) next[i]!++;
      if (next[i]! < list.length) {
        const docno = list[next[i]!]!.docno;
        taken.add(docno);
        order.push(docno);
        next[i]!++;
        remaining = true;
      }
    });
  }
  return order.map((docno, i) => ({ docno, rank: i + 1, score: order.length - i }));
}
