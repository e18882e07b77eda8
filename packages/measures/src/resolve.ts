/**
 * Turns measure names as users type them (`-m all_trec`, `P.5,10`, `nDCG@10`,
 * `P(rel=2)@10`) into resolved measures with their parameters and output names.
 */
import { formatFixed } from './format.js';
import {
  TREC_MEASURES,
  TREC_NICKNAMES,
  customMeasure,
  findTrecMeasure,
  type MeasureDefinition,
  type MeasureParams,
} from './registry.js';
import { expectedReciprocalRank, normalizedExpectedReciprocalRank } from './err.js';
import { compatibility, COMPAT_P } from './compat.js';
import { closestName } from './suggest.js';
import * as m from './trec-measures.js';

/** A measure ready to compute: definition, parsed parameters and output column names. */
export interface ResolvedMeasure {
  definition: MeasureDefinition;
  params: MeasureParams;
  /** Output names, one per value the computation returns. */
  names: string[];
  /** Relevance level for this measure only (ir_measures `rel=`); else the global `-l`. */
  relevanceLevel?: number;
}

/** A measure specification that cannot be used, with the reason. */
export class MeasureSpecError extends Error {
  constructor(
    readonly spec: string,
    reason: string,
  ) {
    super(`measure '${spec}': ${reason}`);
    this.name = 'MeasureSpecError';
  }
}

/** The measures trec_eval prints when no `-m` is given. */
export const DEFAULT_MEASURES = ['official'] as const;

/** Kinds of relevance information: TREC qrels, judgment-group qrels, preferences. */
export type RelevanceFormat = 'qrels' | 'qrels_jg' | 'prefs';

/**
 * The measures to print when no `-m` is given, per kind of relevance information:
 * trec_eval's `official` for qrels; for the others (where trec_eval's default would fail)
 * the nickname of that kind's measures, `prefs` or `qrels_jg`.
 */
export function defaultMeasuresFor(format: RelevanceFormat): readonly string[] {
  if (format === 'prefs') return ['prefs'];
  if (format === 'qrels_jg') return ['qrels_jg'];
  return DEFAULT_MEASURES;
}

const FORMAT_OPTION: Record<RelevanceFormat, string> = {
  qrels: 'TREC qrels (-R qrels)',
  qrels_jg: 'qrels with judgment groups (-R qrels_jg)',
  prefs: 'preferences (-R prefs or -R qrels_prefs)',
};

/**
 * Throws MeasureSpecError for the first measure that cannot be computed from `format`
 * relevance information (as trec_eval fails on `-R prefs -m map`). runid and num_q go with
 * every format.
 */
export function checkRelevanceFormat(
  measures: readonly ResolvedMeasure[],
  format: RelevanceFormat,
): void {
  for (const rm of measures) {
    const needs = rm.definition.relevance ?? 'qrels';
    if (needs === 'any' || needs === format) continue;
    throw new MeasureSpecError(
      rm.names[0] ?? rm.definition.name,
      `needs ${FORMAT_OPTION[needs]}, but the relevance file is read as ${FORMAT_OPTION[format]}`,
    );
  }
}

/**
 * Resolves `-m` arguments the way trec_eval 10.0 does: nicknames expand, the first
 * parameter list given for a measure wins, and output follows trec_eval's measure order.
 * ir_measures names (anything with `@`, `(`, or a known ir_measures name) come after,
 * in the order given.
 */
export function resolveMeasures(specs: readonly string[]): ResolvedMeasure[] {
  const requested = specs.length ? specs : DEFAULT_MEASURES;
  const marked = new Set<string>();
  const paramText = new Map<string, string>();
  const irSpecs: string[] = [];
  for (const raw of requested) {
    const spec = raw.trim();
    if (isIrMeasuresName(spec)) {
      if (!irSpecs.includes(spec)) irSpecs.push(spec);
      continue;
    }
    const dot = spec.indexOf('.');
    const name = dot < 0 ? spec : spec.slice(0, dot);
    if (dot >= 0) {
      const text = spec.slice(dot + 1);
      if (text === '') throw new MeasureSpecError(spec, 'a dot must be followed by parameters');
      if (!paramText.has(name)) paramText.set(name, text);
    }
    const nick = TREC_NICKNAMES[name];
    if (nick) for (const n of nick) marked.add(n);
    else if (findTrecMeasure(name)) marked.add(name);
    else if (aliasToIrMeasure(spec) !== undefined) {
      // A name users type for an ir_measures measure (`MAP`, `P_10`, `ndcg_cut_10`).
      if (!irSpecs.includes(spec)) irSpecs.push(spec);
    } else throw unknownMeasure(spec);
  }
  const resolved: ResolvedMeasure[] = [];
  for (const definition of TREC_MEASURES) {
    if (!marked.has(definition.name)) continue;
    const text = paramText.get(definition.name);
    const params = parseParams(definition, text);
    resolved.push({ definition, params, names: outputNames(definition, params) });
  }
  for (const spec of irSpecs) resolved.push(resolveIrMeasure(spec));
  return resolved;
}

