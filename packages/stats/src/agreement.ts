import { assertFinite } from './validate.js';

/** A square contingency table between two label sequences. */
export interface ConfusionMatrix {
  /** The label scale; row and column i both stand for labels[i]. */
  labels: number[];
  /** matrix[i][j] = number of items labelled labels[i] in `a` and labels[j] in `b`. */
  matrix: number[][];
}

function assertLabelPairs(fn: string, a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length) {
    throw new RangeError(`${fn}: a has ${a.length} labels but b has ${b.length}`);
  }
  if (a.length === 0) throw new RangeError(`${fn}: no labelled items`);
  assertFinite(fn, 'a', a);
  assertFinite(fn, 'b', b);
}

function sortedUnique(values: Iterable<number>): number[] {
  return [...new Set(values)].sort((p, q) => p - q);
}

/** Maps each label to its position, rejecting duplicates. */
function labelIndex(fn: string, labels: readonly number[]): Map<number, number> {
  assertFinite(fn, 'labels', labels);
  const index = new Map<number, number>();
  labels.forEach((label, i) => {
    if (index.has(label)) throw new RangeError(`${fn}: label ${label} is declared twice`);
    index.set(label, i);
  });
  if (index.size === 0) throw new RangeError(`${fn}: labels is empty`);
  return index;
}

/**
 * Cross-tabulates two raters' labels over the same items: rows follow `a`, columns `b`.
 * Without `labels` the scale is every label seen, ascending; with `labels` it is exactly that
 * list in the given order, and a label outside it is an error (never silently dropped).
 */
export function confusionMatrix(
  a: readonly number[],
  b: readonly number[],
  labels?: readonly number[],
): ConfusionMatrix {
  assertLabelPairs('confusionMatrix', a, b);
  const scale = labels ? [...labels] : sortedUnique([...a, ...b]);
  const index = labelIndex('confusionMatrix', scale);
  const matrix = scale.map(() => scale.map(() => 0));
  for (let k = 0; k < a.length; k++) {
    const i = index.get(a[k]!);
    const j = index.get(b[k]!);
    if (i === undefined || j === undefined) {
      const [which, value] = i === undefined ? ['a', a[k]] : ['b', b[k]];
      throw new RangeError(
        `confusionMatrix: ${which}[${k}] = ${value} is not one of the labels [${scale.join(', ')}]`,
      );
    }
    matrix[i]![j]!++;
  }
  return { labels: scale, matrix };
}

/** Fraction of items on which the two raters gave the same label. */
export function exactAgreement(a: readonly number[], b: readonly number[]): number {
  assertLabelPairs('exactAgreement', a, b);
  let same = 0;
  for (let k = 0; k < a.length; k++) if (a[k] === b[k]) same++;
  return same / a.length;
}

/** Options of {@link cohenKappa}. */
export interface CohenKappaOptions {
  /** Disagreement weights: 'none' (default), 'linear' |i − j| or 'quadratic' (i − j)². */
  weights?: 'none' | 'linear' | 'quadratic';
  /** The label scale; default every label seen. Sorted ascending before use. */
  labels?: readonly number[];
}

/**
 * Cohen's kappa between two raters, optionally weighted, as sklearn's cohen_kappa_score:
 * κ = 1 − Σ wᵢⱼ·Oᵢⱼ / Σ wᵢⱼ·Eᵢⱼ with O the observed table and E the table expected from the
 * marginals. Weights use positions i, j on the ascending label scale, so with
 * `labels: [0, 1, 2, 3]` a grade nobody used still spaces the others out. NaN when the
 * expected disagreement is 0 (both raters used one and the same label throughout).
 *
 * @example
 * cohenKappa(human, llm, { weights: 'linear', labels: [0, 1, 2, 3] });
 */
export function cohenKappa(
  a: readonly number[],
  b: readonly number[],
  options: CohenKappaOptions = {},
): number {
  const weights = checkWeights('cohenKappa', options.weights);
  assertLabelPairs('cohenKappa', a, b);
  return cohenKappaFromTable(tableOf(a, b, options.labels).matrix, weights);
}

