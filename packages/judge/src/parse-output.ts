import { checkSchema } from '@assay/llm';
import type { JudgeTemplate } from './template.js';

/** A judge answer read successfully. */
export interface ParsedJudgment {
  /** The answer's fields (validated against the template's schema). */
  fields: Record<string, unknown>;
  /** The grade for relevance judges (the template's grade field). */
  grade?: number;
  /** Per-criterion scores for answer-quality and groundedness judges. */
  scores?: Record<string, number>;
  /** How the answer was read: as the JSON asked for, or from a labelled line of text. */
  via: 'json' | 'text';
}

/** The outcome of reading a judge's raw answer: never a silent default. */
export type ParseResult = { ok: true; judgment: ParsedJudgment } | { ok: false; reason: string };

/**
 * Reads a judge's raw answer. JSON is looked for first (a bare object, one inside a
 * ```json fence, or the first balanced {...} in the text) and checked against the
 * template's schema. When there is no readable JSON at all, a relevance judge's answer may
 * carry its grade on an explicitly labelled line (`grade: 2`, `"relevant": 1`, `final score: 3`); a bare number
 * somewhere in prose is never taken as a grade.
 */
export function parseJudgeOutput(raw: string, template: JudgeTemplate): ParseResult {
  const candidate = extractJson(raw);
  let jsonReason: string | undefined;
  let schemaFailed = false;
  if (candidate !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      jsonReason = 'the JSON in the answer does not parse';
    }
    if (jsonReason === undefined) {
      const problem = checkSchema(value, template.schema, '$');
      if (problem) {
        jsonReason = `the answer does not match the schema: ${problem}`;
        schemaFailed = true;
      } else
        return {
          ok: true,
          judgment: judgmentOf(value as Record<string, unknown>, template, 'json'),
        };
    }
  }
  // A JSON answer that breaks the schema is asked again rather than half-read.
  if (template.gradeField && !schemaFailed) {
    const grade = labelledGrade(raw, template);
    if (grade !== undefined) {
      return {
        ok: true,
        judgment: { fields: { [template.gradeField]: grade }, grade, via: 'text' },
      };
    }
  }
  return { ok: false, reason: jsonReason ?? 'no JSON object and no labelled grade in the answer' };
}

function judgmentOf(
  fields: Record<string, unknown>,
  template: JudgeTemplate,
  via: 'json' | 'text',
): ParsedJudgment {
  const judgment: ParsedJudgment = { fields, via };
  if (template.gradeField) judgment.grade = fields[template.gradeField] as number;
  if (template.criteria) {
    judgment.scores = Object.fromEntries(template.criteria.map((c) => [c, fields[c] as number]));
  }
  return judgment;
}

function extractJson(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return trimmed;
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(raw);
  if (fence && fence[1]!.trim().startsWith('{')) return fence[1]!.trim();
  const start = raw.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return raw.slice(start, i + 1);
  }
  return undefined;
}

function labelledGrade(raw: string, template: JudgeTemplate): number | undefined {
  const names = [template.gradeField!, 'grade', 'score', 'final score', 'relevance', 'label'];
  const alternation = [...new Set(names)]
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  const pattern = new RegExp(
    `(?:^|[\\s"'#*])(?:${alternation})["']?\\s*[:=]\\s*["']?(-?\\d+)\\b`,
    'gim',
  );
  const found = [...raw.matchAll(pattern)].map((m) => Number(m[1]));
  if (found.length === 0) return undefined;
  const distinct = new Set(found);
  if (distinct.size !== 1) return undefined; // contradictory labels: not trusted
  const grade = found[0]!;
  return grade >= template.scale.min && grade <= template.scale.max ? grade : undefined;
}
