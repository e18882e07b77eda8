/**
 * The declarative side of measures: names, parameters, defaults, one-line docs, how each
 * is printed and averaged. The math lives in trec-measures.ts.
 */
import type { GainOverrides } from './gains.js';
import * as jg from './judgment-groups.js';
import * as prefs from './prefs.js';
import type { PreferenceCounts } from './prefs.js';
import type { RankedTopic } from './ranking.js';
import * as m from './trec-measures.js';

/** How a measure takes parameters after the dot (`P.5,10`, `ndcg.1=3,2=9`). */
export type ParamStyle =
  | 'none'
  /** integer cutoffs, sorted, positive, unique; one value each, named `name_k` */
  | 'cutoffs'
  /** real cutoffs, sorted, unique; one value each, named `name_%3.2f` */
  | 'realCutoffs'
  /** a list of reals kept in the given order; one value named `name_params` */
  | 'reals'
  /** `name=value` pairs; one value named `name_params` */
  | 'pairs';

/** How per-topic values become the summary line. */
export type Aggregate = 'mean' | 'sum' | 'geometric' | 'count' | 'none' | 'runid';

/** Parsed parameters of one measure request. */
export interface MeasureParams {
  /** The raw text after the first dot, when given (used in the output name). */
  text?: string;
  numbers: number[];
  pairs: GainOverrides;
}

/** Context every computation can read (set by evaluation options). */
export interface ComputeContext {
  numDocsInCollection: number;
}

/**
 * The relevance information a measure reads (trec_eval's `-R`): TREC qrels, qrels with
 * judgment groups (`qrels_jg`), or preferences (`prefs`, also read from qrels with
 * `-R qrels_prefs`). `any` is for runid and num_q, which read none.
 */
export type MeasureRelevance = 'qrels' | 'qrels_jg' | 'prefs' | 'any';

/** A measure definition: what it is called, its parameters, how it is shown. */
export interface MeasureDefinition {
  /** trec_eval name (`P`, `ndcg_cut`, …). */
  name: string;
  /** One-line description. */
  doc: string;
  params: ParamStyle;
  /** Default numbers for 'cutoffs', 'realCutoffs' and 'reals'. */
  defaults?: number[];
  /** How values print: 4 decimals, an integer, or a quoted string. */
  output: 'float' | 'long' | 'string';
  aggregate: Aggregate;
  /** Whether trec_eval prints the value for each topic with -q. */
  perQuery: boolean;
  /** The relevance information it reads; 'qrels' when absent. */
  relevance?: MeasureRelevance;
  /**
   * True when a topic's value is a sum, over the ranked documents, of a weight fixed by the
   * ranking times a function of that document's own label (P@k, set_P, DCG, Judged@k): a
   * change to one label moves it by that label's share alone, so it can be estimated from a
   * random sample of labelled (topic, document) pairs (`assay ppi --sampling pairs`).
   */
  linearInLabels?: boolean;
  /**
   * Per-topic values (one per output name), or a string for relstring. For 'qrels' and
   * 'any' measures; the others compute with computeGroups or computePrefs.
   */
  compute(t: RankedTopic, p: MeasureParams, ctx: ComputeContext): number[] | string;
  /** Per-topic values from one ranking per judgment group ('qrels_jg' measures). */
  computeGroups?(groups: readonly RankedTopic[], p: MeasureParams, ctx: ComputeContext): number[];
  /** Per-topic values from the topic's preference counts ('prefs' measures). */
  computePrefs?(counts: PreferenceCounts, p: MeasureParams, ctx: ComputeContext): number[];
}