/** Disagreement weighting of a graded scale: none, linear |i − j| or quadratic (i − j)². */
export type AgreementWeights = 'none' | 'linear' | 'quadratic';

function checkWeights(fn: string, weights: AgreementWeights | undefined): AgreementWeights {
  const w = weights ?? 'none';
  if (w !== 'none' && w !== 'linear' && w !== 'quadratic') {
    throw new RangeError(`${fn}: unknown weights ${JSON.stringify(w)}`);
  }
  return w;
}

/** The confusion matrix over the declared labels (sorted ascending) or every label seen. */
function tableOf(
  a: readonly number[],
  b: readonly number[],
  labels: readonly number[] | undefined,
): ConfusionMatrix {
  return confusionMatrix(a, b, labels ? [...labels].sort((p, q) => p - q) : undefined);
}

/** Disagreement weight of cells i, j (positions on the scale) out of k. */
function disagreementWeight(weights: AgreementWeights, i: number, j: number): number {
  if (weights === 'none') return i === j ? 0 : 1;
  return weights === 'linear' ? Math.abs(i - j) : (i - j) ** 2;
}

/** Row and column sums of a square table. */
function margins(matrix: readonly (readonly number[])[]): {
  rows: number[];
  cols: number[];
  n: number;
} {
  const rows = matrix.map((row) => row.reduce((s, v) => s + v, 0));
  const cols = matrix.map((_, j) => matrix.reduce((s, row) => s + row[j]!, 0));
  return { rows, cols, n: rows.reduce((s, v) => s + v, 0) };
}

function assertSquare(fn: string, matrix: readonly (readonly number[])[]): void {
  if (matrix.length === 0) throw new RangeError(`${fn}: the table is empty`);
  matrix.forEach((row, i) => {
    if (row.length !== matrix.length)
      throw new RangeError(
        `${fn}: row ${i} has ${row.length} cells, the table ${matrix.length} rows`,
      );
    assertFinite(fn, `matrix[${i}]`, row);
  });
}

/**
 * Cohen's kappa from a confusion matrix (rows one rater, columns the other, cells counts or
 * weights; positions are the ascending scale): what {@link cohenKappa} computes, for
 * callers that sum tables (a bootstrap resampling topics adds their tables). NaN when the
 * table is empty or the expected disagreement is 0.
 */
export function cohenKappaFromTable(
  matrix: readonly (readonly number[])[],
  weights: AgreementWeights = 'none',
): number {
  const w = checkWeights('cohenKappaFromTable', weights);
  assertSquare('cohenKappaFromTable', matrix);
  const { rows, cols, n } = margins(matrix);
  if (n === 0) return Number.NaN;
  const k = matrix.length;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const d = disagreementWeight(w, i, j);
      observed += d * matrix[i]![j]!;
      expected += (d * rows[i]! * cols[j]!) / n;
    }
  }
  return expected === 0 ? Number.NaN : 1 - observed / expected;
}

/** Options of {@link gwetAC}. */
export interface GwetOptions {
  /**
   * 'none' (default) gives Gwet's AC1; 'linear' or 'quadratic' give AC2 with the agreement
   * weights 1 − |i − j|/(q − 1) or 1 − ((i − j)/(q − 1))².
   */
  weights?: AgreementWeights;
  /** The label scale (its size q enters the chance agreement); default every label seen. */
  labels?: readonly number[];
}

/**
 * Gwet's AC1 (unweighted) or AC2 (weighted) agreement coefficient between two raters
 * (Gwet 2008; Handbook of Inter-Rater Reliability, 4th ed., ch. 2–3), which unlike kappa
 * stays high when most items share one label (relevance labels skewed to 0: kappa's
 * paradox). With p_kl the cell proportions, π_k = (row_k + col_k)/(2n), q the number of
 * labels on the scale and w_kl the agreement weights:
 * AC = (p_a − p_e)/(1 − p_e), p_a = Σ w_kl p_kl, p_e = Σ_kl w_kl / (q(q − 1)) · Σ_k π_k(1 − π_k),
 * as the irrCAC package computes it. Declare `labels` so unused grades count in q.
 * NaN when p_e = 1 or there is one label only.
 */
