/**
 * The math of trec_eval 10.0's measures, one pure function per measure, each taking a
 * ranked topic (see ranking.ts) and the measure's parameters. Edge cases (no relevant
 * documents, fewer documents than a cutoff, unjudged documents) follow trec_eval.
 */
import { buildGains, gainBounds, gainOf, idealGainCursor, type GainOverrides } from './gains.js';
import { REL_NONPOOL, REL_UNJUDGED, type RankedTopic } from './ranking.js';

/** log2(i + 2), the DCG discount of 0-based rank i, from a table grown on demand. */
let RANK_LOG2 = new Float64Array(0);
function rankLog2(i: number): number {
  if (i >= RANK_LOG2.length) {
    const table = new Float64Array(Math.max(1024, 2 * (i + 1)));
    for (let k = 0; k < table.length; k++) table[k] = Math.log2(k + 2);
    RANK_LOG2 = table;
  }
  return RANK_LOG2[i]!;
}

const INFAP_EPSILON = 0.00001;

function isRel(t: RankedTopic, rel: number): boolean {
  return rel >= t.relevanceLevel;
}

/** Average precision (trec_eval `map`). */
export function averagePrecision(t: RankedTopic): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < t.numRet; i++) {
    if (isRel(t, t.rels[i]!)) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return t.numRel ? sum / t.numRel : 0;
}

/** Precision after R documents, R = number of relevant documents (`Rprec`). */
export function rPrecision(t: RankedTopic): number {
  let relSoFar = 0;
  for (let i = 0; i < t.numRet && i < t.numRel; i++) if (isRel(t, t.rels[i]!)) relSoFar++;
  return t.numRel ? relSoFar / t.numRel : 0;
}

/** Reciprocal rank of the first relevant document (`recip_rank`); `depth` limits the search. */
export function reciprocalRank(t: RankedTopic, depth = Infinity): number {
  const n = Math.min(t.numRet, depth);
  for (let i = 0; i < n; i++) if (isRel(t, t.rels[i]!)) return 1 / (i + 1);
  return 0;
}

/** Binary preference (`bpref`, Buckley & Voorhees 2004) as trec_eval computes it. */
export function bpref(t: RankedTopic): number {
  let numNonrel = 0;
  for (const { grade, count } of t.levels) if (grade < t.relevanceLevel) numNonrel += count;
  let nonrelSoFar = 0;
  let sum = 0;
  for (let i = 0; i < t.numRet; i++) {
    const rel = t.rels[i]!;
    if (rel === REL_NONPOOL || rel === REL_UNJUDGED) continue;
    if (rel >= 0 && rel < t.relevanceLevel) nonrelSoFar++;
    else if (nonrelSoFar > 0) {
      sum += 1 - Math.min(nonrelSoFar, t.numRel) / Math.min(numNonrel, t.numRel);
    } else sum += 1;
  }
  return t.numRel ? sum / t.numRel : 0;
}

/** Inferred AP (`infAP`, Yilmaz & Aslam 2006): pooled-but-unjudged documents are sampled. */
export function inferredAP(t: RankedTopic): number {
  let nonrelSoFar = 0;
  let relSoFar = 0;
  let unjudgedSoFar = 0;
  let sum = 0;
  for (let j = 0; j < t.numRet; j++) {
    const rel = t.rels[j]!;
    if (rel === REL_NONPOOL) continue;
    if (rel === REL_UNJUDGED) {
      unjudgedSoFar++;
      continue;
    }
    if (rel >= 0 && rel < t.relevanceLevel) nonrelSoFar++;
    else {
      relSoFar++;
      if (j === 0) sum += 1;
      else {
        sum +=
          1 / (j + 1) +
          (j / (j + 1)) *
            ((relSoFar - 1 + nonrelSoFar + unjudgedSoFar) / j) *
            ((relSoFar - 1 + INFAP_EPSILON) / (relSoFar - 1 + nonrelSoFar + 2 * INFAP_EPSILON));
      }
    }
  }
  return t.numRel ? sum / t.numRel : 0;
}

/**
 * Evaluates a per-cutoff quantity the way trec_eval's cutoff measures do: `atCut(k,
 * relSoFar)` is called for every cutoff k with the number of relevant documents in the
 * top k (cutoffs past the end of the ranking see the final count).
 */
