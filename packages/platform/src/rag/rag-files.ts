// The JSONL files of RAG evaluation: nugget banks (`{"qid","nuggets":[{"text","importance",
// …}]}`, the track's form, unknown fields kept), nugget assignments in nuggetizer's form
// (`{"qid","system","nuggets":[{"text","importance","assignment"}]}`), citation support
// assessments, rubrics (`{"qid","rubrics":[{"criterion","weight","axis"}],…}`) and rubric
// judgments. Every reader checks the whole text before returning and fails on the first bad
// line with `file:line: reason`.
import type { JsonObject, JsonValue } from '@assay/db';
import {
  NUGGET_ASSIGNMENTS,
  RUBRIC_JUDGMENTS,
  SUPPORT_LABELS,
  type NuggetAssignment,
  type NuggetImportance,
  type RubricJudgment,
  type SupportLabel,
} from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import { eachJsonLine, idField, lineError } from '../answers/answer-files.js';

/** A nugget of a bank file: text, importance, and the fields assay does not know. */
export interface BankNugget {
  text: string;
  importance: NuggetImportance;
  extra: JsonObject;
}

/** A topic's line of a nugget bank file. */
export interface BankTopic {
  qid: string;
  nuggets: BankNugget[];
  /** The line's other fields. */
  extra: JsonObject;
}

/** An answer's nugget assignments in nuggetizer's form. */
export interface NuggetAssignmentRecord {
  qid: string;
  system: string;
  nuggets: Array<{ text: string; importance: NuggetImportance; assignment: NuggetAssignment }>;
}

/** An answer's citation support in assay's form. */
export interface SupportRecord {
  qid: string;
  system: string;
  sentences: Array<{ text: string; citations: Array<{ docid: string; support: SupportLabel }> }>;
}

/** A criterion of a topic's rubric. */
export interface RubricCriterion {
  criterion: string;
  weight: number;
  axis?: string;
  extra: JsonObject;
}

/** A topic's line of a rubric file. */
export interface RubricTopic {
  qid: string;
  criteria: RubricCriterion[];
  extra: JsonObject;
}

/** An answer's rubric judgments in assay's form. */
export interface RubricJudgmentRecord {
  qid: string;
  system: string;
  criteria: Array<{ criterion: string; weight: number; axis?: string; judgment: RubricJudgment }>;
}

function without(value: Record<string, unknown>, known: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (!known.includes(key)) out[key] = v as JsonValue;
  return out;
}

function objectAt(list: unknown[], i: number, what: string, file: string, line: number) {
  const v = list[i];
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw lineError(file, line, `${what}[${i}] must be an object`);
  return v as Record<string, unknown>;
}

function listField(value: Record<string, unknown>, name: string, file: string, line: number) {
  const v = value[name];
  if (!Array.isArray(v)) throw lineError(file, line, `"${name}" must be a list`);
  return v as unknown[];
}

function stringAt(
  value: Record<string, unknown>,
  name: string,
  where: string,
  file: string,
  line: number,
) {
  const v = value[name];
  if (typeof v !== 'string' || v.trim() === '')
    throw lineError(file, line, `${where}.${name} must be a non-empty string`);
  return v.trim();
}

function oneOf<T extends string>(
  value: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
  where: string,
  file: string,
  line: number,
): T {
  const v = value[name];
  const lower = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (typeof lower !== 'string' || !(allowed as readonly string[]).includes(lower))
    throw lineError(
      file,
      line,
      `${where}.${name} must be ${allowed.map((a) => `"${a}"`).join(', ')}, not ${JSON.stringify(v)}`,
    );
  return lower as T;
}

const IMPORTANCES = ['vital', 'okay'] as const satisfies readonly NuggetImportance[];