export function gwetAC(
  a: readonly number[],
  b: readonly number[],
  options: GwetOptions = {},
): number {
  const weights = checkWeights('gwetAC', options.weights);
  assertLabelPairs('gwetAC', a, b);
  return gwetACFromTable(tableOf(a, b, options.labels).matrix, weights);
}

/** {@link gwetAC} from a confusion matrix over the whole scale (positions ascending). */
export function gwetACFromTable(
  matrix: readonly (readonly number[])[],
  weights: AgreementWeights = 'none',
): number {
  const w = checkWeights('gwetACFromTable', weights);
  assertSquare('gwetACFromTable', matrix);
  const q = matrix.length;
  const { rows, cols, n } = margins(matrix);
  if (n === 0 || q < 2) return Number.NaN;
  const agreementWeight = (i: number, j: number): number =>
    w === 'none'
      ? i === j
        ? 1
        : 0
      : 1 - disagreementWeight(w, i, j) / disagreementWeight(w, 0, q - 1);
  let pa = 0;
  let weightSum = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      const wij = agreementWeight(i, j);
      pa += (wij * matrix[i]![j]!) / n;
      weightSum += wij;
    }
  }
  let spread = 0;
  for (let k = 0; k < q; k++) {
    const pi = (rows[k]! + cols[k]!) / (2 * n);
    spread += pi * (1 - pi);
  }
  const pe = (weightSum * spread) / (q * (q - 1));
  return pe === 1 ? Number.NaN : (pa - pe) / (1 - pe);
}

/**
 * Prevalence- and bias-adjusted kappa (Byrt, Bishop & Carlin 1993), generalised to q labels:
 * PABAK = (q·p_o − 1)/(q − 1), kappa with chance agreement fixed at 1/q; for two labels
 * 2·p_o − 1. Declare `labels` so q counts unused grades.
 */
export function pabak(
  a: readonly number[],
  b: readonly number[],
  options: { labels?: readonly number[] } = {},
): number {
  assertLabelPairs('pabak', a, b);
  return pabakFromTable(tableOf(a, b, options.labels).matrix);
}

/** {@link pabak} from a confusion matrix over the whole scale; NaN for an empty table. */
export function pabakFromTable(matrix: readonly (readonly number[])[]): number {
  assertSquare('pabakFromTable', matrix);
  const q = matrix.length;
  const { n } = margins(matrix);
  if (n === 0 || q < 2) return Number.NaN;
  let same = 0;
  for (let i = 0; i < q; i++) same += matrix[i]![i]!;
  return (q * (same / n) - 1) / (q - 1);
}

/** Fraction of the table on its diagonal (NaN for an empty table). */
export function exactAgreementFromTable(matrix: readonly (readonly number[])[]): number {
  assertSquare('exactAgreementFromTable', matrix);
  const { n } = margins(matrix);
  let same = 0;
  for (let i = 0; i < matrix.length; i++) same += matrix[i]![i]!;
  return n === 0 ? Number.NaN : same / n;
}

/**
 * Fleiss' kappa of two raters from their confusion matrix (equal to {@link fleissKappa} on
 * the items' two labels, i.e. Scott's pi): (p_o − Σ π_k²)/(1 − Σ π_k²) with
 * π_k = (row_k + col_k)/(2n). NaN when every label is the same or the table is empty.
 */
export function fleissKappaFromTable(matrix: readonly (readonly number[])[]): number {
  assertSquare('fleissKappaFromTable', matrix);
  const { rows, cols, n } = margins(matrix);
  if (n === 0) return Number.NaN;
  return fleissKappaFromSums({
    subjects: n,
    raters: 2,
    agreement: exactAgreementFromTable(matrix) * n,
    categoryTotals: rows.map((r, k) => r + cols[k]!),
  });
}

/**
 * Krippendorff's alpha of two coders who both coded every item, from their confusion matrix
 * over `labels` (the values of the rows and columns, ascending): the coincidence matrix is
 * the table plus its transpose. Equal to {@link krippendorffAlpha} on the two label arrays.
 */
