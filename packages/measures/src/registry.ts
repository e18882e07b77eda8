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
  {
    ...def('runid', 'Run id given by the run file', 'none', 'string', 'runid', false, () => ''),
    relevance: 'any',
  },
  {
    ...def('num_q', 'Number of topics evaluated', 'none', 'long', 'count', false, () => [0]),
    relevance: 'any',
  },
  def('num_ret', 'Number of documents retrieved', 'none', 'long', 'sum', true, (t) => [t.numRet]),
  def('num_rel', 'Number of relevant documents in the qrels', 'none', 'long', 'sum', true, (t) => [
    t.numRel,
  ]),
  def('num_rel_ret', 'Number of relevant documents retrieved', 'none', 'long', 'sum', true, (t) => [
    t.numRelRet,
  ]),
  def('map', 'Mean average precision', 'none', 'float', 'mean', true, (t) => [
    m.averagePrecision(t),
  ]),
  def(
    'gm_map',
    'Geometric mean of average precision (floor 1e-5)',
    'none',
    'float',
    'geometric',
    false,
    (t) => [m.averagePrecision(t)],
  ),
  def(
    'Rprec',
    'Precision after R documents, R = number relevant',
    'none',
    'float',
    'mean',
    true,
    (t) => [m.rPrecision(t)],
  ),
  def(
    'bpref',
    'Binary preference (Buckley & Voorhees 2004)',
    'none',
    'float',
    'mean',
    true,
    (t) => [m.bpref(t)],
  ),
  def(
    'recip_rank',
    'Reciprocal rank of the first relevant document',
    'none',
    'float',
    'mean',
    true,
    (t) => [m.reciprocalRank(t)],
  ),
  {
    ...def(
      'iprec_at_recall',
      'Interpolated precision at recall levels',
      'realCutoffs',
      'float',
      'mean',
      true,
      (t, p) => m.interpolatedPrecisionAt(t, p.numbers),
    ),
    defaults: RECALL_LEVELS,
  },
  {
    ...def('P', 'Precision at cutoffs', 'cutoffs', 'float', 'mean', true, (t, p) =>
      m.precisionAt(t, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  {
    ...def(
      'relstring',
      'Relevance of the first N documents as a string (per topic only)',
      'reals',
      'string',
      'none',
      true,
      (t, p) => m.relString(t, p.numbers[0] ?? 10),
    ),
    defaults: [10],
  },
  {
    ...def('recall', 'Recall at cutoffs', 'cutoffs', 'float', 'mean', true, (t, p) =>
      m.recallAt(t, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  def('infAP', 'Inferred AP (Yilmaz & Aslam 2006)', 'none', 'float', 'mean', true, (t) => [
    m.inferredAP(t),
  ]),
  def(
    'gm_bpref',
    'Geometric mean of bpref (floor 1e-5)',
    'none',
    'float',
    'geometric',
    false,
    (t) => [m.bpref(t)],
  ),
  {
    ...def(
      'Rprec_mult',
      'Precision at multiples of R',
      'realCutoffs',
      'float',
      'mean',
      true,
      (t, p) => m.rPrecisionMultiples(t, p.numbers),
    ),
    defaults: [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
  },
  {
    ...def(
      'utility',
      'Set utility a·relret + b·nonrelret + c·relmissed + d·nonrelmissed',
      'reals',
      'float',
      'mean',
      true,
      (t, p, ctx) => [m.utility(t, p.numbers, ctx.numDocsInCollection)],
    ),
    defaults: [1, -1, 0, 0],
  },
  {
    ...def(
      '11pt_avg',
      'Interpolated precision averaged over recall levels',
      'reals',
      'float',
      'mean',
      true,
      (t, p) => [m.interpolatedAverage(t, p.numbers)],
    ),
    defaults: RECALL_LEVELS,
  },
  def('binG', 'Binary G', 'none', 'float', 'mean', true, (t) => [m.binaryG(t)]),
  def('G', 'Normalised gain G', 'pairs', 'float', 'mean', true, (t, p) => [m.gMeasure(t, p.pairs)]),
  def(
    'ndcg',
    'nDCG over the whole ranking; gains = grades unless grade=gain given',
    'pairs',
    'float',
    'mean',
    true,
    (t, p) => [m.ndcg(t, p.pairs)],
  ),
  def(
    'ndcg_rel',
    'nDCG averaged over relevant documents',
    'pairs',
    'float',
    'mean',
    true,
    (t, p) => [m.ndcgRel(t, p.pairs)],
  ),
  def('Rndcg', 'nDCG averaged at R-level boundaries', 'pairs', 'float', 'mean', true, (t, p) => [
    m.rNdcg(t, p.pairs),
  ]),
  {
    ...def('ndcg_cut', 'nDCG at cutoffs', 'cutoffs', 'float', 'mean', true, (t, p) =>
      m.ndcgAt(t, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  {
    ...def('map_cut', 'Average precision at cutoffs', 'cutoffs', 'float', 'mean', true, (t, p) =>
      m.averagePrecisionAt(t, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  {
    ...def(
      'relative_P',
      'Precision relative to the best possible at cutoffs',
      'cutoffs',
      'float',
      'mean',
      true,
      (t, p) => m.relativePrecisionAt(t, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  {
    ...def(
      'success',
      'A relevant document within cutoffs',
      'cutoffs',
      'float',
      'mean',
      true,
      (t, p) => m.successAt(t, p.numbers),
    ),
    defaults: [1, 5, 10],
  },
  def('set_P', 'Set precision', 'none', 'float', 'mean', true, (t) => [m.setPrecision(t)]),
  def(
    'set_relative_P',
    'Set precision relative to the best possible',
    'none',
    'float',
    'mean',
    true,
    (t) => [m.setRelativePrecision(t)],
  ),
  def('set_recall', 'Set recall', 'none', 'float', 'mean', true, (t) => [m.setRecall(t)]),
  def('set_map', 'Set MAP (set recall × set precision)', 'none', 'float', 'mean', true, (t) => [
    m.setAveragePrecision(t),
  ]),
  {
    ...def(
      'set_F',
      'Set F measure, beta² = x (default 1)',
      'reals',
      'float',
      'mean',
      true,
      (t, p) => [m.setF(t, p.numbers[0] ?? 1)],
    ),
    defaults: [1],
  },
  def(
    'num_nonrel_judged_ret',
    'Number of retrieved documents judged non-relevant',
    'none',
    'long',
    'sum',
    true,
    (t) => [m.nonRelevantJudgedRetrieved(t)],
  ),
  prefsDef(
    'prefs_num_prefs_poss',
    'Number of preferences, fulfilled or not, retrieved or not',
    'long',
    'sum',
    (c) => prefs.numPrefsPossible(c),
  ),
  prefsDef(
    'prefs_num_prefs_ful',
    'Number of preferences fulfilled (one document retrieved counts)',
    'long',
    'sum',
    (c) => prefs.numPrefsFulfilled(c),
  ),
  prefsDef(
    'prefs_num_prefs_ful_ret',
    'Number of preferences fulfilled among retrieved documents',
    'long',
    'sum',
    (c) => prefs.numPrefsFulfilledRetrieved(c),
  ),
  prefsDef(
    'prefs_simp',
    'Preferences fulfilled / possible (neither retrieved counts as a failure)',
    'float',
    'mean',
    (c) => prefs.prefsSimple(c, 'all'),
  ),
  prefsDef(
    'prefs_pair',
    'Mean over document pairs of the share of their preferences fulfilled',
    'float',
    'mean',
    (c) => prefs.prefsPair(c, 'all'),
  ),
  prefsDef(
    'prefs_avgjg',
    'Preferences fulfilled / possible per judgment group, averaged over groups',
    'float',
    'mean',
    (c) => prefs.prefsAverageOverGroups(c, 'all'),
  ),
  prefsDef(
    'prefs_avgjg_Rnonrel',
    'prefs_avgjg with the non-relevant documents of each group cut or padded to R',
    'float',
    'mean',
    (c) => prefs.prefsAverageRNonrel(c, false),
  ),
  prefsDef(
    'prefs_simp_ret',
    'prefs_simp over preferences between retrieved documents only',
    'float',
    'mean',
    (c) => prefs.prefsSimple(c, 'ret'),
  ),
  prefsDef(
    'prefs_pair_ret',
    'prefs_pair over pairs of retrieved documents only',
    'float',
    'mean',
    (c) => prefs.prefsPair(c, 'ret'),
  ),
  prefsDef(
    'prefs_avgjg_ret',
    'prefs_avgjg over preferences between retrieved documents only',
    'float',
    'mean',
    (c) => prefs.prefsAverageOverGroups(c, 'ret'),
  ),
  prefsDef(
    'prefs_avgjg_Rnonrel_ret',
    'prefs_avgjg_Rnonrel over retrieved documents only',
    'float',
    'mean',
    (c) => prefs.prefsAverageRNonrel(c, true),
  ),
  prefsDef(
    'prefs_simp_imp',
    'prefs_simp ignoring preferences with neither document retrieved',
    'float',
    'mean',
    (c) => prefs.prefsSimple(c, 'imp'),
  ),
  prefsDef(
    'prefs_pair_imp',
    'prefs_pair ignoring pairs with neither document retrieved',
    'float',
    'mean',
    (c) => prefs.prefsPair(c, 'imp'),
  ),
  prefsDef(
    'prefs_avgjg_imp',
    'prefs_avgjg ignoring preferences with neither document retrieved',
    'float',
    'mean',
    (c) => prefs.prefsAverageOverGroups(c, 'imp'),
  ),
  groupsDef('map_avgjg', 'Average precision averaged over judgment groups', 'none', (g) => [
    jg.averagePrecisionOverGroups(g),
  ]),
  {
    ...groupsDef(
      'P_avgjg',
      'Precision at cutoffs averaged over judgment groups',
      'cutoffs',
      (g, p) => jg.precisionAtOverGroups(g, p.numbers),
    ),
    defaults: P_CUTOFFS,
  },
  {
    ...groupsDef(
      'Rprec_mult_avgjg',
      'Precision at multiples of R averaged over judgment groups',
      'realCutoffs',
      (g, p) => jg.rPrecisionMultiplesOverGroups(g, p.numbers),
    ),
    defaults: [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
  },
  def(
    'rbp',
    'Rank-biased precision (p = 0.9 unless p=… given)',
    'pairs',
    'float',
    'mean',
    true,
    (t, p) => [m.rankBiasedPrecision(t, p.pairs)],
  ),
  def('rbp_resid', 'RBP residual from unjudged documents', 'none', 'float', 'mean', true, (t) => [
    m.rankBiasedResidual(t),
  ]),
  {
    ...def(
      'unj',
      'Fraction of the top k that is unjudged',
      'cutoffs',
      'float',
      'mean',
      true,
      (t, p) => m.unjudgedAt(t, p.numbers),
    ),
    defaults: [5, 10, 20],
  },
  def('dcg', 'DCG over the whole ranking', 'pairs', 'float', 'mean', true, (t, p) => [
    m.dcgPair(t, p.pairs).dcg,
  ]),
  def('ideal_dcg', 'Ideal DCG of the topic', 'pairs', 'float', 'mean', true, (t, p) => [
    m.dcgPair(t, p.pairs).idealDcg,
  ]),
];

function def(
  name: string,
  doc: string,
  params: ParamStyle,
  output: MeasureDefinition['output'],
  aggregate: Aggregate,
  perQuery: boolean,
  compute: MeasureDefinition['compute'],
): MeasureDefinition {
  return { name, doc, params, output, aggregate, perQuery, compute };
}

/** A measure of preference judgments (`-R prefs` or `-R qrels_prefs`). */
function prefsDef(
  name: string,
  doc: string,
  output: 'float' | 'long',
  aggregate: Aggregate,
  compute: (c: PreferenceCounts) => number,
): MeasureDefinition {
  return {
    ...def(name, doc, 'none', output, aggregate, true, wrongInput(name, '-R prefs')),
    relevance: 'prefs',
    computePrefs: (c) => [compute(c)],
  };
}

/** A measure averaged over judgment groups (`-R qrels_jg`). */
function groupsDef(
  name: string,
  doc: string,
  params: ParamStyle,
  compute: NonNullable<MeasureDefinition['computeGroups']>,
): MeasureDefinition {
  return {
    ...def(name, doc, params, 'float', 'mean', true, wrongInput(name, '-R qrels_jg')),
    relevance: 'qrels_jg',
    computeGroups: compute,
  };
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
): MeasureDefinition {
  return def(name, doc, 'none', 'float', 'mean', true, (t) => [compute(t)]);
}