function knownNamesHint(): string {
  return [
    ...Object.keys(TREC_NICKNAMES),
    'P.10',
    'ndcg_cut.10',
    'nDCG@10',
    'P(rel=2)@10',
    'Judged@10',
    'ERR@10',
  ].join(', ');
}

/** Every name a measure can be asked for by, for "did you mean" (earlier wins ties). */
function suggestibleNames(): string[] {
  return [
    ...IR_NAMES,
    ...TREC_MEASURES.map((d) => d.name),
    ...Object.keys(TREC_NICKNAMES),
    ...Object.keys(ALIASES),
  ];
}

/** The error for a name nothing resolves, with the closest known name when one is close. */
function unknownMeasure(spec: string): MeasureSpecError {
  const match = /^([A-Za-z0-9_]+?)((?:\([^)]*\))?(?:[@_.][0-9.,]+)?)$/.exec(spec);
  const base = match ? match[1]! : spec;
  const rest = match ? match[2]! : '';
  const close = closestName(base, suggestibleNames());
  if (close !== undefined) {
    // Write the suggestion the way its own syntax takes a cutoff.
    const suffix = IR_NAMES.has(close) ? rest.replace(/^[_.]/, '@') : rest;
    return new MeasureSpecError(spec, `unknown measure; did you mean '${close}${suffix}'?`);
  }
  return new MeasureSpecError(spec, `unknown measure (try one of: ${knownNamesHint()})`);
}

/**
 * Names users commonly type, lower-cased, and the ir_measures measure each stands for:
 * `MAP` is AP, `MRR@10` is RR@10, `recall@100` is R@100, `P_10` is P@10, `ndcg_cut_10` is
 * nDCG@10.
 */
const ALIASES: Readonly<Record<string, string>> = {
  ap: 'AP',
  map: 'AP',
  map_cut: 'AP',
  rr: 'RR',
  mrr: 'RR',
  recip_rank: 'RR',
  ndcg: 'nDCG',
  ndcg_cut: 'nDCG',
  p: 'P',
  prec: 'P',
  precision: 'P',
  r: 'R',
  recall: 'R',
  success: 'Success',
  judged: 'Judged',
  bpref: 'Bpref',
  infap: 'infAP',
  rprec: 'Rprec',
  setp: 'SetP',
  set_p: 'SetP',
  setr: 'SetR',
  set_recall: 'SetR',
  setf: 'SetF',
  set_f: 'SetF',
  iprec: 'IPrec',
  rbp: 'RBP',
  numret: 'NumRet',
  num_ret: 'NumRet',
  numrel: 'NumRel',
  num_rel: 'NumRel',
  numrelret: 'NumRelRet',
  num_rel_ret: 'NumRelRet',
  err: 'ERR',
  nerr: 'nERR',
  compat: 'Compat',
};

const ALIAS_SYNTAX = /^([A-Za-z_]+?)(\([^)]*\))?(?:[@_.]([0-9]+(?:\.[0-9]+)?))?$/;

/**
 * The ir_measures spelling of an alias (case-insensitive; the cutoff after `@`, `_` or `.`),
 * or undefined when `spec` is no alias.
 */
export function aliasToIrMeasure(spec: string): string | undefined {
  const match = ALIAS_SYNTAX.exec(spec);
  if (!match) return undefined;
  const base = ALIASES[match[1]!.toLowerCase()];
  if (base === undefined) return undefined;
  return `${base}${match[2] ?? ''}${match[3] === undefined ? '' : `@${match[3]}`}`;
}