/** Calls `read` per line and refuses a key (topic, or topic and system) given twice. */
function uniqueLines<T>(
  text: string,
  file: string,
  what: string,
  read: (value: Record<string, unknown>, line: number) => T & { qid: string; system?: string },
): T[] {
  const out: T[] = [];
  const seen = new Map<string, number>();
  eachJsonLine(text, file, (value, line) => {
    const record = read(value, line);
    const key = JSON.stringify([record.qid, record.system ?? null]);
    const first = seen.get(key);
    if (first !== undefined)
      throw lineError(
        file,
        line,
        `topic ${record.qid}${record.system === undefined ? '' : `, system ${record.system},`} is on line ${first} already`,
      );
    seen.set(key, line);
    out.push(record);
  });
  if (out.length === 0) throw new PlatformError('invalid_input', `${file}: no ${what}`);
  return out;
}

/**
 * Reads a nugget bank: one line per topic, `{"qid","nuggets":[{"text","importance"}]}`,
 * importance `vital` or `okay` (any case); every other field of a line or a nugget is kept.
 */
export function parseNuggetBank(text: string, file = '<nuggets>'): BankTopic[] {
  return uniqueLines(text, file, 'topics', (value, line) => {
    const qid = idField(value, 'qid', file, line);
    const list = listField(value, 'nuggets', file, line);
    const nuggets = list.map((_, i) => {
      const n = objectAt(list, i, 'nuggets', file, line);
      return {
        text: stringAt(n, 'text', `nuggets[${i}]`, file, line),
        importance: oneOf(n, 'importance', IMPORTANCES, `nuggets[${i}]`, file, line),
        extra: without(n, ['text', 'importance']),
      };
    });
    return { qid, nuggets, extra: without(value, ['qid', 'nuggets']) };
  });
}

/** A nugget bank as JSONL, one line per topic, unknown fields as they were read. */
export function formatNuggetBank(topics: readonly BankTopic[]): string {
  return topics
    .map(
      (t) =>
        `${JSON.stringify({
          qid: t.qid,
          ...t.extra,
          nuggets: t.nuggets.map((n) => ({ text: n.text, importance: n.importance, ...n.extra })),
        })}\n`,
    )
    .join('');
}

/**
 * Reads nugget assignments in nuggetizer's form, one line per (topic, system):
 * `{"qid","system","nuggets":[{"text","importance","assignment"}]}` with assignment
 * `support`, `partial_support` or `not_support`. Other fields are ignored.
 */
export function parseNuggetAssignments(
  text: string,
  file = '<assignments>',
): NuggetAssignmentRecord[] {
  return uniqueLines(text, file, 'assignments', (value, line) => {
    const list = listField(value, 'nuggets', file, line);
    return {
      qid: idField(value, 'qid', file, line),
      system: idField(value, 'system', file, line),
      nuggets: list.map((_, i) => {
        const n = objectAt(list, i, 'nuggets', file, line);
        const where = `nuggets[${i}]`;
        return {
          text: stringAt(n, 'text', where, file, line),
          importance: oneOf(n, 'importance', IMPORTANCES, where, file, line),
          assignment: oneOf(n, 'assignment', NUGGET_ASSIGNMENTS, where, file, line),
        };
      }),
    };
  });
}

/** Nugget assignments as JSONL in nuggetizer's form. */
export function formatNuggetAssignments(records: readonly NuggetAssignmentRecord[]): string {
  return records
    .map(
      (r) =>
        `${JSON.stringify({
          qid: r.qid,
          system: r.system,
          nuggets: r.nuggets.map((n) => ({
            text: n.text,
            importance: n.importance,
            assignment: n.assignment,
          })),
        })}\n`,
    )
    .join('');
}

/**
 * Reads citation support assessments, one line per (topic, system):
 * `{"qid","system","sentences":[{"text","citations":[{"docid","support"}]}]}` with support
 * `full`, `partial`, `none` or `cannot_assess`.
 */