function atCutoffs(
  t: RankedTopic,
  cutoffs: readonly number[],
  atCut: (cutoff: number, relSoFar: number) => number,
): number[] {
  const values = new Array<number>(cutoffs.length).fill(0);
  let ci = 0;
  let relSoFar = 0;
  for (let i = 0; i < t.numRet && ci < cutoffs.length; i++) {
    if (i === cutoffs[ci]) {
      values[ci] = atCut(i, relSoFar);
      ci++;
      if (ci === cutoffs.length) break;
    }
    if (isRel(t, t.rels[i]!)) relSoFar++;
  }
  for (; ci < cutoffs.length; ci++) values[ci] = atCut(cutoffs[ci]!, relSoFar);
  return values;
}

/** Precision at each cutoff (`P`); missing ranks count as non-relevant. */
export function precisionAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  return atCutoffs(t, cutoffs, (k, rel) => rel / k);
}

/** Recall at each cutoff (`recall`); 0 for a topic without relevant documents. */
export function recallAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  if (t.numRel === 0) return cutoffs.map(() => 0);
  return atCutoffs(t, cutoffs, (_k, rel) => rel / t.numRel);
}

/** Precision relative to the best possible at each cutoff (`relative_P`). */
export function relativePrecisionAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  if (t.numRel === 0) return cutoffs.map(() => 0);
  return atCutoffs(t, cutoffs, (k, rel) => rel / (k > t.numRel ? t.numRel : k));
}

/** 1 if a relevant document is in the top k, per cutoff (`success`). */
export function successAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  return atCutoffs(t, cutoffs, (_k, rel) => (rel ? 1 : 0));
}

/** Average precision truncated at each cutoff (`map_cut`). */
export function averagePrecisionAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  const values = new Array<number>(cutoffs.length).fill(0);
  if (t.numRel === 0) return values;
  let ci = 0;
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < t.numRet; i++) {
    if (i === cutoffs[ci]) {
      values[ci] = sum / t.numRel;
      if (++ci === cutoffs.length) break;
    }
    if (isRel(t, t.rels[i]!)) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  for (; ci < cutoffs.length; ci++) values[ci] = sum / t.numRel;
  return values;
}

/** Fraction of the top k that is not judged (`unj`): not in the qrels or negatively graded. */
export function unjudgedAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  const values = new Array<number>(cutoffs.length).fill(0);
  let ci = 0;
  let unj = 0;
  for (let i = 0; i < t.numRet; i++) {
    if (i === cutoffs[ci]) {
      values[ci] = unj / i;
      if (++ci === cutoffs.length) break;
    }
    if (t.rels[i]! < 0) unj++;
  }
  for (; ci < cutoffs.length; ci++) values[ci] = unj / cutoffs[ci]!;
  return values;
}

/**
 * Judged@k: 1 − unj_k, the share of the top k that is not an unjudged document. Ranks
 * past the end of a short ranking count as judged, as in trec_eval's `unj`.
 */
export function judgedAt(t: RankedTopic, k: number): number {
  return 1 - unjudgedAt(t, [k])[0]!;
}

/**
 * Interpolated precision at recall levels (`iprec_at_recall`); levels must be ascending.
 * Recall levels map to relevant-document counts with round-half-away-from-zero.
 */
export function interpolatedPrecisionAt(t: RankedTopic, recallLevels: readonly number[]): number[] {
  const values = new Array<number>(recallLevels.length).fill(0);
  interpolatedWalk(t, recallLevels, (ci, p) => {
    values[ci] = p;
  });
  return values;
}

/** 11-point (or any-point) interpolated average precision (`11pt_avg`), levels as given. */
export function interpolatedAverage(t: RankedTopic, recallLevels: readonly number[]): number {
  let sum = 0;
  interpolatedWalk(t, recallLevels, (_ci, p) => {
    sum += p;
  });
  return sum / recallLevels.length;
}

