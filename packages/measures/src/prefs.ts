/**
 * Preference evaluation (trec_eval's `-R prefs` and `-R qrels_prefs`): a topic's judgments
 * say which documents are preferred to which, and the measures count how many of those
 * preferences a ranking fulfils.
 *
 * Judgment lines are grouped into judgment groups (JGs, one consistent set of preferences,
 * say one user's) and, within a group, sub-groups (JSGs): a document is preferred to every
 * document of the same sub-group with a lower level. Level 0 means non-relevant. A group
 * with one sub-group is kept as equivalence classes (documents per level); a group with
 * several is kept as a preference matrix closed under transitivity.
 *
 * Documents are numbered as trec_eval numbers them: the judged documents the run retrieved
 * get 0, 1, … in rank order (num_judged_ret of them; score ties broken by docno ascending,
 * the opposite of qrels evaluation), the other judged documents follow in
 * docno byte order. A preference A > B is then fulfilled when A's number is smaller than
 * B's; it is "retrieved" when both were retrieved, "implied" when only one was, and
 * "not occurring" when neither was.
 */
import { compareBytewise, type PrefJudgment, type Prefs, type RunEntry } from '@assay/trec';

/** Preference judgments prepared once and shared by every run evaluated against them. */
export interface PreparedPreferences {
  format: 'prefs';
  /** Topic ids in byte order, as trec_eval visits them. */
  topics: string[];
  /** Per topic, the judgment lines sorted by docno (byte order). */
  judgments: Map<string, PrefJudgment[]>;
}

/** Preferences that cannot be evaluated: contradictory within one judgment group. */
export class PreferenceConflictError extends Error {
  constructor(
    readonly qid: string,
    readonly reason: string,
  ) {
    super(`topic ${qid}: ${reason}`);
    this.name = 'PreferenceConflictError';
  }
}

/** Prepares preference judgments: sorted topics, each topic's lines sorted by docno. */
export function preparePreferences(prefs: Prefs): PreparedPreferences {
  const topics = [...prefs.keys()].sort(compareBytewise);
  const judgments = new Map<string, PrefJudgment[]>();
  for (const qid of topics) {
    judgments.set(
      qid,
      prefs
        .get(qid)!
        .slice()
        .sort((a, b) => compareBytewise(a.docno, b.docno)),
    );
  }
  return { format: 'prefs', topics, judgments };
}

/** Documents of one level in a single-sub-group judgment group, numbers ascending. */
export interface EquivalenceClass {
  rel: number;
  /** Document numbers (see the module comment), ascending. */
  ranks: Int32Array;
}

/** The transitively closed preference relation of a judgment group with several sub-groups. */
export interface PreferenceMatrix {
  /** Row i, bit j (Uint32 words, `words` per row) set when document i is preferred to j. */
  bits: Uint32Array;
  words: number;
  /** Level of each document in this group: -1 when the group does not judge it. */
  rel: Float64Array;
}

/** Preference counts of one judgment group. "possible" counts include the fulfilled ones. */
export interface PreferenceGroup {
  fulfilledRet: number;
  possibleRet: number;
  fulfilledImp: number;
  possibleImp: number;
  possibleNotOccur: number;
  /** Documents with level > 0 (in a matrix group) or in a class with level > 0. */
  numRel: number;
  numRelRet: number;
  /** Documents with level 0 (in a matrix group) or in a class with level ≤ 0. */
  numNonrel: number;
  numNonrelRet: number;
  /** Equivalence classes by level descending (single sub-group); empty for a matrix group. */
  classes: EquivalenceClass[];
  /** The preference matrix (several sub-groups). */
  matrix?: PreferenceMatrix;
}

/** Everything the preference measures read for one topic of one run. */
export interface PreferenceCounts {
  /** Number of distinct judged documents. */
  numJudged: number;
  /** Number of judged documents the run retrieved (within the -M depth). */
  numJudgedRet: number;
  /** Judgment groups in byte order of their id. */
  groups: PreferenceGroup[];
  /**
   * `c[i * numJudged + j]` = number of groups preferring document i to j, as trec_eval's
   * 16-bit counts (computed on first use: it takes numJudged² memory).
   */
  pairCounts(): Uint16Array;
}

interface Ranked {
  jg: string;
  jsg: string;
  rel: number;
  rank: number;
  docno: string;
}