/** Parses the text after the dot according to the measure's parameter style. */
export function parseParams(
  definition: MeasureDefinition,
  text: string | undefined,
): MeasureParams {
  const spec = text === undefined ? definition.name : `${definition.name}.${text}`;
  switch (definition.params) {
    case 'none':
      if (text !== undefined) throw new MeasureSpecError(spec, 'this measure takes no parameters');
      return { numbers: [], pairs: [] };
    case 'cutoffs': {
      if (text === undefined) return { numbers: [...(definition.defaults ?? [])], pairs: [] };
      const numbers = text.split(',').map((s) => parseLeadingInteger(spec, s));
      numbers.sort((a, b) => a - b);
      if (numbers[0]! <= 0) throw new MeasureSpecError(spec, 'cutoffs must be positive');
      assertUnique(spec, numbers);
      return { text, numbers, pairs: [] };
    }
    case 'realCutoffs': {
      if (text === undefined) return { numbers: [...(definition.defaults ?? [])], pairs: [] };
      const numbers = text.split(',').map((s) => parseReal(spec, s));
      numbers.sort((a, b) => a - b);
      assertUnique(spec, numbers);
      return { text, numbers, pairs: [] };
    }
    case 'reals': {
      if (text === undefined) return { numbers: [...(definition.defaults ?? [])], pairs: [] };
      return { text, numbers: text.split(',').map((s) => parseReal(spec, s)), pairs: [] };
    }
    case 'pairs': {
      if (text === undefined) return { numbers: [], pairs: [] };
      const pairs = text.split(',').map((item) => {
        const eq = item.indexOf('=');
        if (eq <= 0 || item.indexOf('=', eq + 1) >= 0) {
          throw new MeasureSpecError(spec, `expected name=value pairs, got '${item}'`);
        }
        return { name: item.slice(0, eq), value: parseReal(spec, item.slice(eq + 1)) };
      });
      return { text, numbers: [], pairs };
    }
  }
}

function outputNames(definition: MeasureDefinition, params: MeasureParams): string[] {
  switch (definition.params) {
    case 'cutoffs':
      return params.numbers.map((k) => `${definition.name}_${k}`);
    case 'realCutoffs':
      return params.numbers.map((k) => `${definition.name}_${formatFixed(k, 2)}`);
    default:
      return [params.text === undefined ? definition.name : `${definition.name}_${params.text}`];
  }
}

function parseLeadingInteger(spec: string, s: string): number {
  const match = /^\s*([+-]?\d+)/.exec(s);
  if (!match) throw new MeasureSpecError(spec, `'${s}' is not an integer cutoff`);
  return Number.parseInt(match[1]!, 10);
}

function parseReal(spec: string, s: string): number {
  const trimmed = s.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value))
    throw new MeasureSpecError(spec, `'${s}' is not a number`);
  return value;
}

function assertUnique(spec: string, sorted: number[]): void {
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1])
      throw new MeasureSpecError(spec, `duplicate cutoff ${sorted[i]}`);
  }
}

// ---------------------------------------------------------------- ir_measures names

const IR_NAMES = new Set([
  'AP',
  'RR',
  'nDCG',
  'Bpref',
  'Judged',
  'Success',
  'P',
  'R',
  'SetP',
  'SetR',
  'SetF',
  'IPrec',
  'RBP',
  'NumRet',
  'NumRel',
  'NumRelRet',
  'infAP',
  'Rprec',
  'ERR',
  'nERR',
  'Compat',
]);
const IR_SYNTAX = /^([A-Za-z]+)(?:\(([^)]*)\))?(?:@([0-9.]+))?$/;

/** True when `spec` is written in ir_measures syntax rather than trec_eval's. */
export function isIrMeasuresName(spec: string): boolean {
  if (spec.includes('@') || spec.includes('(')) return true;
  return IR_NAMES.has(spec) && !findTrecMeasure(spec);
}

/**
 * Resolves an ir_measures name, or an alias of one (then resolved as its ir_measures
 * spelling); either way the output keeps the name as typed.
 */
function resolveIrMeasure(typed: string): ResolvedMeasure {
  const exact = IR_SYNTAX.exec(typed);
  if (exact && IR_NAMES.has(exact[1]!)) return resolveIrSpelling(typed, typed);
  const canonical = aliasToIrMeasure(typed);
  if (canonical === undefined) throw unknownMeasure(typed);
  return resolveIrSpelling(canonical, typed);
}