export function krippendorffAlphaFromTable(
  matrix: readonly (readonly number[])[],
  labels: readonly number[],
  level: AlphaLevel,
): number {
  assertSquare('krippendorffAlphaFromTable', matrix);
  if (labels.length !== matrix.length)
    throw new RangeError(
      `krippendorffAlphaFromTable: ${labels.length} labels for a ${matrix.length}-row table`,
    );
  const o = matrix.map((row, i) => row.map((v, j) => v + matrix[j]![i]!));
  return krippendorffAlphaFromCoincidences(o, labels, level);
}

/** Levels of measurement accepted by {@link krippendorffAlpha}. */
export type AlphaLevel = 'nominal' | 'ordinal' | 'interval' | 'ratio';

/**
 * Krippendorff's alpha for any number of coders with missing values. `data` is coders ×
 * units (`data[c][u]` = coder c's value for unit u, null or undefined when missing); units
 * with fewer than two values are not pairable and are dropped. Computed from the coincidence
 * matrix as in Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":
 * α = 1 − (n − 1)·Σ o_ck·δ²_ck / Σ n_c·n_k·δ²_ck, with δ² = [c ≠ k] (nominal),
 * (Σ_{g=c..k} n_g − (n_c + n_k)/2)² over the ordered values (ordinal, using the value
 * frequencies n_g), (c − k)² (interval) or ((c − k)/(c + k))² (ratio). NaN when no unit is
 * pairable or every pairable value is the same (no expected disagreement).
 */
export function krippendorffAlpha(
  data: readonly (readonly (number | null | undefined)[])[],
  level: AlphaLevel,
): number {
  if (!['nominal', 'ordinal', 'interval', 'ratio'].includes(level)) {
    throw new RangeError(`krippendorffAlpha: unknown level ${JSON.stringify(level)}`);
  }
  if (data.length === 0) throw new RangeError('krippendorffAlpha: no coders');
  const units = data[0]!.length;
  data.forEach((row, c) => {
    if (row.length !== units) {
      throw new RangeError(
        `krippendorffAlpha: coder ${c} has ${row.length} units, coder 0 has ${units}`,
      );
    }
    row.forEach((v, u) => {
      if (v !== null && v !== undefined && !Number.isFinite(v)) {
        throw new RangeError(`krippendorffAlpha: data[${c}][${u}] is ${String(v)}`);
      }
      if (level === 'ratio' && typeof v === 'number' && v < 0) {
        throw new RangeError(`krippendorffAlpha: ratio data must be ≥ 0, data[${c}][${u}] = ${v}`);
      }
    });
  });

  // Values of each pairable unit.
  const pairable: number[][] = [];
  for (let u = 0; u < units; u++) {
    const values: number[] = [];
    for (const row of data) {
      const v = row[u];
      if (v !== null && v !== undefined) values.push(v);
    }
    if (values.length >= 2) pairable.push(values);
  }
  if (pairable.length === 0) return Number.NaN;
  const scale = sortedUnique(pairable.flat());
  return krippendorffAlphaFromCoincidences(coincidenceMatrix(pairable, scale), scale, level);
}

/**
 * Krippendorff's coincidence matrix of units over `scale` (ascending values): each unit
 * with m ≥ 2 values adds its ordered value pairs, weighted 1/(m − 1); units with fewer
 * values add nothing. Coincidence matrices of disjoint sets of units add up, so a bootstrap
 * over topics sums the topics' matrices. Every value must be on the scale.
 */