/**
 * Counts the preferences of one topic that a ranking fulfils, exactly as trec_eval 10.0's
 * form_prefs_counts, from the topic's entries and judgment lines (in any order).
 * Throws PreferenceConflictError for a document at two levels of a single-sub-group group,
 * a document both non-relevant and relevant within a group, or contradictory preferences.
 */
export function formPreferenceCounts(
  qid: string,
  entries: readonly RunEntry[],
  judgments: readonly PrefJudgment[],
  maxDocs = Number.MAX_SAFE_INTEGER,
): PreferenceCounts {
  // Number the judged documents: retrieved ones in rank order, then the rest by docno.
  const docid = new Map<string, number>();
  for (const j of judgments) docid.set(j.docno, -1);
  // Unlike qrels evaluation, trec_eval breaks score ties here by docno *ascending*.
  let ordered = entries
    .slice()
    .sort((x, y) => y.score - x.score || compareBytewise(x.docno, y.docno));
  if (ordered.length > maxDocs) ordered = ordered.slice(0, Math.max(0, maxDocs));
  const docnos: string[] = [];
  for (const e of ordered) {
    if (docid.get(e.docno) === -1) {
      docid.set(e.docno, docnos.length);
      docnos.push(e.docno);
    }
  }
  const numJudgedRet = docnos.length;
  const unretrieved: string[] = [];
  for (const [docno, id] of docid) if (id === -1) unretrieved.push(docno);
  unretrieved.sort(compareBytewise);
  for (const docno of unretrieved) {
    docid.set(docno, docnos.length);
    docnos.push(docno);
  }
  const numJudged = docnos.length;

  const items: Ranked[] = judgments.map((j) => ({
    jg: j.jg,
    jsg: j.jsg,
    rel: j.rel,
    rank: docid.get(j.docno)!,
    docno: j.docno,
  }));
  items.sort(
    (a, b) =>
      compareBytewise(a.jg, b.jg) ||
      compareBytewise(a.jsg, b.jsg) ||
      (a.rel > b.rel ? -1 : a.rel < b.rel ? 1 : a.rank - b.rank),
  );

  const conflict = (reason: string) => new PreferenceConflictError(qid, reason);
  const groups: PreferenceGroup[] = [];
  for (let start = 0; start < items.length;) {
    let end = start + 1;
    let subGroups = 1;
    while (end < items.length && items[end]!.jg === items[start]!.jg) {
      if (items[end]!.jsg !== items[end - 1]!.jsg) subGroups++;
      end++;
    }
    const slice = items.slice(start, end);
    groups.push(
      subGroups > 1
        ? matrixGroup(slice, numJudged, numJudgedRet, docnos, conflict)
        : classGroup(slice, numJudgedRet, docnos, conflict),
    );
    start = end;
  }

  let counts: Uint16Array | undefined;
  return {
    numJudged,
    numJudgedRet,
    groups,
    pairCounts: () => (counts ??= buildPairCounts(groups, numJudged)),
  };
}

function emptyGroup(): PreferenceGroup {
  return {
    fulfilledRet: 0,
    possibleRet: 0,
    fulfilledImp: 0,
    possibleImp: 0,
    possibleNotOccur: 0,
    numRel: 0,
    numRelRet: 0,
    numNonrel: 0,
    numNonrelRet: 0,
    classes: [],
  };
}

/** Number of values in sorted `a[0..n)` below `bound`. */
function countBelow(a: Int32Array, n: number, bound: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A document number both sorted arrays hold, or -1. */
function commonValue(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else return a[i]!;
  }
  return -1;
}

