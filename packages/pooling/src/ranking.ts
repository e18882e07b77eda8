import { compareBytewise, rankEntries as trecRank } from '@assay/trec';
import type { RunEntry } from './types.js';

/** Compares two docnos as C `strcmp` compares their UTF-8 bytes (assay's trec ordering). */
export const compareDocno = compareBytewise;

/**
 * Returns a topic's entries in trec_eval rank order (a new array; the rank column is ignored).
 * Throws when a docno occurs twice, as trec_eval refuses such a run.
 */
export function rankEntries(entries: readonly RunEntry[], context = 'run topic'): RunEntry[] {
  // trec_eval 10.0 order (score as a double, descending; ties by docno descending).
  const ranked = trecRank(entries);
  const seen = new Set<string>();
  for (const entry of ranked) {
    if (seen.has(entry.docno)) {
      throw new Error(`${context}: document ${JSON.stringify(entry.docno)} is retrieved twice`);
    }
    seen.add(entry.docno);
  }
  return ranked;
}
