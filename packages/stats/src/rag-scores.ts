// Scores of RAG answers as the TREC RAG track computes them: nugget scores (Pradeep et al.,
// "The Great Nugget Recall", 2025, and castorini/nuggetizer), support precision and recall
// of citations (Thakur et al., "Support Evaluation for the TREC 2024 RAG Track", 2025), and
// per-topic weighted rubrics (as in ResearchRubrics, used by TREC RAG 2026). Pure functions.

/** How much a nugget matters to a topic. */
export type NuggetImportance = 'vital' | 'okay';

/** Whether an answer holds a nugget. */
export type NuggetAssignment = 'support' | 'partial_support' | 'not_support';

/** The nugget labels in scale order, highest first. */
export const NUGGET_ASSIGNMENTS = [
  'support',
  'partial_support',
  'not_support',
] as const satisfies readonly NuggetAssignment[];

/** A nugget of a topic with its importance and an answer's assignment. */
export interface AssignedNugget {
  importance: NuggetImportance;
  assignment: NuggetAssignment;
}

/** The nugget scores of one answer, each in [0, 1]. */
export interface NuggetScores {
  /** Vital nuggets fully supported, over vital nuggets. */
  strict_vital: number;
  /** Vital nuggets supported (partial support counts 0.5), over vital nuggets. */
  vital: number;
  /** Nuggets fully supported, over all nuggets. */
  strict_all: number;
  /** Nuggets supported (partial support counts 0.5), over all nuggets. */
  all: number;
  /**
   * Weighted by importance (vital 1, okay 0.5), partial support counting 0.5:
   * Σ wᵢ·creditᵢ / Σ wᵢ.
   */
  weighted: number;
}

/** The names of the nugget scores, in the order every output lists them. */
export const NUGGET_MEASURES = [
  'strict_vital',
  'vital',
  'strict_all',
  'all',
  'weighted',
] as const satisfies readonly (keyof NuggetScores)[];

/** Weight of a nugget in the weighted score. */
export const NUGGET_WEIGHTS: Readonly<Record<NuggetImportance, number>> = { vital: 1, okay: 0.5 };

/** Credit of an assignment: support 1, partial support 0.5 (non-strict scores), else 0. */
function credit(assignment: NuggetAssignment, strict: boolean): number {
  if (assignment === 'support') return 1;
  if (assignment === 'partial_support') return strict ? 0 : 0.5;
  return 0;
}

const ratio = (num: number, den: number) => (den === 0 ? 0 : num / den);

/**
 * The nugget scores of one answer from its assignments over a topic's nuggets, as
 * nuggetizer defines them; a score whose denominator is empty (no vital nuggets, no
 * nuggets) is 0.
 *
 * @example
 * nuggetScores([{ importance: 'vital', assignment: 'partial_support' }]).vital; // 0.5
 */
export function nuggetScores(nuggets: readonly AssignedNugget[]): NuggetScores {
  let vitals = 0;
  let strictVital = 0;
  let vital = 0;
  let strictAll = 0;
  let all = 0;
  let weightSum = 0;
  let weighted = 0;
  for (const n of nuggets) {
    if (n.importance !== 'vital' && n.importance !== 'okay')
      throw new RangeError(`nuggetScores: unknown importance ${JSON.stringify(n.importance)}`);
    if (!(NUGGET_ASSIGNMENTS as readonly string[]).includes(n.assignment))
      throw new RangeError(`nuggetScores: unknown assignment ${JSON.stringify(n.assignment)}`);
    const strict = credit(n.assignment, true);
    const loose = credit(n.assignment, false);
    strictAll += strict;
    all += loose;
    if (n.importance === 'vital') {
      vitals++;
      strictVital += strict;
      vital += loose;
    }
    const w = NUGGET_WEIGHTS[n.importance];
    weightSum += w;
    weighted += w * loose;
  }
  return {
    strict_vital: ratio(strictVital, vitals),
    vital: ratio(vital, vitals),
    strict_all: ratio(strictAll, nuggets.length),
    all: ratio(all, nuggets.length),
    weighted: ratio(weighted, weightSum),
  };
}

/** How far a cited passage supports the sentence that cites it. */
export type SupportLabel = 'full' | 'partial' | 'none' | 'cannot_assess';

/** The support labels in scale order, highest first ("cannot assess" last). */
export const SUPPORT_LABELS = [
  'full',
  'partial',
  'none',
  'cannot_assess',
] as const satisfies readonly SupportLabel[];

/** One answer sentence with the support of each passage it cites, in citation order. */
export interface AssessedSentence {
  citations: readonly SupportLabel[];
}

/** Support precision and recall of one answer. */
export interface SupportScores {
  /** Σ support over assessed citations / assessed citations (full 1, partial 0.5). */
  support_precision: number;
  /** Σ over sentences of their best citation's support / sentences (full 1, partial 0.5). */
  support_recall: number;
  /** Citations with full support / assessed citations. */
  strict_support_precision: number;
  /** Sentences with at least one fully supporting citation / sentences. */
  strict_support_recall: number;
}