const P_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
const RECALL_LEVELS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Every trec_eval 10.0 measure assay implements, in trec_eval's output order. */
export const TREC_MEASURES: readonly MeasureDefinition[] = [
  measure({
    name: 'runid',
    doc: 'Run id given by the run file',
    params: 'none',
    output: 'string',
    aggregate: 'runid',
    perQuery: false,
    compute: () => '',
    relevance: 'any',
  }),
  measure({
    name: 'num_q',
    doc: 'Number of topics evaluated',
    params: 'none',
    output: 'long',
    aggregate: 'count',
    perQuery: false,
    compute: () => [0],
    relevance: 'any',
  }),
  measure({
    name: 'num_ret',
    doc: 'Number of documents retrieved',
    params: 'none',
    output: 'long',
    aggregate: 'sum',
    perQuery: true,
    compute: (t) => [t.numRet],
  }),
  measure({
    name: 'num_rel',
    doc: 'Number of relevant documents in the qrels',
    params: 'none',
    output: 'long',
    aggregate: 'sum',
    perQuery: true,
    compute: (t) => [t.numRel],
  }),
  measure({
    name: 'num_rel_ret',
    doc: 'Number of relevant documents retrieved',
    params: 'none',
    output: 'long',
    aggregate: 'sum',
    perQuery: true,
    compute: (t) => [t.numRelRet],
  }),
  measure({
    name: 'map',
    doc: 'Mean average precision',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.averagePrecision(t)],
  }),
  measure({
    name: 'gm_map',
    doc: 'Geometric mean of average precision (floor 1e-5)',
    params: 'none',
    output: 'float',
    aggregate: 'geometric',
    perQuery: false,
    compute: (t) => [m.averagePrecision(t)],
  }),
  measure({
    name: 'Rprec',
    doc: 'Precision after R documents, R = number relevant',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.rPrecision(t)],
  }),
  measure({
    name: 'bpref',
    doc: 'Binary preference (Buckley & Voorhees 2004)',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.bpref(t)],
  }),
  measure({
    name: 'recip_rank',
    doc: 'Reciprocal rank of the first relevant document',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.reciprocalRank(t)],
  }),
  measure({
    name: 'iprec_at_recall',
    doc: 'Interpolated precision at recall levels',
    params: 'realCutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.interpolatedPrecisionAt(t, p.numbers),
    defaults: RECALL_LEVELS,
  }),
  measure({
    name: 'P',
    doc: 'Precision at cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    linearInLabels: true,
    compute: (t, p) => m.precisionAt(t, p.numbers),
    defaults: P_CUTOFFS,
  }),
  measure({
    name: 'relstring',
    doc: 'Relevance of the first N documents as a string (per topic only)',
    params: 'reals',
    output: 'string',
    aggregate: 'none',
    perQuery: true,
    compute: (t, p) => m.relString(t, p.numbers[0] ?? 10),
    defaults: [10],
  }),
  measure({
    name: 'recall',
    doc: 'Recall at cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.recallAt(t, p.numbers),
    defaults: P_CUTOFFS,
  }),
  measure({
    name: 'infAP',
    doc: 'Inferred AP (Yilmaz & Aslam 2006)',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.inferredAP(t)],
  }),
  measure({
    name: 'gm_bpref',
    doc: 'Geometric mean of bpref (floor 1e-5)',
    params: 'none',
    output: 'float',
    aggregate: 'geometric',
    perQuery: false,
    compute: (t) => [m.bpref(t)],
  }),
  measure({
    name: 'Rprec_mult',
    doc: 'Precision at multiples of R',
    params: 'realCutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.rPrecisionMultiples(t, p.numbers),
    defaults: [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
  }),
  measure({
    name: 'utility',
    doc: 'Set utility a·relret + b·nonrelret + c·relmissed + d·nonrelmissed',
    params: 'reals',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p, ctx) => [m.utility(t, p.numbers, ctx.numDocsInCollection)],
    defaults: [1, -1, 0, 0],
  }),
  measure({
    name: '11pt_avg',
    doc: 'Interpolated precision averaged over recall levels',
    params: 'reals',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.interpolatedAverage(t, p.numbers)],
    defaults: RECALL_LEVELS,
  }),
  measure({
    name: 'binG',
    doc: 'Binary G',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.binaryG(t)],
  }),
  measure({
    name: 'G',
    doc: 'Normalised gain G',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.gMeasure(t, p.pairs)],
  }),
  measure({
    name: 'ndcg',
    doc: 'nDCG over the whole ranking; gains = grades unless grade=gain given',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.ndcg(t, p.pairs)],
  }),
  measure({
    name: 'ndcg_rel',
    doc: 'nDCG averaged over relevant documents',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.ndcgRel(t, p.pairs)],
  }),
  measure({
    name: 'Rndcg',
    doc: 'nDCG averaged at R-level boundaries',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.rNdcg(t, p.pairs)],
  }),
  measure({
    name: 'ndcg_cut',
    doc: 'nDCG at cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.ndcgAt(t, p.numbers),
    defaults: P_CUTOFFS,
  }),
  measure({
    name: 'map_cut',
    doc: 'Average precision at cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.averagePrecisionAt(t, p.numbers),
    defaults: P_CUTOFFS,
  }),
  measure({
    name: 'relative_P',
    doc: 'Precision relative to the best possible at cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.relativePrecisionAt(t, p.numbers),
    defaults: P_CUTOFFS,
  }),
  measure({
    name: 'success',
    doc: 'A relevant document within cutoffs',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.successAt(t, p.numbers),
    defaults: [1, 5, 10],
  }),
  measure({
    name: 'set_P',
    doc: 'Set precision',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    linearInLabels: true,
    compute: (t) => [m.setPrecision(t)],
  }),
  measure({
    name: 'set_relative_P',
    doc: 'Set precision relative to the best possible',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.setRelativePrecision(t)],
  }),
  measure({
    name: 'set_recall',
    doc: 'Set recall',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.setRecall(t)],
  }),
  measure({
    name: 'set_map',
    doc: 'Set MAP (set recall × set precision)',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.setAveragePrecision(t)],
  }),
  measure({
    name: 'set_F',
    doc: 'Set F measure, beta² = x (default 1)',
    params: 'reals',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.setF(t, p.numbers[0] ?? 1)],
    defaults: [1],
  }),
  measure({
    name: 'num_nonrel_judged_ret',
    doc: 'Number of retrieved documents judged non-relevant',
    params: 'none',
    output: 'long',
    aggregate: 'sum',
    perQuery: true,
    compute: (t) => [m.nonRelevantJudgedRetrieved(t)],
  }),
  prefsMeasure({
    name: 'prefs_num_prefs_poss',
    doc: 'Number of preferences, fulfilled or not, retrieved or not',
    output: 'long',
    aggregate: 'sum',
    computePrefs: (c) => prefs.numPrefsPossible(c),
  }),
  prefsMeasure({
    name: 'prefs_num_prefs_ful',
    doc: 'Number of preferences fulfilled (one document retrieved counts)',
    output: 'long',
    aggregate: 'sum',
    computePrefs: (c) => prefs.numPrefsFulfilled(c),
  }),
  prefsMeasure({
    name: 'prefs_num_prefs_ful_ret',
    doc: 'Number of preferences fulfilled among retrieved documents',
    output: 'long',
    aggregate: 'sum',
    computePrefs: (c) => prefs.numPrefsFulfilledRetrieved(c),
  }),
  prefsMeasure({
    name: 'prefs_simp',
    doc: 'Preferences fulfilled / possible (neither retrieved counts as a failure)',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsSimple(c, 'all'),
  }),
  prefsMeasure({
    name: 'prefs_pair',
    doc: 'Mean over document pairs of the share of their preferences fulfilled',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsPair(c, 'all'),
  }),
  prefsMeasure({
    name: 'prefs_avgjg',
    doc: 'Preferences fulfilled / possible per judgment group, averaged over groups',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsAverageOverGroups(c, 'all'),
  }),
  prefsMeasure({
    name: 'prefs_avgjg_Rnonrel',
    doc: 'prefs_avgjg with the non-relevant documents of each group cut or padded to R',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsAverageRNonrel(c, false),
  }),
  prefsMeasure({
    name: 'prefs_simp_ret',
    doc: 'prefs_simp over preferences between retrieved documents only',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsSimple(c, 'ret'),
  }),
  prefsMeasure({
    name: 'prefs_pair_ret',
    doc: 'prefs_pair over pairs of retrieved documents only',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsPair(c, 'ret'),
  }),
  prefsMeasure({
    name: 'prefs_avgjg_ret',
    doc: 'prefs_avgjg over preferences between retrieved documents only',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsAverageOverGroups(c, 'ret'),
  }),
  prefsMeasure({
    name: 'prefs_avgjg_Rnonrel_ret',
    doc: 'prefs_avgjg_Rnonrel over retrieved documents only',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsAverageRNonrel(c, true),
  }),
  prefsMeasure({
    name: 'prefs_simp_imp',
    doc: 'prefs_simp ignoring preferences with neither document retrieved',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsSimple(c, 'imp'),
  }),
  prefsMeasure({
    name: 'prefs_pair_imp',
    doc: 'prefs_pair ignoring pairs with neither document retrieved',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsPair(c, 'imp'),
  }),
  prefsMeasure({
    name: 'prefs_avgjg_imp',
    doc: 'prefs_avgjg ignoring preferences with neither document retrieved',
    output: 'float',
    aggregate: 'mean',
    computePrefs: (c) => prefs.prefsAverageOverGroups(c, 'imp'),
  }),
  groupsMeasure({
    name: 'map_avgjg',
    doc: 'Average precision averaged over judgment groups',
    params: 'none',
    computeGroups: (g) => [jg.averagePrecisionOverGroups(g)],
  }),
  groupsMeasure({
    name: 'P_avgjg',
    doc: 'Precision at cutoffs averaged over judgment groups',
    params: 'cutoffs',
    computeGroups: (g, p) => jg.precisionAtOverGroups(g, p.numbers),
    defaults: P_CUTOFFS,
  }),
  groupsMeasure({
    name: 'Rprec_mult_avgjg',
    doc: 'Precision at multiples of R averaged over judgment groups',
    params: 'realCutoffs',
    computeGroups: (g, p) => jg.rPrecisionMultiplesOverGroups(g, p.numbers),
    defaults: [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
  }),
  measure({
    name: 'rbp',
    doc: 'Rank-biased precision (p = 0.9 unless p=… given)',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.rankBiasedPrecision(t, p.pairs)],
  }),
  measure({
    name: 'rbp_resid',
    doc: 'RBP residual from unjudged documents',
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [m.rankBiasedResidual(t)],
  }),
  measure({
    name: 'unj',
    doc: 'Fraction of the top k that is unjudged',
    params: 'cutoffs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => m.unjudgedAt(t, p.numbers),
    defaults: [5, 10, 20],
  }),
  measure({
    name: 'dcg',
    doc: 'DCG over the whole ranking',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    linearInLabels: true,
    compute: (t, p) => [m.dcgPair(t, p.pairs).dcg],
  }),
  measure({
    name: 'ideal_dcg',
    doc: 'Ideal DCG of the topic',
    params: 'pairs',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t, p) => [m.dcgPair(t, p.pairs).idealDcg],
  }),
];