/** A single-sub-group judgment group: equivalence classes by level, counted pairwise. */
function classGroup(
  items: readonly Ranked[],
  numJudgedRet: number,
  docnos: readonly string[],
  conflict: (reason: string) => Error,
): PreferenceGroup {
  const g = emptyGroup();
  for (let s = 0; s < items.length;) {
    let e = s + 1;
    while (e < items.length && items[e]!.rel === items[s]!.rel) e++;
    g.classes.push({
      rel: items[s]!.rel,
      ranks: Int32Array.from(items.slice(s, e), (x) => x.rank),
    });
    s = e;
  }
  const njr = numJudgedRet;
  for (let c1 = 0; c1 < g.classes.length; c1++) {
    const a = g.classes[c1]!;
    const aRet = countBelow(a.ranks, a.ranks.length, njr);
    if (a.rel > 0) {
      g.numRelRet += aRet;
      g.numRel += a.ranks.length;
    } else {
      g.numNonrelRet += aRet;
      g.numNonrel += a.ranks.length;
    }
    for (let c2 = c1 + 1; c2 < g.classes.length; c2++) {
      const b = g.classes[c2]!;
      const common = commonValue(a.ranks, b.ranks);
      if (common >= 0) {
        throw conflict(
          `document ${docnos[common]} has two relevance levels in judgment group ${items[0]!.jg}`,
        );
      }
      const bRet = countBelow(b.ranks, b.ranks.length, njr);
      // Fulfilled with both retrieved: x < y < njr.
      let fulRet = 0;
      for (let k = 0; k < bRet; k++) fulRet += countBelow(a.ranks, aRet, b.ranks[k]!);
      const aOut = a.ranks.length - aRet;
      const bOut = b.ranks.length - bRet;
      g.fulfilledRet += fulRet;
      g.possibleRet += aRet * bRet; // fulfilled or not, both retrieved
      g.fulfilledImp += aRet * bOut;
      g.possibleImp += aRet * bOut + aOut * bRet;
      g.possibleNotOccur += aOut * bOut;
    }
  }
  return g;
}

/** A judgment group with several sub-groups: a transitively closed preference matrix. */
function matrixGroup(
  items: readonly Ranked[],
  numJudged: number,
  numJudgedRet: number,
  docnos: readonly string[],
  conflict: (reason: string) => Error,
): PreferenceGroup {
  const g = emptyGroup();
  const n = numJudged;
  const words = (n + 31) >>> 5;
  const bits = new Uint32Array(n * words);
  const rel = new Float64Array(n).fill(-1);
  const set = (i: number, j: number) => {
    bits[i * words + (j >>> 5)]! |= 1 << (j & 31);
  };
  const has = (i: number, j: number) => ((bits[i * words + (j >>> 5)]! >>> (j & 31)) & 1) === 1;
  const clear = (i: number, j: number) => {
    bits[i * words + (j >>> 5)]! &= ~(1 << (j & 31));
  };

  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const known = rel[item.rank]!;
    if ((known > 0 && item.rel === 0) || (known === 0 && item.rel > 0)) {
      throw conflict(
        `document ${item.docno} is both relevant and non-relevant in judgment group ${item.jg}`,
      );
    }
    rel[item.rank] = item.rel;
    // Preferred to every later document of the same sub-group with a lower level.
    let j = i + 1;
    while (j < items.length && items[j]!.jsg === item.jsg && items[j]!.rel === item.rel) j++;
    for (; j < items.length && items[j]!.jsg === item.jsg; j++) set(item.rank, items[j]!.rank);
  }

  // Transitive closure (Warshall's algorithm over bit rows), then no self-preferences.
  for (let i = 0; i < n; i++) set(i, i);
  for (let k = 0; k < n; k++) {
    const kRow = k * words;
    for (let i = 0; i < n; i++) {
      if (i === k || !has(i, k)) continue;
      const iRow = i * words;
      for (let w = 0; w < words; w++) bits[iRow + w]! |= bits[kRow + w]!;
    }
  }
  for (let i = 0; i < n; i++) clear(i, i);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i !== j && has(i, j) && has(j, i)) {
        throw conflict(
          `documents ${docnos[i]} and ${docnos[j]} are preferred to each other in judgment group ${items[0]!.jg}`,
        );
      }
    }
  }
  g.matrix = { bits, words, rel };

  const njr = numJudgedRet;
  for (let i = 0; i < n; i++) {
    const r = rel[i]!;
    if (r > 0) {
      g.numRel++;
      if (i < njr) g.numRelRet++;
    } else if (r === 0) {
      g.numNonrel++;
      if (i < njr) g.numNonrelRet++;
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (!has(i, j)) continue;
      if (i < njr) {
        if (j < njr) {
          g.possibleRet++;
          if (i < j) g.fulfilledRet++;
        } else {
          g.fulfilledImp++;
          g.possibleImp++;
        }
      } else if (j < njr) g.possibleImp++;
      else g.possibleNotOccur++;
    }
  }
  return g;
}

