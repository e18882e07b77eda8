// Ranking a topic held as columns (RunColumns from @assay/trec) without a string or object
// per document: the qrels docnos are indexed by a hash of their UTF-8 bytes, looked up with
// the run's docno bytes, and the ranking is an index permutation. Results equal rankTopic's.
import { docnoStart, hashDocno, type TopicColumns } from '@assay/trec';
import { REL_NONPOOL, REL_UNJUDGED, type RankingOptions, type TopicJudgments } from './ranking.js';

/** A topic's judged docnos as UTF-8 bytes in an open-addressing hash table. */
export interface JudgmentIndex {
  bytes: Uint8Array;
  ends: Uint32Array;
  hashes: Int32Array;
  grades: Float64Array;
  /** Slot → judgment index + 1 (0 = empty); the size is a power of two. */
  table: Int32Array;
}

const encoder = new TextEncoder();

/** Builds the byte index of one topic's judgments (cached on the judgments by callers). */
export function indexJudgments(judgments: TopicJudgments): JudgmentIndex {
  const n = judgments.grades.size;
  let bytes = new Uint8Array(Math.max(16, n * 12));
  const ends = new Uint32Array(n);
  const hashes = new Int32Array(n);
  const grades = new Float64Array(n);
  let size = 16;
  while (size < n * 2) size *= 2;
  const table = new Int32Array(size);
  const mask = size - 1;
  let used = 0;
  let k = 0;
  for (const [docno, grade] of judgments.grades) {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 code unit.
    if (used + docno.length * 3 > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, used + docno.length * 3));
      grown.set(bytes.subarray(0, used));
      bytes = grown;
    }
    const start = used;
    // Docnos are nearly always ASCII: copy char codes, and let the encoder do the rest.
    let ascii = true;
    for (let c = 0; c < docno.length; c++) {
      const code = docno.charCodeAt(c);
      if (code >= 128) {
        ascii = false;
        break;
      }
      bytes[used + c] = code;
    }
    if (ascii) used += docno.length;
    else used += encoder.encodeInto(docno, bytes.subarray(used)).written;
    const h = hashDocno(bytes, start, used);
    ends[k] = used;
    hashes[k] = h;
    grades[k] = grade;
    let slot = h & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = k + 1;
    k++;
  }
  return { bytes, ends, hashes, grades, table };
}

/** Byte indexes of qrels topics, built the first time a run held as columns needs one. */
const judgmentIndexes = new WeakMap<TopicJudgments, JudgmentIndex>();

/** Caches an index built elsewhere (from qrels already held as bytes). */
export function rememberJudgmentIndex(judgments: TopicJudgments, index: JudgmentIndex): void {
  judgmentIndexes.set(judgments, index);
}

/** The byte index of a topic's judgments (built once, then cached). */
export function judgmentIndexOf(judgments: TopicJudgments): JudgmentIndex {
  let index = judgmentIndexes.get(judgments);
  if (!index) judgmentIndexes.set(judgments, (index = indexJudgments(judgments)));
  return index;
}

/** The grade of entry i of `topic`, or undefined when the qrels do not list it. */
function gradeOf(
  index: JudgmentIndex,
  doc: Uint8Array,
  start: number,
  end: number,
): number | undefined {
  const { table, hashes, ends, bytes } = index;
  const mask = table.length - 1;
  const length = end - start;
  const h = hashDocno(doc, start, end);
  for (let slot = h & mask; ; slot = (slot + 1) & mask) {
    const k = table[slot]! - 1;
    if (k < 0) return undefined;
    if (hashes[k] !== h) continue;
    const jStart = k === 0 ? 0 : ends[k - 1]!;
    if (ends[k]! - jStart !== length) continue;
    let m = 0;
    while (m < length && bytes[jStart + m] === doc[start + m]) m++;
    if (m === length) return index.grades[k];
  }
}

/** Compares entries a and b in trec_eval's order: score descending, then docno bytes descending. */
function compareEntries(topic: TopicColumns, a: number, b: number): number {
  const d = topic.scores[b]! - topic.scores[a]!;
  if (d !== 0) return d;
  const bytes = topic.docBytes;
  const aStart = docnoStart(topic, a);
  const bStart = docnoStart(topic, b);
  const aLen = topic.docEnds[a]! - aStart;
  const bLen = topic.docEnds[b]! - bStart;
  const n = Math.min(aLen, bLen);
  for (let k = 0; k < n; k++) {
    const diff = bytes[bStart + k]! - bytes[aStart + k]!;
    if (diff !== 0) return diff;
  }
  return bLen - aLen;
}

/** Entry indexes in trec_eval's ranking order (runs are usually in that order already). */
export function trecOrderOfColumns(topic: TopicColumns): Uint32Array {
  const n = topic.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const scores = topic.scores;
  let descending = true;
  for (let i = 1; i < n && descending; i++) descending = scores[i - 1]! >= scores[i]!;
  if (!descending) {
    order.sort((a, b) => compareEntries(topic, a, b));
    return order;
  }
  // Scores already descend: only runs of tied scores need ordering, by docno descending.
  for (let i = 1; i < n; i++) {
    if (scores[i] !== scores[i - 1]) continue;
    // Insertion sort of the tie group ending at i (groups are short).
    const x = order[i]!;
    let j = i - 1;
    while (j >= 0 && scores[order[j]!] === scores[x] && compareEntries(topic, order[j]!, x) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = x;
  }
  return order;
}

/**
 * Relevance values of the ranked documents (grade, REL_NONPOOL or REL_UNJUDGED), with
 * `-M` and `-J` applied; they do not depend on the relevance level.
 */
export function columnRelevances(
  topic: TopicColumns,
  index: JudgmentIndex,
  options: Omit<RankingOptions, 'relevanceLevel'>,
): Float64Array {
  const order = trecOrderOfColumns(topic);
  const n = Math.min(order.length, Math.max(0, options.maxDocs));
  const rels = new Float64Array(n);
  let kept = 0;
  const { docEnds, docBytes } = topic;
  for (let r = 0; r < n; r++) {
    const e = order[r]!;
    const g = gradeOf(index, docBytes, e === 0 ? 0 : docEnds[e - 1]!, docEnds[e]!);
    const rel = g === undefined ? REL_NONPOOL : g < 0 ? REL_UNJUDGED : g;
    if (options.judgedOnly && rel < 0) continue;
    rels[kept++] = rel;
  }
  return kept === n ? rels : rels.slice(0, kept);
}
