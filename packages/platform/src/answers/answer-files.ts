// Readers of the JSONL files of answer-quality evaluation: responses, gold answers, scored
// examples and score files. Each reads the whole text first and fails on the first bad
// line with `file:line: reason` (invalid_input), so a caller never keeps part of a file.
import type { JudgeTemplate } from '@assay/judge';
import type { AnswerScore } from '@assay/stats';
import { PlatformError } from '../errors.js';

/** One system's answer to one topic. */
export interface AnswerResponse {
  topic: string;
  system: string;
  answer: string;
  /** The request's text when the line carries it (else it comes from a topics file). */
  query?: string;
  /** Documents the answer rests on: document ids or the texts themselves. */
  references?: string[];
  /** The path the system took for this topic (SRSA's route), when it says. */
  route?: string;
}

/** An answer graded by people, shown to the judge as a calibration example. */
export interface ScoredExample {
  query: string;
  answer: string;
  scores: Record<string, number>;
  justification?: string;
}

/** One line of a score file: a system's answer to a topic in one trial, graded. */
export interface AnswerScoreLine extends AnswerScore {
  trial: number;
  scores: Record<string, number>;
  justification: string;
  /** The letter the answer had in a comparative prompt. */
  label?: string;
  /** The path the system took for the topic (SRSA's route), from the response. */
  route?: string;
}

function lineError(file: string, line: number, reason: string): PlatformError {
  return new PlatformError('invalid_input', `${file}:${line}: ${reason}`, { file, line });
}

/** Calls `read` with each non-blank line parsed as a JSON object. */
function eachJsonLine(
  text: string,
  file: string,
  read: (value: Record<string, unknown>, line: number) => void,
): void {
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw lineError(file, i + 1, 'not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw lineError(file, i + 1, 'expected a JSON object');
    read(value as Record<string, unknown>, i + 1);
  });
}

function idField(value: Record<string, unknown>, name: string, file: string, line: number) {
  const v = value[name];
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || v.trim() === '')
    throw lineError(file, line, `"${name}" must be a non-empty string`);
  return v.trim();
}

function textField(value: Record<string, unknown>, name: string, file: string, line: number) {
  const v = value[name];
  if (typeof v !== 'string' || v.trim() === '')
    throw lineError(file, line, `"${name}" must be a non-empty string`);
  return v;
}

/**
 * Reads responses, `{"topic","system","answer","query"?,"references"?,"route"?}` per line;
 * `references` is a list of document ids or texts, `route` the path the system took (SRSA's
 * strategy). A (topic, system) given twice is an error.
 */
export function parseResponses(text: string, file = '<responses>'): AnswerResponse[] {
  const out: AnswerResponse[] = [];
  const seen = new Map<string, number>();
  eachJsonLine(text, file, (value, line) => {
    const response: AnswerResponse = {
      topic: idField(value, 'topic', file, line),
      system: idField(value, 'system', file, line),
      answer: textField(value, 'answer', file, line),
    };
    if (value.query !== undefined) response.query = textField(value, 'query', file, line);
    if (value.references !== undefined) {
      const refs = value.references;
      if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'string' || r.trim() === ''))
        throw lineError(file, line, '"references" must be a list of non-empty strings');
      response.references = refs as string[];
    }
    if (value.route !== undefined) response.route = idField(value, 'route', file, line);
    const key = JSON.stringify([response.topic, response.system]);
    const first = seen.get(key);
    if (first !== undefined)
      throw lineError(
        file,
        line,
        `system ${response.system} already answered topic ${response.topic} on line ${first}`,
      );
    seen.set(key, line);
    out.push(response);
  });
  if (out.length === 0) throw new PlatformError('invalid_input', `${file}: no responses`);
  return out;
}

/** Reads gold answers, `{"topic","answer"}` per line, as topic → answer. */
export function parseGoldAnswers(text: string, file = '<gold>'): Map<string, string> {
  const out = new Map<string, string>();
  eachJsonLine(text, file, (value, line) => {
    const topic = idField(value, 'topic', file, line);
    if (out.has(topic)) throw lineError(file, line, `topic ${topic} has a gold answer already`);
    out.set(topic, textField(value, 'answer', file, line));
  });
  return out;
}