/** The names of the support scores, in the order every output lists them. */
export const SUPPORT_MEASURES = [
  'support_precision',
  'support_recall',
  'strict_support_precision',
  'strict_support_recall',
] as const satisfies readonly (keyof SupportScores)[];

/** Options of {@link supportScores}. */
export interface SupportScoreOptions {
  /** Count only each sentence's first citation (the one a system ranked as best support). */
  firstCitationOnly?: boolean;
}

function supportCredit(label: SupportLabel, strict: boolean): number {
  if (label === 'full') return 1;
  if (label === 'partial') return strict ? 0 : 0.5;
  return 0;
}

/**
 * Support precision and recall of one answer. A citation judged "cannot assess" counts in
 * neither: it leaves precision's denominator, and a sentence whose every citation is
 * "cannot assess" leaves recall's. A sentence without citations counts in recall as
 * unsupported. An empty denominator gives 0.
 *
 * @example
 * supportScores([{ citations: ['full', 'none'] }, { citations: [] }]);
 * // precision 1/2, recall 1/2
 */
export function supportScores(
  sentences: readonly AssessedSentence[],
  options: SupportScoreOptions = {},
): SupportScores {
  let assessed = 0;
  let precision = 0;
  let strictPrecision = 0;
  let counted = 0;
  let recall = 0;
  let strictRecall = 0;
  for (const sentence of sentences) {
    for (const label of sentence.citations)
      if (!(SUPPORT_LABELS as readonly string[]).includes(label))
        throw new RangeError(`supportScores: unknown support label ${JSON.stringify(label)}`);
    const citations = options.firstCitationOnly
      ? sentence.citations.slice(0, 1)
      : sentence.citations;
    const judged = citations.filter((c) => c !== 'cannot_assess');
    if (citations.length > 0 && judged.length === 0) continue;
    counted++;
    let best = 0;
    let bestStrict = 0;
    for (const label of judged) {
      assessed++;
      precision += supportCredit(label, false);
      strictPrecision += supportCredit(label, true);
      best = Math.max(best, supportCredit(label, false));
      bestStrict = Math.max(bestStrict, supportCredit(label, true));
    }
    recall += best;
    strictRecall += bestStrict;
  }
  return {
    support_precision: ratio(precision, assessed),
    support_recall: ratio(recall, counted),
    strict_support_precision: ratio(strictPrecision, assessed),
    strict_support_recall: ratio(strictRecall, counted),
  };
}

/** Whether an answer meets a rubric criterion. */
export type RubricJudgment = 'met' | 'partly_met' | 'not_met';

/** The rubric judgments in scale order, highest first. */
export const RUBRIC_JUDGMENTS = [
  'met',
  'partly_met',
  'not_met',
] as const satisfies readonly RubricJudgment[];

/** A criterion of a topic's rubric with an answer's judgment. */
export interface JudgedCriterion {
  /** From −5 to 5; a negative weight is a fault the answer should not have. */
  weight: number;
  /** The axis the criterion belongs to (e.g. "Explicit Criteria"). */
  axis?: string;
  judgment: RubricJudgment;
}

/** An answer's rubric score overall and per axis. */
export interface RubricScores {
  /** Σ wᵢ·mᵢ over criteria / Σ of the positive weights (met 1, partly met 0.5, not met 0). */
  score: number;
  /**
   * The same per axis, over the axis' criteria; an axis without a positive weight has no
   * score and is left out.
   */
  axes: Record<string, number>;
}

function rubricCredit(judgment: RubricJudgment): number {
  if (judgment === 'met') return 1;
  if (judgment === 'partly_met') return 0.5;
  if (judgment === 'not_met') return 0;
  throw new RangeError(`rubricScore: unknown judgment ${JSON.stringify(judgment)}`);
}

/**
 * The rubric score of one answer: the weighted sum over the criteria it meets (partly met
 * counts half), normalised by the sum of the positive weights. Met faults (negative
 * weights) lower it, so it can fall below 0; it is at most 1. Throws when no criterion
 * has a positive weight (the score is undefined).
 *
 * @example
 * rubricScore([{ weight: 4, judgment: 'met' }, { weight: -2, judgment: 'met' }]).score; // 0.5
 */
export function rubricScore(criteria: readonly JudgedCriterion[]): RubricScores {
  let sum = 0;
  let positive = 0;
  const axes = new Map<string, { sum: number; positive: number }>();
  for (const c of criteria) {
    if (!Number.isFinite(c.weight))
      throw new RangeError(`rubricScore: weight ${c.weight} is not a finite number`);
    const value = c.weight * rubricCredit(c.judgment);
    sum += value;
    if (c.weight > 0) positive += c.weight;
    if (c.axis !== undefined) {
      const axis = axes.get(c.axis) ?? { sum: 0, positive: 0 };
      axis.sum += value;
      if (c.weight > 0) axis.positive += c.weight;
      axes.set(c.axis, axis);
    }
  }
  if (positive === 0) throw new RangeError('rubricScore: no criterion has a positive weight');
  const byAxis: Record<string, number> = {};
  for (const [name, axis] of [...axes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (axis.positive > 0) byAxis[name] = axis.sum / axis.positive;
  return { score: sum / positive, axes: byAxis };
}