function interpolatedWalk(
  t: RankedTopic,
  recallLevels: readonly number[],
  emit: (index: number, precision: number) => void,
): void {
  // A typed array: its kind never changes with the values (an array's did, once per topic
  // with other values, and that sent the compiled code back).
  const cutoffs = new Float64Array(recallLevels.length);
  for (let k = 0; k < cutoffs.length; k++) cutoffs[k] = roundHalfAway(recallLevels[k]! * t.numRel);
  let ci = cutoffs.length - 1;
  while (ci >= 0 && cutoffs[ci]! > t.numRelRet) ci--;
  let intPrecision = t.numRelRet / t.numRet;
  let relSoFar = t.numRelRet;
  for (let i = t.numRet; i > 0 && relSoFar > 0; i--) {
    const precision = relSoFar / i;
    if (intPrecision < precision) intPrecision = precision;
    if (isRel(t, t.rels[i - 1]!)) {
      while (ci >= 0 && relSoFar === cutoffs[ci]) emit(ci--, intPrecision);
      relSoFar--;
    }
  }
  while (ci >= 0) emit(ci--, intPrecision);
}

function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** Precision at multiples of R (`Rprec_mult`); multiples must be ascending. */
export function rPrecisionMultiples(t: RankedTopic, multiples: readonly number[]): number[] {
  const values = new Array<number>(multiples.length).fill(0);
  // trec_eval truncates mult * R + 0.9 to an integer here.
  const cutoffs = new Float64Array(multiples.length);
  for (let k = 0; k < cutoffs.length; k++) cutoffs[k] = Math.trunc(multiples[k]! * t.numRel + 0.9);
  let ci = cutoffs.length - 1;
  while (ci >= 0 && cutoffs[ci]! > t.numRet) {
    values[ci] = t.numRelRet / cutoffs[ci]!;
    ci--;
  }
  let relSoFar = t.numRelRet;
  for (let i = t.numRet; i > 0 && relSoFar > 0; i--) {
    const precision = relSoFar / i;
    while (ci >= 0 && i === cutoffs[ci]) values[ci--] = precision;
    if (isRel(t, t.rels[i - 1]!)) relSoFar--;
  }
  return values;
}

/** Linear set utility (`utility`): a·relret + b·nonrelret + c·relmissed + d·nonrelmissed. */
export function utility(
  t: RankedTopic,
  coefficients: readonly number[],
  numDocsInCollection: number,
): number {
  const [a = 0, b = 0, c = 0, d = 0] = coefficients;
  return (
    a * t.numRelRet +
    b * (t.numRet - t.numRelRet) +
    c * (t.numRel - t.numRelRet) +
    d * (numDocsInCollection + t.numRelRet - t.numRet - t.numRel)
  );
}

/** Binary G (`binG`): mean over relevant documents of 1 / log2(2 + non-relevant before it). */
export function binaryG(t: RankedTopic): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < t.numRet; i++) {
    if (isRel(t, t.rels[i]!)) {
      relSoFar++;
      sum += 1 / Math.log2(3 + i - relSoFar);
    }
  }
  return relSoFar ? sum / t.numRel : 0;
}

/** Normalised gain G (`G`), trec_eval's experimental mix of AP and nDCG. */
export function gMeasure(t: RankedTopic, overrides: GainOverrides): number {
  const gains = buildGains(t, overrides);
  const ideal = idealGainCursor(gains);
  let resultsG = 0;
  let sumResults = 0;
  let sumIdeal = 0;
  let sumCost = 0;
  const minCost = 1;
  let i = 0;
  for (; i < t.numRet && ideal.current() > 0; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    sumResults += gain;
    const idealGain = ideal.next();
    if (idealGain > 0) sumIdeal += idealGain;
    sumCost += idealGain >= minCost ? idealGain : minCost;
    if (gain !== 0) resultsG += gain / Math.log2(2 + sumCost - sumResults);
  }
  for (; i < t.numRet; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    sumResults += gain;
    sumCost += minCost;
    if (gain !== 0) resultsG += gain / Math.log2(2 + sumCost - sumResults);
  }
  while (ideal.current() > 0) {
    const idealGain = ideal.next();
    if (idealGain > 0) sumIdeal += idealGain;
  }
  return sumIdeal > 0 ? resultsG / sumIdeal : 0;
}

/** DCG and ideal DCG over the whole ranking (`ndcg`, `dcg`, `ideal_dcg`). */
export function dcgPair(
  t: RankedTopic,
  overrides: GainOverrides,
): { dcg: number; idealDcg: number } {
  const gains = buildGains(t, overrides);
  const ideal = idealGainCursor(gains);
  let dcg = 0;
  let idealDcg = 0;
  let i = 0;
  for (; i < t.numRet && ideal.current() > 0; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    if (gain !== 0) dcg += gain / rankLog2(i);
    const idealGain = ideal.next();
    if (idealGain > 0) idealDcg += idealGain / rankLog2(i);
  }
  for (; i < t.numRet; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    if (gain !== 0) dcg += gain / rankLog2(i);
  }
  while (ideal.current() > 0) {
    const idealGain = ideal.next();
    if (idealGain > 0) idealDcg += idealGain / rankLog2(i);
    i++;
  }
  return { dcg, idealDcg };
}