function buildPairCounts(groups: readonly PreferenceGroup[], n: number): Uint16Array {
  const c = new Uint16Array(n * n);
  for (const g of groups) {
    if (g.matrix) {
      const { bits, words } = g.matrix;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          if ((bits[i * words + (j >>> 5)]! >>> (j & 31)) & 1) c[i * n + j]!++;
        }
      }
      continue;
    }
    for (let c1 = 0; c1 < g.classes.length; c1++) {
      const a = g.classes[c1]!.ranks;
      for (let c2 = c1 + 1; c2 < g.classes.length; c2++) {
        const b = g.classes[c2]!.ranks;
        for (const x of a) for (const y of b) c[x * n + y]!++;
      }
    }
  }
  return c;
}

// ---------------------------------------------------------------- measures

type Totals = (g: PreferenceGroup) => { ful: number; poss: number };

const ALL: Totals = (g) => ({
  ful: g.fulfilledRet + g.fulfilledImp,
  poss: g.possibleRet + g.possibleImp + g.possibleNotOccur,
});
const RETRIEVED: Totals = (g) => ({ ful: g.fulfilledRet, poss: g.possibleRet });
const IMPLIED: Totals = (g) => ({
  ful: g.fulfilledRet + g.fulfilledImp,
  poss: g.possibleRet + g.possibleImp,
});

/** Which preferences a measure counts: all, both documents retrieved, or at least one. */
export type PreferenceScope = 'all' | 'ret' | 'imp';

const SCOPES: Record<PreferenceScope, Totals> = { all: ALL, ret: RETRIEVED, imp: IMPLIED };

/** Number of preferences, fulfilled or not, whether or not retrieved (`prefs_num_prefs_poss`). */
export function numPrefsPossible(p: PreferenceCounts): number {
  let poss = 0;
  for (const g of p.groups) poss += ALL(g).poss;
  return poss;
}

/** Number of preferences fulfilled, implied ones included (`prefs_num_prefs_ful`). */
export function numPrefsFulfilled(p: PreferenceCounts): number {
  let ful = 0;
  for (const g of p.groups) ful += ALL(g).ful;
  return ful;
}

/** Number of preferences fulfilled among retrieved documents (`prefs_num_prefs_ful_ret`). */
export function numPrefsFulfilledRetrieved(p: PreferenceCounts): number {
  let ful = 0;
  for (const g of p.groups) ful += g.fulfilledRet;
  return ful;
}

/** Fulfilled over possible preferences, all groups pooled (`prefs_simp`, `_ret`, `_imp`). */
export function prefsSimple(p: PreferenceCounts, scope: PreferenceScope = 'all'): number {
  const totals = SCOPES[scope];
  let ful = 0;
  let poss = 0;
  for (const g of p.groups) {
    const t = totals(g);
    ful += t.ful;
    poss += t.poss;
  }
  return poss ? ful / poss : 0;
}

/** Fulfilled over possible preferences per group, averaged over groups (`prefs_avgjg`, …). */
export function prefsAverageOverGroups(
  p: PreferenceCounts,
  scope: PreferenceScope = 'all',
): number {
  const totals = SCOPES[scope];
  let sum = 0;
  for (const g of p.groups) {
    const t = totals(g);
    if (t.poss) sum += t.ful / t.poss;
  }
  return sum > 0 ? sum / p.groups.length : 0;
}

/**
 * Mean over document pairs with any preference of the share of groups preferring the pair
 * the way the ranking orders it (`prefs_pair`, `_ret`, `_imp`). Pairs of two unretrieved
 * documents count (as 0) only in the 'all' scope.
 */
export function prefsPair(p: PreferenceCounts, scope: PreferenceScope = 'all'): number {
  const n = p.numJudged;
  const njr = p.numJudgedRet;
  const c = p.pairCounts();
  let sum = 0;
  let pairs = 0;
  const visit = (i: number, j: number) => {
    const ij = c[i * n + j]!;
    const ji = c[j * n + i]!;
    if (ij || ji) {
      pairs++;
      sum += ij / (ij + ji);
    }
  };
  for (let i = 0; i < njr; i++) for (let j = i + 1; j < njr; j++) visit(i, j);
  if (scope !== 'ret') for (let i = 0; i < njr; i++) for (let j = njr; j < n; j++) visit(i, j);
  if (scope === 'all') {
    for (let i = njr; i < n; i++) {
      for (let j = i + 1; j < n; j++) if (c[i * n + j] || c[j * n + i]) pairs++;
    }
  }
  return pairs ? sum / pairs : 0;
}

