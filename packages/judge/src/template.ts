import {
  loadPromptFiles,
  parsePromptFile,
  PromptFileError,
  type JsonSchema,
  type PromptFile,
} from '@assay/llm';
import { gradeScaleProblem } from '@assay/trec';
import { z } from 'zod';

/** What judge templates judge: relevance, answers, or the steps of RAG evaluation. */
export const JUDGE_KINDS = [
  'relevance',
  'answer-quality',
  'groundedness',
  'nugget-creation',
  'nugget-importance',
  'nugget-assignment',
  'citation-support',
  'rubric-judgment',
] as const;

/** A judge template's kind. */
export type JudgeKind = (typeof JUDGE_KINDS)[number];

/** Kinds whose answer is a grade (grade_field) or per-criterion scores (criteria). */
const GRADED_KINDS: readonly JudgeKind[] = ['relevance', 'answer-quality', 'groundedness'];

/**
 * A judge template: a prompt file (`judges/<id>.md`) that says what it asks, on which
 * scale, and how its answer looks. Stored whole with each judge job (its hash names the
 * prompt a label set was made with), so its shape stays as it is.
 */
export interface JudgeTemplate extends Omit<PromptFile, 'schema'> {
  kind: JudgeKind;
  scale: { min: number; max: number };
  /** Lowest grade that counts as relevant (relevance judges). */
  relevantAt?: number;
  /** Meaning of each grade, when the template states it. */
  labels?: Record<string, string>;
  /** JSON schema of the answer, sent as structured-output format where supported. */
  schema: JsonSchema;
  /** Field holding the grade (relevance judges) … */
  gradeField?: string;
  /** … or the criteria each scored on the scale (answer-quality judges). */
  criteria?: string[];
}

/** Values for a template's variables; empty or missing optional values drop their block. */
export type TemplateValues = Record<string, string | undefined>;

/** The front-matter fields of a judge template besides those of every prompt file. */
const JudgeFields = z.object({
  kind: z.enum(JUDGE_KINDS),
  scale: z.object({ min: z.number().int(), max: z.number().int() }),
  relevant_at: z.number().int().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  output: z.object({
    schema: z.record(z.string(), z.unknown()),
    grade_field: z.string().optional(),
    criteria: z.array(z.string()).optional(),
  }),
});

/**
 * Parses a judge template file: a prompt file (see `parsePromptFile`) with the judge's
 * kind, scale and answer: `output.schema` and either `output.grade_field` or
 * `output.criteria`.
 */
export function parseTemplate(text: string, file = '<template>'): JudgeTemplate {
  const { prompt, fields: front } = parsePromptFile(text, file, JudgeFields);
  if (front.scale.min >= front.scale.max)
    throw new PromptFileError(file, 'scale.min must be below scale.max');
  // Its grades become stored labels: a scale such as 0..2000000000 is refused here.
  const scaleProblem = gradeScaleProblem(front.scale.min, front.scale.max);
  if (scaleProblem) throw new PromptFileError(file, `front matter field ${scaleProblem}`);
  if (
    GRADED_KINDS.includes(front.kind) &&
    !front.output.grade_field &&
    !front.output.criteria?.length
  )
    throw new PromptFileError(file, 'output needs grade_field or criteria');
  const { schema: _schema, ...common } = prompt;
  const template: JudgeTemplate = {
    ...common,
    kind: front.kind,
    scale: front.scale,
    schema: front.output.schema,
  };
  if (front.relevant_at !== undefined) template.relevantAt = front.relevant_at;
  if (front.labels) template.labels = front.labels;
  if (front.output.grade_field) template.gradeField = front.output.grade_field;
  if (front.output.criteria) template.criteria = front.output.criteria;
  return template;
}

/** Loads every `<id>.md` judge template in a folder; the file name must match the id. */
export function loadJudgeTemplates(dir: string): Map<string, JudgeTemplate> {
  return loadPromptFiles(dir, parseTemplate);
}