/** A measure definition written as one object literal (fields as MeasureDefinition). */
function measure(definition: MeasureDefinition): MeasureDefinition {
  return definition;
}

/** A measure of preference judgments (`-R prefs` or `-R qrels_prefs`). */
function prefsMeasure(m: {
  name: string;
  doc: string;
  output: 'float' | 'long';
  aggregate: Aggregate;
  computePrefs: (c: PreferenceCounts) => number;
}): MeasureDefinition {
  return measure({
    name: m.name,
    doc: m.doc,
    params: 'none',
    output: m.output,
    aggregate: m.aggregate,
    perQuery: true,
    compute: wrongInput(m.name, '-R prefs'),
    relevance: 'prefs',
    computePrefs: (c) => [m.computePrefs(c)],
  });
}

/** A measure averaged over judgment groups (`-R qrels_jg`). */
function groupsMeasure(m: {
  name: string;
  doc: string;
  params: ParamStyle;
  defaults?: number[];
  computeGroups: NonNullable<MeasureDefinition['computeGroups']>;
}): MeasureDefinition {
  return measure({
    name: m.name,
    doc: m.doc,
    params: m.params,
    ...(m.defaults ? { defaults: m.defaults } : {}),
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: wrongInput(m.name, '-R qrels_jg'),
    relevance: 'qrels_jg',
    computeGroups: m.computeGroups,
  });
}