/**
 * Like prefsAverageOverGroups, but each group's non-relevant documents are cut or padded
 * to R, its number of relevant documents (`prefs_avgjg_Rnonrel`); with `retrievedOnly`,
 * R and the non-relevant count are those retrieved and only retrieved pairs count
 * (`prefs_avgjg_Rnonrel_ret`). Akin to bpref for one group with levels 1 and 0.
 */
export function prefsAverageRNonrel(p: PreferenceCounts, retrievedOnly = false): number {
  const njr = p.numJudgedRet;
  let sum = 0;
  for (const g of p.groups) {
    const R = retrievedOnly ? g.numRelRet : g.numRel;
    const N = retrievedOnly ? g.numNonrelRet : g.numNonrel;
    let ful: number;
    let poss: number;
    if (R >= N) {
      // Pad with R − N imaginary non-relevant documents ranked below every retrieved one.
      const t = retrievedOnly ? RETRIEVED(g) : ALL(g);
      ful = t.ful + g.numRelRet * (R - N);
      poss = t.poss + g.numRel * (R - N);
    } else if (g.matrix) {
      ({ ful, poss } = recountMatrix(g, p.numJudged, njr, retrievedOnly));
    } else {
      ({ ful, poss } = recountClasses(g, njr, R, retrievedOnly));
    }
    sum += ful / poss;
  }
  return sum > 0 ? sum / p.groups.length : 0;
}

/**
 * Recounts a class group keeping only the first `keep` documents of its last (lowest)
 * class, exactly as trec_eval does (pairs within the lowest class against its kept part
 * included). trec_eval reads past the class when it has fewer than `keep` documents;
 * assay stops at its end.
 */
function recountClasses(
  g: PreferenceGroup,
  njr: number,
  keep: number,
  retrievedOnly: boolean,
): { ful: number; poss: number } {
  const classes = g.classes;
  const last = classes[classes.length - 1]!.ranks;
  const kept = last.subarray(0, Math.min(keep, last.length));
  let ful = 0;
  let poss = 0;
  const count = (a: Int32Array, b: Int32Array) => {
    let aLen = a.length;
    let bLen = b.length;
    if (retrievedOnly) {
      aLen = countBelow(a, aLen, njr);
      bLen = countBelow(b, bLen, njr);
    }
    // Fulfilled: x < y, and (all preferences) x retrieved.
    let f = 0;
    for (let k = 0; k < bLen; k++) {
      const y = b[k]!;
      f += countBelow(a, aLen, retrievedOnly ? y : Math.min(y, njr));
    }
    ful += f;
    poss += aLen * bLen - f;
  };
  for (let c1 = 0; c1 < classes.length; c1++) {
    for (let c2 = c1 + 1; c2 < classes.length - 1; c2++)
      count(classes[c1]!.ranks, classes[c2]!.ranks);
  }
  for (let c1 = 0; c1 < classes.length; c1++) count(classes[c1]!.ranks, kept);
  return { ful, poss: poss + ful };
}

/**
 * Recounts a matrix group ignoring its non-relevant documents after the first numRel of
 * them (in document-number order), as trec_eval does; with `retrievedOnly` only retrieved
 * documents are looked at.
 */
function recountMatrix(
  g: PreferenceGroup,
  n: number,
  njr: number,
  retrievedOnly: boolean,
): { ful: number; poss: number } {
  const { bits, words, rel } = g.matrix!;
  const has = (i: number, j: number) => ((bits[i * words + (j >>> 5)]! >>> (j & 31)) & 1) === 1;
  const limit = retrievedOnly ? njr : n;
  let firstDiscarded = limit;
  let seen = 0;
  for (let i = 0; i < limit; i++) {
    if (rel[i] === 0 && ++seen === g.numRel + 1) {
      firstDiscarded = i;
      break;
    }
  }
  const skip = (i: number) => i >= firstDiscarded && rel[i] === 0;
  let ful = 0;
  let poss = 0;
  for (let i = 0; i < njr; i++) {
    if (skip(i)) continue;
    for (let j = 0; j < limit; j++) {
      if (j === i || skip(j) || !has(i, j)) continue;
      if (j < i) poss++;
      else ful++;
    }
  }
  if (!retrievedOnly) {
    for (let i = njr; i < n; i++) {
      if (skip(i)) continue;
      for (let j = 0; j < n; j++) if (!skip(j) && has(i, j)) poss++;
    }
  }
  return { ful, poss: poss + ful };
}
