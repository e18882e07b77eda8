/**
 * The declarative side of measures: names, parameters, defaults, one-line docs, how each
 * is printed and averaged. The math lives in trec-measures.ts.
 */
import type { GainOverrides } from './gains.js';
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
  /** Per-topic values (one per output name), or a string for relstring. */
  compute(t: RankedTopic, p: MeasureParams, ctx: ComputeContext): number[] | string;
}

const P_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
const RECALL_LEVELS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Every trec_eval 10.0 measure assay implements, in trec_eval's output order. */
export const TREC_MEASURES: readonly MeasureDefinition[] = [
  def('runid', 'Run id given by the run file', 'none', 'string', 'runid', false, () => ''),
  def('num_q', 'Number of topics evaluated', 'none', 'long', 'count', false, () => [0]),
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

/** trec_eval's measure nicknames (`-m all_trec`, `-m official`, `-m set`). */
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