function wrongInput(name: string, format: string): MeasureDefinition['compute'] {
  return () => {
    throw new Error(`measure '${name}' needs ${format} relevance information`);
  };
}

/**
 * trec_eval's measure nicknames (`-m all_trec`, `-m official`, `-m set`; `-m all_prefs`
 * and `-m prefs` for preferences, `-m qrels_jg` for judgment groups).
 */
export const TREC_NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  official: [
    'runid',
    'num_q',
    'num_ret',
    'num_rel',
    'num_rel_ret',
    'map',
    'gm_map',
    'Rprec',
    'bpref',
    'recip_rank',
    'iprec_at_recall',
    'P',
  ],
  all_trec: [
    'runid',
    'num_q',
    'num_ret',
    'num_rel',
    'num_rel_ret',
    'map',
    'gm_map',
    'Rprec',
    'bpref',
    'recip_rank',
    'iprec_at_recall',
    'P',
    'relstring',
    'recall',
    'infAP',
    'gm_bpref',
    'Rprec_mult',
    'utility',
    '11pt_avg',
    'binG',
    'G',
    'ndcg',
    'ndcg_rel',
    'Rndcg',
    'ndcg_cut',
    'map_cut',
    'relative_P',
    'success',
    'set_P',
    'set_relative_P',
    'set_recall',
    'set_map',
    'set_F',
    'num_nonrel_judged_ret',
    'rbp',
    'rbp_resid',
    'unj',
  ],
  set: [
    'runid',
    'num_q',
    'num_ret',
    'num_rel',
    'num_rel_ret',
    'utility',
    'set_P',
    'set_recall',
    'set_relative_P',
    'set_map',
    'set_F',
  ],
  all_prefs: [
    'runid',
    'num_q',
    'prefs_num_prefs_poss',
    'prefs_num_prefs_ful',
    'prefs_num_prefs_ful_ret',
    'prefs_simp',
    'prefs_pair',
    'prefs_avgjg',
    'prefs_avgjg_Rnonrel',
    'prefs_simp_ret',
    'prefs_pair_ret',
    'prefs_avgjg_ret',
    'prefs_avgjg_Rnonrel_ret',
    'prefs_simp_imp',
    'prefs_pair_imp',
    'prefs_avgjg_imp',
  ],
  prefs: [
    'runid',
    'num_q',
    'prefs_num_prefs_poss',
    'prefs_num_prefs_ful',
    'prefs_num_prefs_ful_ret',
    'prefs_simp',
    'prefs_pair',
    'prefs_avgjg',
  ],
  qrels_jg: ['runid', 'num_q', 'map_avgjg', 'P_avgjg', 'Rprec_mult_avgjg'],
};

/** Looks up a trec_eval measure definition by name. */
export function findTrecMeasure(name: string): MeasureDefinition | undefined {
  return TREC_MEASURES.find((d) => d.name === name);
}

/** The computation type used for custom (ir_measures-style) measures. */
export type CustomCompute = (t: RankedTopic) => number;

/** A custom measure that has no trec_eval counterpart (`Judged@10`, `RR@10`). */
export function customMeasure(
  name: string,
  doc: string,
  compute: CustomCompute,
  options: { linearInLabels?: boolean } = {},
): MeasureDefinition {
  return measure({
    name,
    doc,
    params: 'none',
    output: 'float',
    aggregate: 'mean',
    perQuery: true,
    compute: (t) => [compute(t)],
    ...(options.linearInLabels ? { linearInLabels: true } : {}),
  });
}