export function coincidenceMatrix(
  units: readonly (readonly number[])[],
  scale: readonly number[],
): number[][] {
  const index = labelIndex('coincidenceMatrix', scale);
  const k = scale.length;
  const o = scale.map(() => new Array<number>(k).fill(0));
  for (const values of units) {
    if (values.length < 2) continue;
    const counts = new Map<number, number>();
    for (const v of values) {
      const c = index.get(v);
      if (c === undefined)
        throw new RangeError(`coincidenceMatrix: value ${v} is not on the scale`);
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    const weight = 1 / (values.length - 1);
    for (const [c, nc] of counts) {
      for (const [kk, nk] of counts) {
        o[c]![kk]! += (c === kk ? nc * (nc - 1) : nc * nk) * weight;
      }
    }
  }
  return o;
}

/**
 * Krippendorff's alpha from a coincidence matrix `o` over `scale` (the ascending values its
 * rows and columns stand for), as {@link krippendorffAlpha} computes it after building the
 * matrix; values nobody used (all-zero rows) change nothing. NaN when the matrix is empty
 * or there is no expected disagreement.
 */
export function krippendorffAlphaFromCoincidences(
  o: readonly (readonly number[])[],
  scale: readonly number[],
  level: AlphaLevel,
): number {
  if (!['nominal', 'ordinal', 'interval', 'ratio'].includes(level)) {
    throw new RangeError(
      `krippendorffAlphaFromCoincidences: unknown level ${JSON.stringify(level)}`,
    );
  }
  const k = scale.length;
  if (o.length !== k || o.some((row) => row.length !== k))
    throw new RangeError(`krippendorffAlphaFromCoincidences: the matrix must be ${k} × ${k}`);
  const nc = o.map((row) => row.reduce((s, v) => s + v, 0));
  const n = nc.reduce((s, v) => s + v, 0);

  // Cumulative frequencies make the ordinal metric O(1) per pair.
  const cumulative = [0];
  for (const f of nc) cumulative.push(cumulative[cumulative.length - 1]! + f);
  const delta2 = (c: number, kk: number): number => {
    if (c === kk) return 0;
    switch (level) {
      case 'nominal':
        return 1;
      case 'ordinal': {
        const lo = Math.min(c, kk);
        const hi = Math.max(c, kk);
        const between = cumulative[hi + 1]! - cumulative[lo]! - (nc[lo]! + nc[hi]!) / 2;
        return between * between;
      }
      case 'interval':
        return (scale[c]! - scale[kk]!) ** 2;
      case 'ratio': {
        const sum = scale[c]! + scale[kk]!;
        return sum === 0 ? 0 : ((scale[c]! - scale[kk]!) / sum) ** 2;
      }
    }
  };

  let observed = 0;
  let expected = 0;
  for (let c = 0; c < k; c++) {
    for (let kk = 0; kk < k; kk++) {
      const d = delta2(c, kk);
      observed += o[c]![kk]! * d;
      expected += nc[c]! * nc[kk]! * d;
    }
  }
  if (n === 0 || expected === 0) return Number.NaN;
  return 1 - ((n - 1) * observed) / expected;
}

/**
 * Fleiss' kappa (Fleiss 1971) from a subjects × categories table of counts, each row summing
 * to the same number of raters (at least 2). NaN when every rating falls in one category.
 */
export function fleissKappa(counts: readonly (readonly number[])[]): number {
  if (counts.length === 0) throw new RangeError('fleissKappa: no subjects');
  const categories = counts[0]!.length;
  let raters = -1;
  counts.forEach((row, i) => {
    if (row.length !== categories) {
      throw new RangeError(
        `fleissKappa: row ${i} has ${row.length} categories, row 0 has ${categories}`,
      );
    }
    row.forEach((v, j) => {
      if (!Number.isInteger(v) || v < 0) {
        throw new RangeError(`fleissKappa: counts[${i}][${j}] = ${v} is not a count`);
      }
    });
    const total = row.reduce((s, v) => s + v, 0);
    if (raters === -1) raters = total;
    if (total !== raters) {
      throw new RangeError(`fleissKappa: row ${i} sums to ${total}, row 0 to ${raters}`);
    }
  });
  if (raters < 2) throw new RangeError(`fleissKappa: needs at least 2 raters per subject`);
  let agreement = 0;
  const totals = new Array<number>(categories).fill(0);
  for (const row of counts) {
    let squares = 0;
    row.forEach((v, j) => {
      squares += v * v;
      totals[j]! += v;
    });
    agreement += (squares - raters) / (raters * (raters - 1));
  }
  return fleissKappaFromSums({
    subjects: counts.length,
    raters,
    agreement,
    categoryTotals: totals,
  });
}

/** The sums Fleiss' kappa is computed from; those of disjoint sets of subjects add up. */
export interface FleissSums {
  /** Number of subjects (items). */
  subjects: number;
  /** Raters per subject (the same for every subject). */
  raters: number;
  /** Σ over subjects of P_i = (Σ_j n_ij² − m)/(m(m − 1)), the subject's pairwise agreement. */
  agreement: number;
  /** Per category, the ratings it received over every subject. */
  categoryTotals: readonly number[];
}

/**
 * Fleiss' kappa from its sums (see {@link FleissSums}): κ = (P̄ − P_e)/(1 − P_e) with
 * P̄ = agreement / subjects and P_e = Σ_j (total_j/(subjects·raters))². NaN when there are no
 * subjects or every rating falls in one category.
 */
export function fleissKappaFromSums(sums: FleissSums): number {
  const { subjects, raters, agreement, categoryTotals } = sums;
  if (subjects === 0) return Number.NaN;
  const observed = agreement / subjects;
  const chance = categoryTotals.reduce((s, t) => s + (t / (subjects * raters)) ** 2, 0);
  return chance === 1 ? Number.NaN : (observed - chance) / (1 - chance);
}

/**
 * Turns label arrays into the subjects × categories counts that {@link fleissKappa} takes.
 * `raters` is raters × items: raters[r][i] is rater r's label for item i (every rater labels
 * every item). Categories are `labels` (default every label seen, ascending).
 */
export function fleissCounts(
  raters: readonly (readonly number[])[],
  labels?: readonly number[],
): { labels: number[]; counts: number[][] } {
  if (raters.length === 0) throw new RangeError('fleissCounts: no raters');
  const items = raters[0]!.length;
  raters.forEach((row, r) => {
    if (row.length !== items) {
      throw new RangeError(
        `fleissCounts: rater ${r} labelled ${row.length} items, rater 0 ${items}`,
      );
    }
    assertFinite('fleissCounts', `raters[${r}]`, row);
  });
  const scale = labels ? [...labels] : sortedUnique(raters.flat());
  const index = labelIndex('fleissCounts', scale);
  const counts = Array.from({ length: items }, () => new Array<number>(scale.length).fill(0));
  raters.forEach((row, r) =>
    row.forEach((label, i) => {
      const j = index.get(label);
      if (j === undefined) {
        throw new RangeError(
          `fleissCounts: raters[${r}][${i}] = ${label} is not one of the labels`,
        );
      }
      counts[i]![j]!++;
    }),
  );
  return { labels: scale, counts };
}

/** Fleiss' kappa straight from label arrays (raters × items); see {@link fleissCounts}. */
export function fleissKappaFromLabels(
  raters: readonly (readonly number[])[],
  labels?: readonly number[],
): number {
  return fleissKappa(fleissCounts(raters, labels).counts);
}

/** Agreement on one binarization of a graded scale. */
export interface BinarizedKappa {
  /** Grades ≥ threshold count as relevant. */
  threshold: number;
  /** Unweighted Cohen's kappa on the relevant / not relevant labels (NaN if undefined). */
  kappa: number;
  /** Fraction of items on which both raters agree on relevant / not relevant. */
  agreement: number;
}

/**
 * Cohen's kappa and raw agreement after binarizing graded labels at every threshold t of
 * `scale` except the lowest (relevant = grade ≥ t), the usual way to compare graded LLM and
 * human judgments at each relevance cut-off. Labels outside `scale` are an error.
 */
export function binarizedKappas(
  a: readonly number[],
  b: readonly number[],
  scale: readonly number[],
): BinarizedKappa[] {
  assertLabelPairs('binarizedKappas', a, b);
  const grades = [...labelIndex('binarizedKappas', scale).keys()].sort((p, q) => p - q);
  const known = new Set(grades);
  for (const [name, labels] of [
    ['a', a],
    ['b', b],
  ] as const) {
    labels.forEach((v, i) => {
      if (!known.has(v)) {
        throw new RangeError(`binarizedKappas: ${name}[${i}] = ${v} is not on the scale`);
      }
    });
  }
  return grades.slice(1).map((threshold) => {
    const ba = a.map((v) => (v >= threshold ? 1 : 0));
    const bb = b.map((v) => (v >= threshold ? 1 : 0));
    return {
      threshold,
      kappa: cohenKappa(ba, bb, { labels: [0, 1] }),
      agreement: exactAgreement(ba, bb),
    };
  });
}
