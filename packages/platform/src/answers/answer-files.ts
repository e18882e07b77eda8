// Readers of the JSONL files of answer evaluation: responses (assay's own form and the
// TREC RAG track's answer forms), gold answers, scored examples and score files. Each
// reads the whole text first and fails on the first bad line with `file:line: reason`
// (invalid_input), so a caller never keeps part of a file.
import type { JudgeTemplate } from '@assay/judge';
import type { AnswerScore } from '@assay/stats';
import { unstorableJson } from '@assay/trec';
import { PlatformError } from '../core/errors.js';

/** One sentence of an answer with the ids of the passages it cites, in citation order. */
export interface AnswerSentence {
  text: string;
  citations: string[];
}

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
  /** The answer as sentences with their citations (TREC RAG answers); `answer` joins them. */
  sentences?: AnswerSentence[];
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

/** invalid_input `file:line: reason`. */
export function lineError(file: string, line: number, reason: string): PlatformError {
  return new PlatformError('invalid_input', `${file}:${line}: ${reason}`, { file, line });
}

/**
 * Calls `read` with each non-blank line parsed as a JSON object; a line that is not one,
 * is nested too deep or holds a NUL character fails with `file:line`.
 */
export function eachJsonLine(
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
    const unstorable = unstorableJson(value, 'line');
    if (unstorable) throw lineError(file, i + 1, unstorable);
    read(value as Record<string, unknown>, i + 1);
  });
}

/** A required id (topic, system): a non-empty string or a number, trimmed. */
export function idField(value: Record<string, unknown>, name: string, file: string, line: number) {
  const v = value[name];
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || v.trim() === '')
    throw lineError(file, line, `"${name}" must be a non-empty string`);
  return v.trim();
}

/** A required non-blank text. */
export function textField(
  value: Record<string, unknown>,
  name: string,
  file: string,
  line: number,
) {
  const v = value[name];
  if (typeof v !== 'string' || v.trim() === '')
    throw lineError(file, line, `"${name}" must be a non-empty string`);
  return v;
}

/** Reads `references`: a list of non-empty strings (passage ids or texts). */
function referencesField(value: unknown, file: string, line: number): string[] {
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'string' || r.trim() === ''))
    throw lineError(file, line, '"references" must be a list of non-empty strings');
  return value as string[];
}

/**
 * Reads an answer given as sentences, `[{"text", "citations"}]`: a citation is a passage
 * id, or a number, the (zero-based) position of the passage in `references`.
 */
function sentencesField(
  value: unknown[],
  references: readonly string[] | undefined,
  file: string,
  line: number,
): AnswerSentence[] {
  if (value.length === 0) throw lineError(file, line, '"answer" has no sentences');
  const known = references && new Set(references);
  return value.map((raw, i) => {
    const where = `answer[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw lineError(file, line, `${where} must be an object {"text", "citations"}`);
    const sentence = raw as Record<string, unknown>;
    if (typeof sentence.text !== 'string')
      throw lineError(file, line, `${where}.text must be a string`);
    const cited = sentence.citations ?? [];
    if (!Array.isArray(cited))
      throw lineError(file, line, `${where}.citations must be a list of passage ids or positions`);
    const citations = cited.map((c: unknown, k) => {
      if (typeof c === 'number') {
        if (!Number.isInteger(c) || c < 0)
          throw lineError(file, line, `${where}.citations[${k}] ${c} is not a position (0, 1, …)`);
        if (!references || c >= references.length)
          throw lineError(
            file,
            line,
            `${where}.citations[${k}] is position ${c}, but "references" has ${references?.length ?? 0} passages`,
          );
        return references[c]!;
      }
      if (typeof c !== 'string' || c.trim() === '')
        throw lineError(file, line, `${where}.citations[${k}] must be a passage id or a position`);
      if (known && !known.has(c))
        throw lineError(
          file,
          line,
          `${where}.citations[${k}] ${JSON.stringify(c)} is not among "references"`,
        );
      return c;
    });
    return { text: sentence.text.trim(), citations };
  });
}

/**
 * One line of a responses file in any of the forms assay reads: its own
 * `{"topic","system","answer","query"?,"references"?}` (`answer` a text, or sentences
 * `[{"text","citations"}]`); the TREC RAG 2024 answer `{"run_id","topic_id","topic",
 * "references","answer":[{"text","citations":[positions]}]}`; the TREC RAG 2025 answer
 * `{"metadata":{"run_id","narrative_id","narrative",…},"references","answer":[…]}` with
 * citations as positions in `references` or as passage ids.
 */
function readResponse(value: Record<string, unknown>, file: string, line: number): AnswerResponse {
  const meta = value.metadata;
  let source: Record<string, unknown> = value;
  let names = { topic: 'topic', system: 'system', query: 'query' };
  if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
    source = meta as Record<string, unknown>;
    names = { topic: 'narrative_id', system: 'run_id', query: 'narrative' };
  } else if (value.topic_id !== undefined) {
    names = { topic: 'topic_id', system: 'run_id', query: 'topic' };
  }
  const idOf = (name: string) => {
    try {
      return idField(source, name, file, line);
    } catch (error) {
      if (source === value) throw error;
      throw lineError(file, line, `"metadata.${name}" must be a non-empty string`);
    }
  };
  const response: AnswerResponse = {
    topic: idOf(names.topic),
    system: idOf(names.system),
    answer: '',
  };
  const query = source[names.query];
  if (query !== undefined) {
    if (typeof query !== 'string' || query.trim() === '')
      throw lineError(file, line, `"${names.query}" must be a non-empty string`);
    response.query = query;
  }
  if (value.references !== undefined)
    response.references = referencesField(value.references, file, line);
  if (Array.isArray(value.answer)) {
    response.sentences = sentencesField(value.answer, response.references, file, line);
    response.answer = response.sentences
      .map((s) => s.text)
      .filter((t) => t !== '')
      .join(' ');
    if (response.answer === '') throw lineError(file, line, '"answer" has no text');
  } else response.answer = textField(value, 'answer', file, line);
  // The path the system took for the topic (SRSA's strategy), when it says.
  if (value.route !== undefined) response.route = idField(value, 'route', file, line);
  return response;
}

/**
 * Reads responses, one answer per line, in assay's own form or a TREC RAG track's (see
 * readResponse); the forms may be mixed. `references` is a list of document ids or texts.
 * A (topic, system) given twice is an error.
 */
export function parseResponses(text: string, file = '<responses>'): AnswerResponse[] {
  const out: AnswerResponse[] = [];
  const seen = new Map<string, number>();
  eachJsonLine(text, file, (value, line) => {
    const response = readResponse(value, file, line);
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