function resolveIrSpelling(spec: string, typed: string): ResolvedMeasure {
  const match = IR_SYNTAX.exec(spec);
  if (!match || !IR_NAMES.has(match[1]!)) throw unknownMeasure(typed);
  const [, base, optionText, cutoffText] = match;
  const options = new Map<string, string>();
  for (const part of (optionText ?? '').split(',').filter((p) => p.trim())) {
    const [key, value] = part.split('=').map((s) => s.trim());
    if (!key || value === undefined) throw new MeasureSpecError(spec, `bad option '${part}'`);
    options.set(key, value);
  }
  const rel = options.get('rel');
  const relevanceLevel = rel === undefined ? undefined : parseLeadingInteger(spec, rel);
  for (const key of options.keys()) {
    const allowed =
      base === 'RBP' ? ['rel', 'p'] : base === 'Compat' ? ['p', 'normalize'] : ['rel'];
    if (!allowed.includes(key)) throw new MeasureSpecError(spec, `unsupported option '${key}'`);
  }
  const cutoff = cutoffText === undefined ? undefined : Number(cutoffText);
  const needsCutoff = (what: string): number => {
    if (cutoff === undefined)
      throw new MeasureSpecError(spec, `${what} needs a cutoff, e.g. ${base}@10`);
    if (!Number.isInteger(cutoff) || cutoff <= 0)
      throw new MeasureSpecError(spec, 'cutoff must be a positive integer');
    return cutoff;
  };
  const noCutoff = () => {
    if (cutoff !== undefined) throw new MeasureSpecError(spec, `${base} takes no cutoff`);
  };
  const trec = (
    name: string,
    numbers: number[] = [],
    pairs: MeasureParams['pairs'] = [],
  ): ResolvedMeasure => ({
    definition: findTrecMeasure(name)!,
    params: { numbers, pairs },
    names: [typed],
    ...(relevanceLevel === undefined ? {} : { relevanceLevel }),
  });
  const custom = (
    doc: string,
    fn: Parameters<typeof customMeasure>[2],
    linearInLabels = false,
  ): ResolvedMeasure => ({
    definition: customMeasure(typed, doc, fn, { linearInLabels }),
    params: { numbers: [], pairs: [] },
    names: [typed],
    ...(relevanceLevel === undefined ? {} : { relevanceLevel }),
  });
  switch (base) {
    case 'AP':
      return cutoff === undefined ? trec('map') : trec('map_cut', [needsCutoff('AP')]);
    case 'RR':
      if (cutoff === undefined) return trec('recip_rank');
      {
        const k = needsCutoff('RR');
        return custom(`Reciprocal rank within the top ${k}`, (t) => m.reciprocalRank(t, k));
      }
    case 'nDCG':
      if (relevanceLevel !== undefined)
        throw new MeasureSpecError(spec, 'nDCG uses graded gains; rel= does not apply');
      return cutoff === undefined ? trec('ndcg') : trec('ndcg_cut', [needsCutoff('nDCG')]);
    case 'P':
      return trec('P', [needsCutoff('P')]);
    case 'R':
      return trec('recall', [needsCutoff('R')]);
    case 'Success':
      return trec('success', [needsCutoff('Success')]);
    case 'ERR':
    case 'nERR': {
      if (relevanceLevel !== undefined)
        throw new MeasureSpecError(typed, `${base} uses graded gains; rel= does not apply`);
      const k = cutoff === undefined ? Infinity : needsCutoff(base);
      return base === 'ERR'
        ? custom(`Expected reciprocal rank (gdeval's grades 0..4) within the top ${k}`, (t) =>
            expectedReciprocalRank(t, k),
          )
        : custom(`ERR within the top ${k}, over the ideal ranking's`, (t) =>
            normalizedExpectedReciprocalRank(t, k),
          );
    }
    case 'Compat': {
      noCutoff();
      const pText = options.get('p');
      const p = pText === undefined ? COMPAT_P : parseReal(spec, pText);
      if (!(p > 0 && p < 1)) throw new MeasureSpecError(typed, 'p must lie between 0 and 1');
      const normalizeText = (options.get('normalize') ?? 'true').toLowerCase();
      if (!['true', 'false', '1', '0'].includes(normalizeText))
        throw new MeasureSpecError(typed, 'normalize must be True or False');
      const normalize = normalizeText === 'true' || normalizeText === '1';
      return custom(
        `Compatibility with the ideal ranking (RBO, p = ${p}${normalize ? ', normalised' : ''})`,
        (t) => compatibility(t, p, normalize),
      );
    }
    case 'Judged': {
      const k = needsCutoff('Judged');
      return custom(`Fraction of the top ${k} with a judgment`, (t) => m.judgedAt(t, k), true);
    }
    case 'Bpref':
      noCutoff();
      return trec('bpref');
    case 'infAP':
      noCutoff();
      return trec('infAP');
    case 'Rprec':
      noCutoff();
      return trec('Rprec');
    case 'SetP':
      noCutoff();
      return trec('set_P');
    case 'SetR':
      noCutoff();
      return trec('set_recall');
    case 'SetF':
      noCutoff();
      return trec('set_F', [1]);
    case 'NumRet':
      noCutoff();
      return relevanceLevel === undefined ? trec('num_ret') : trec('num_rel_ret');
    case 'NumRel':
      noCutoff();
      return trec('num_rel');
    case 'NumRelRet':
      noCutoff();
      return trec('num_rel_ret');
    case 'IPrec': {
      if (cutoff === undefined)
        throw new MeasureSpecError(spec, 'IPrec needs a recall level, e.g. IPrec@0.5');
      return trec('iprec_at_recall', [cutoff]);
    }
    case 'RBP': {
      noCutoff();
      const p = options.get('p');
      return trec('rbp', [], p === undefined ? [] : [{ name: 'p', value: parseReal(spec, p) }]);
    }
    default:
      throw new MeasureSpecError(spec, 'not a known ir_measures name');
  }
}