/** nDCG over the whole ranking (`ndcg`, Järvelin & Kekäläinen 2002); gains default to grades. */
export function ndcg(t: RankedTopic, overrides: GainOverrides): number {
  const { dcg, idealDcg } = dcgPair(t, overrides);
  return idealDcg > 0 ? dcg / idealDcg : 0;
}

/** nDCG averaged over the relevant documents' positions (`ndcg_rel`). */
export function ndcgRel(t: RankedTopic, overrides: GainOverrides): number {
  const gains = buildGains(t, overrides);
  const ideal = idealGainCursor(gains);
  let dcg = 0;
  let idealDcg = 0;
  let sum = 0;
  let numRelRet = 0;
  let numRel = 0;
  let i = 0;
  for (; i < t.numRet && ideal.current() > 0; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    if (gain !== 0) dcg += gain / rankLog2(i);
    const idealGain = ideal.next();
    if (idealGain > 0) {
      numRel++;
      idealDcg += idealGain / rankLog2(i);
    }
    if (gain > 0) {
      sum += dcg / idealDcg;
      numRelRet++;
    }
  }
  for (; i < t.numRet; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    if (gain !== 0) dcg += gain / rankLog2(i);
    if (gain > 0) {
      sum += dcg / idealDcg;
      numRelRet++;
    }
  }
  while (ideal.current() > 0) {
    const idealGain = ideal.next();
    if (idealGain > 0) {
      numRel++;
      idealDcg += idealGain / rankLog2(i);
    }
    i++;
  }
  sum += ((numRel - numRelRet) * dcg) / idealDcg;
  return sum > 0 ? sum / numRel : 0;
}

/** nDCG averaged at the R-level boundaries of the ideal ranking (`Rndcg`). */
export function rNdcg(t: RankedTopic, overrides: GainOverrides): number {
  const gains = buildGains(t, overrides);
  if (t.numRel === 0) return 0;
  const ideal = idealGainCursor(gains);
  let dcg = 0;
  let idealDcg = 0;
  let sum = 0;
  let changes = 0;
  let oldIdealGain = ideal.current();
  let i = 0;
  for (; i < t.numRet && ideal.current() > 0; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    const idealGain = ideal.next();
    if (oldIdealGain !== idealGain) {
      if (idealDcg > 0) {
        sum += dcg / idealDcg;
        changes++;
      }
      oldIdealGain = idealGain;
    }
    if (gain !== 0) dcg += gain / rankLog2(i);
    if (idealGain > 0) idealDcg += idealGain / rankLog2(i);
  }
  if (i < t.numRet) {
    for (; i < t.numRet; i++) {
      const gain = gainOf(t.rels[i]!, gains);
      if (gain !== 0) dcg += gain / rankLog2(i);
    }
    if (idealDcg > 0) {
      sum += dcg / idealDcg;
      changes++;
    }
  }
  while (ideal.current() > 0) {
    const idealGain = ideal.next();
    if (oldIdealGain !== idealGain) {
      if (idealDcg > 0) {
        sum += dcg / idealDcg;
        changes++;
      }
      oldIdealGain = idealGain;
    }
    if (idealGain > 0) idealDcg += idealGain / rankLog2(i);
    i++;
  }
  return sum / changes;
}

