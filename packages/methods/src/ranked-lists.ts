import { fuseRuns } from '@assay/retrieval';
import type { Run } from '@assay/trec';
import type { ScoredDoc } from './method-context.js';

/** Reciprocal rank fusion (Σ 1/(k + rank)) of ranked lists, keeping `depth` documents. */
export function rrfLists(lists: readonly ScoredDoc[][], k: number, depth: number): ScoredDoc[] {
  const runs: Run[] = lists.map((list) => ({
    name: 'part',
    topics: new Map([['q', list.map((d, r) => ({ docno: d.docno, rank: r + 1, score: d.score }))]]),
  }));
  const fused = fuseRuns(runs, { method: 'rrf', k, depth }).topics.get('q') ?? [];
  return fused.map((e) => ({ docno: e.docno, score: e.score }));
}