export function parseSupportAssessments(text: string, file = '<support>'): SupportRecord[] {
  return uniqueLines(text, file, 'support assessments', (value, line) => {
    const list = listField(value, 'sentences', file, line);
    return {
      qid: idField(value, 'qid', file, line),
      system: idField(value, 'system', file, line),
      sentences: list.map((_, i) => {
        const s = objectAt(list, i, 'sentences', file, line);
        const where = `sentences[${i}]`;
        if (typeof s.text !== 'string')
          throw lineError(file, line, `${where}.text must be a string`);
        const cited = s.citations ?? [];
        if (!Array.isArray(cited)) throw lineError(file, line, `${where}.citations must be a list`);
        return {
          text: s.text,
          citations: cited.map((_, k) => {
            const c = objectAt(cited, k, `${where}.citations`, file, line);
            return {
              docid: stringAt(c, 'docid', `${where}.citations[${k}]`, file, line),
              support: oneOf(c, 'support', SUPPORT_LABELS, `${where}.citations[${k}]`, file, line),
            };
          }),
        };
      }),
    };
  });
}

/** Citation support assessments as JSONL. */
export function formatSupportAssessments(records: readonly SupportRecord[]): string {
  return records
    .map((r) => `${JSON.stringify({ qid: r.qid, system: r.system, sentences: r.sentences })}\n`)
    .join('');
}

/**
 * Reads per-topic rubrics, one line per topic: `{"qid","rubrics":[{"criterion","weight",
 * "axis"}]}` (the form of ResearchRubrics as TREC RAG 2026 ships it), weights from −5 to 5;
 * other fields of a line or a criterion are kept. A topic needs a criterion of positive
 * weight (its score is normalised by their sum).
 */
export function parseRubrics(text: string, file = '<rubrics>'): RubricTopic[] {
  return uniqueLines(text, file, 'rubrics', (value, line) => {
    const qid = idField(value, 'qid', file, line);
    const list = listField(value, 'rubrics', file, line);
    const criteria = list.map((_, i) => {
      const c = objectAt(list, i, 'rubrics', file, line);
      const where = `rubrics[${i}]`;
      const weight = c.weight;
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < -5 || weight > 5)
        throw lineError(
          file,
          line,
          `${where}.weight must be a number from -5 to 5, not ${JSON.stringify(weight)}`,
        );
      const criterion: RubricCriterion = {
        criterion: stringAt(c, 'criterion', where, file, line),
        weight,
        extra: without(c, ['criterion', 'weight', 'axis']),
      };
      if (c.axis !== undefined && c.axis !== null)
        criterion.axis = stringAt(c, 'axis', where, file, line);
      return criterion;
    });
    if (!criteria.some((c) => c.weight > 0))
      throw lineError(
        file,
        line,
        `topic ${qid} has no criterion of positive weight to score against`,
      );
    return { qid, criteria, extra: without(value, ['qid', 'rubrics']) };
  });
}

/**
 * Reads rubric judgments, one line per (topic, system): `{"qid","system","criteria":
 * [{"criterion","weight","axis"?,"judgment"}]}` with judgment `met`, `partly_met` or
 * `not_met`.
 */
export function parseRubricJudgments(text: string, file = '<judgments>'): RubricJudgmentRecord[] {
  return uniqueLines(text, file, 'rubric judgments', (value, line) => {
    const list = listField(value, 'criteria', file, line);
    const criteria = list.map((_, i) => {
      const c = objectAt(list, i, 'criteria', file, line);
      const where = `criteria[${i}]`;
      const weight = c.weight;
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < -5 || weight > 5)
        throw lineError(file, line, `${where}.weight must be a number from -5 to 5`);
      const out: RubricJudgmentRecord['criteria'][number] = {
        criterion: stringAt(c, 'criterion', where, file, line),
        weight,
        judgment: oneOf(c, 'judgment', RUBRIC_JUDGMENTS, where, file, line),
      };
      if (typeof c.axis === 'string' && c.axis.trim() !== '') out.axis = c.axis.trim();
      return out;
    });
    const qid = idField(value, 'qid', file, line);
    if (!criteria.some((c) => c.weight > 0))
      throw lineError(
        file,
        line,
        `topic ${qid} has no criterion of positive weight to score against`,
      );
    return { qid, system: idField(value, 'system', file, line), criteria };
  });
}

/** Rubric judgments as JSONL. */
export function formatRubricJudgments(records: readonly RubricJudgmentRecord[]): string {
  return records
    .map((r) => `${JSON.stringify({ qid: r.qid, system: r.system, criteria: r.criteria })}\n`)
    .join('');
}