/** nDCG at each cutoff (`ndcg_cut`); gains are the grades themselves. */
export function ndcgAt(t: RankedTopic, cutoffs: readonly number[]): number[] {
  const values = new Array<number>(cutoffs.length).fill(0);
  let ci = 0;
  let sum = 0;
  for (let i = 0; i < t.numRet; i++) {
    if (i === cutoffs[ci]) {
      values[ci] = sum;
      if (++ci === cutoffs.length) break;
    }
    const gain = t.rels[i]!;
    if (gain > 0) sum += gain / rankLog2(i);
  }
  for (; ci < cutoffs.length; ci++) values[ci] = sum;
  // Ideal DCG, normalising each cutoff's DCG as the ideal ranking passes it.
  // The ideal ranking: every judged document of grade ≥ 1, highest grade first (the gain
  // is the grade); the levels hold only the grades that occur, highest last.
  ci = 0;
  const levels = t.levels;
  let k = levels.length - 1;
  let atLevel = 0;
  let idealDcg = 0;
  for (let i = 0; ; i++) {
    atLevel++;
    while (k >= 0 && atLevel > levels[k]!.count) {
      k--;
      atLevel = 1;
    }
    if (k < 0 || levels[k]!.grade <= 0) break;
    if (i === cutoffs[ci]) {
      if (idealDcg > 0) values[ci] = values[ci]! / idealDcg;
      if (++ci === cutoffs.length) break;
    }
    idealDcg += levels[k]!.grade / rankLog2(i);
  }
  for (; ci < cutoffs.length; ci++) if (idealDcg > 0) values[ci] = values[ci]! / idealDcg;
  return values;
}

/** Rank-biased precision (`rbp`, Moffat & Zobel 2008) with persistence p; graded gains scaled to [0, 1]. */
export function rankBiasedPrecision(t: RankedTopic, overrides: GainOverrides): number {
  let p = 0.9;
  for (const pair of overrides) if (pair.name === 'p') p = pair.value;
  const gains = buildGains(t, overrides);
  const { min, max } = gainBounds(t, overrides);
  if (min < 0 || max > 1) for (const g of gains) g.gain = (g.gain - min) / (max - min);
  let sum = 0;
  let weight = 1;
  for (let i = 0; i < t.numRet; i++) {
    const gain = gainOf(t.rels[i]!, gains);
    if (gain !== 0) sum += gain * weight;
    weight *= p;
  }
  return (1 - p) * sum;
}

/** RBP residual (`rbp_resid`): the weight RBP could still gain from unjudged documents (p = 0.9). */
export function rankBiasedResidual(t: RankedTopic): number {
  const p = 0.9;
  let unjudged = 0;
  let sum = 0;
  let weight = 1;
  for (let i = 0; i < t.numRet; i++) {
    if (t.rels[i]! < 0) {
      unjudged++;
      sum += weight;
    }
    weight *= p;
  }
  return unjudged ? weight + (1 - p) * sum : 0;
}

/** Number of retrieved documents judged non-relevant (`num_nonrel_judged_ret`). */
export function nonRelevantJudgedRetrieved(t: RankedTopic): number {
  let n = 0;
  for (let i = 0; i < t.numRet; i++) {
    const rel = t.rels[i]!;
    if (rel >= 0 && rel < t.relevanceLevel) n++;
  }
  return n;
}

/** Set precision (`set_P`). */
export function setPrecision(t: RankedTopic): number {
  return t.numRet ? t.numRelRet / t.numRet : 0;
}

/** Set recall (`set_recall`). */
export function setRecall(t: RankedTopic): number {
  return t.numRel ? t.numRelRet / t.numRel : 0;
}

/** Set precision relative to the best possible for the set's size (`set_relative_P`). */
export function setRelativePrecision(t: RankedTopic): number {
  return t.numRet && t.numRel ? t.numRelRet / Math.min(t.numRet, t.numRel) : 0;
}

/** Set MAP: recall × precision of the retrieved set (`set_map`). */
export function setAveragePrecision(t: RankedTopic): number {
  return t.numRet && t.numRel ? (t.numRelRet * t.numRelRet) / (t.numRet * t.numRel) : 0;
}

/** Weighted F of set precision and recall (`set_F`), beta² = x (default 1). */
export function setF(t: RankedTopic, x: number): number {
  if (!t.numRelRet) return 0;
  const p = t.numRelRet / t.numRet;
  const r = t.numRelRet / t.numRel;
  return ((x + 1) * p * r) / (x * p + r);
}

/** The first n relevance values as trec_eval's `relstring` characters. */
export function relString(t: RankedTopic, length: number): string {
  const n = Math.max(0, Math.min(Math.trunc(length), t.numRet));
  let out = '';
  for (let i = 0; i < n; i++) {
    const rel = t.rels[i]!;
    if (rel > 9) out += '>';
    else if (rel >= 0) out += String.fromCharCode(48 + rel);
    else if (rel === REL_NONPOOL) out += '-';
    else if (rel === REL_UNJUDGED) out += '.';
    else out += '<';
  }
  return out;
}