function checkScores(
  value: unknown,
  criteria: readonly string[],
  scale: { min: number; max: number },
  file: string,
  line: number,
  integers: boolean,
): Record<string, number> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw lineError(file, line, '"scores" must be an object of criterion: score');
  const scores = value as Record<string, unknown>;
  const out: Record<string, number> = {};
  for (const c of criteria) {
    const v = scores[c];
    if (typeof v !== 'number' || !Number.isFinite(v) || (integers && !Number.isInteger(v)))
      throw lineError(file, line, `scores.${c} must be ${integers ? 'an integer' : 'a number'}`);
    if (v < scale.min || v > scale.max)
      throw lineError(file, line, `scores.${c} is ${v}, outside ${scale.min}-${scale.max}`);
    out[c] = v;
  }
  for (const key of Object.keys(scores))
    if (!criteria.includes(key)) throw lineError(file, line, `scores.${key} is not a criterion`);
  return out;
}

/**
 * Reads scored examples, `{"query","answer","scores":{criterion: grade},"justification"?}`
 * per line; every criterion of the judge must be graded, on its scale.
 */
export function parseScoredExamples(
  text: string,
  template: JudgeTemplate,
  file = '<examples>',
): ScoredExample[] {
  const criteria = template.criteria ?? [];
  const out: ScoredExample[] = [];
  eachJsonLine(text, file, (value, line) => {
    const example: ScoredExample = {
      query: textField(value, 'query', file, line),
      answer: textField(value, 'answer', file, line),
      scores: checkScores(value.scores, criteria, template.scale, file, line, true),
    };
    if (value.justification !== undefined)
      example.justification = textField(value, 'justification', file, line);
    out.push(example);
  });
  if (out.length === 0) throw new PlatformError('invalid_input', `${file}: no examples`);
  return out;
}

/**
 * Reads a score file as `assay answers score` writes it:
 * `{"topic","system","trial","scores":{criterion: value},"justification","label"?,"route"?}`
 * per line.
 * Every line must grade the same criteria as the first; (topic, system, trial) is unique.
 */
export function parseScoreLines(text: string, file = '<scores>'): AnswerScoreLine[] {
  const out: AnswerScoreLine[] = [];
  let criteria: string[] | undefined;
  const seen = new Set<string>();
  eachJsonLine(text, file, (value, line) => {
    const topic = idField(value, 'topic', file, line);
    const system = idField(value, 'system', file, line);
    const trial = value.trial ?? 1;
    if (typeof trial !== 'number' || !Number.isInteger(trial) || trial < 1)
      throw lineError(file, line, '"trial" must be a positive integer');
    const raw = value.scores;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw lineError(file, line, '"scores" must be an object of criterion: score');
    criteria ??= Object.keys(raw);
    if (criteria.length === 0) throw lineError(file, line, '"scores" is empty');
    const scores = checkScores(raw, criteria, { min: -Infinity, max: Infinity }, file, line, false);
    const key = JSON.stringify([topic, system, trial]);
    if (seen.has(key))
      throw lineError(file, line, `topic ${topic}, system ${system}, trial ${trial} given twice`);
    seen.add(key);
    const justification = typeof value.justification === 'string' ? value.justification : '';
    const row: AnswerScoreLine = { topic, system, trial, scores, justification };
    if (typeof value.label === 'string') row.label = value.label;
    if (typeof value.route === 'string' && value.route !== '') row.route = value.route;
    out.push(row);
  });
  if (out.length === 0) throw new PlatformError('invalid_input', `${file}: no scores`);
  return out;
}

/** A score line as JSON, fields in the documented order. */
export function formatScoreLine(row: AnswerScoreLine): string {
  const out: Record<string, unknown> = {
    topic: row.topic,
    system: row.system,
    trial: row.trial,
    scores: row.scores,
    justification: row.justification,
  };
  if (row.label !== undefined) out.label = row.label;
  if (row.route !== undefined) out.route = row.route;
  return JSON.stringify(out);
}
