import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { JsonSchema } from '@assay/llm';
import { gradeScaleProblem } from '@assay/trec';

/** A judge template: what it asks, on which scale, how its answer looks. */
export interface JudgeTemplate {
  id: string;
  kind: 'relevance' | 'answer-quality' | 'groundedness';
  description: string;
  scale: { min: number; max: number };
  /** Lowest grade that counts as relevant (relevance judges). */
  relevantAt?: number;
  /** Meaning of each grade, when the template states it. */
  labels?: Record<string, string>;
  /** Default model parameters (the model name itself comes from configuration). */
  model: { name?: string; temperature?: number; maxTokens?: number };
  /** JSON schema of the answer, sent as structured-output format where supported. */
  schema: JsonSchema;
  /** Field holding the grade (relevance judges) … */
  gradeField?: string;
  /** … or the criteria each scored on the scale (answer-quality judges). */
  criteria?: string[];
  /** Where the rubric comes from. */
  source: string;
  system: string;
  /** The user prompt with `{{name}}` variables and `{{#name}}…{{/name}}` optional blocks. */
  prompt: string;
  /** Variables the prompt uses outside optional blocks (must be given). */
  requiredVariables: string[];
  /** Variables used only inside optional blocks. */
  optionalVariables: string[];
}

/** A template file that cannot be used, with the reason. */
export class TemplateError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'TemplateError';
  }
}

const FrontMatter = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  kind: z.enum(['relevance', 'answer-quality', 'groundedness']),
  description: z.string().min(1),
  scale: z.object({ min: z.number().int(), max: z.number().int() }),
  relevant_at: z.number().int().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  model: z
    .object({
      name: z.string().optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().positive().optional(),
    })
    .default({}),
  output: z.object({
    schema: z.record(z.string(), z.unknown()),
    grade_field: z.string().optional(),
    criteria: z.array(z.string()).optional(),
  }),
  source: z.string().min(1),
  system: z.string().min(1),
});

const VARIABLE = /\{\{\s*([#/]?)([a-z_][a-z0-9_]*)\s*\}\}/g;

/** Parses a judge template file: YAML front matter between `---` lines, then the prompt. */
export function parseTemplate(text: string, file = '<template>'): JudgeTemplate {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match)
    throw new TemplateError(file, 'expected YAML front matter between --- lines, then the prompt');
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new TemplateError(file, `front matter is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = FrontMatter.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TemplateError(
      file,
      `front matter field ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  const fm = parsed.data;
  if (fm.scale.min >= fm.scale.max)
    throw new TemplateError(file, 'scale.min must be below scale.max');
  // Its grades become stored labels: a scale such as 0..2000000000 is refused here.
  const scaleProblem = gradeScaleProblem(fm.scale.min, fm.scale.max);
  if (scaleProblem) throw new TemplateError(file, `front matter field ${scaleProblem}`);
  if (!fm.output.grade_field && !fm.output.criteria?.length) {
    throw new TemplateError(file, 'output needs grade_field or criteria');
  }
  const prompt = match[2]!;
  const { required, optional } = variablesOf(prompt, file);
  const template: JudgeTemplate = {
    id: fm.id,
    kind: fm.kind,
    description: fm.description,
    scale: fm.scale,
    model: {
      ...(fm.model.name === undefined ? {} : { name: fm.model.name }),
      ...(fm.model.temperature === undefined ? {} : { temperature: fm.model.temperature }),
      ...(fm.model.max_tokens === undefined ? {} : { maxTokens: fm.model.max_tokens }),
    },
    schema: fm.output.schema,
    source: fm.source.trim(),
    system: fm.system.trim(),
    prompt,
    requiredVariables: required,
    optionalVariables: optional,
  };
  if (fm.relevant_at !== undefined) template.relevantAt = fm.relevant_at;
  if (fm.labels) template.labels = fm.labels;
  if (fm.output.grade_field) template.gradeField = fm.output.grade_field;
  if (fm.output.criteria) template.criteria = fm.output.criteria;
  return template;
}

function variablesOf(prompt: string, file: string): { required: string[]; optional: string[] } {
  const required = new Set<string>();
  const optional = new Set<string>();
  const open: string[] = [];
  for (const m of prompt.matchAll(VARIABLE)) {
    const [, marker, name] = m as unknown as [string, string, string];
    if (marker === '#') {
      open.push(name);
      optional.add(name);
    } else if (marker === '/') {
      if (open.pop() !== name)
        throw new TemplateError(file, `{{/${name}}} closes a block that is not open`);
    } else if (open.length) optional.add(name);
    else required.add(name);
  }
  if (open.length)
    throw new TemplateError(file, `block {{#${open[open.length - 1]}}} is never closed`);
  for (const name of required) optional.delete(name);
  return { required: [...required], optional: [...optional] };
}

/** Values for a template's variables; empty or missing optional values drop their block. */
export type TemplateValues = Record<string, string | undefined>;

/** The rendered messages of one judging request. */
export interface RenderedPrompt {
  system: string;
  user: string;
}

/**
 * Fills a template. A `{{#name}}…{{/name}}` block appears only when `name` has a
 * non-empty value; a required variable without a value, or a value for a variable the
 * template does not use, is an error (a typo must not silently drop the passage).
 */
export function renderTemplate(template: JudgeTemplate, values: TemplateValues): RenderedPrompt {
  for (const name of template.requiredVariables) {
    if (values[name] === undefined || values[name] === '') {
      throw new Error(`judge ${template.id}: no value for {{${name}}}`);
    }
  }
  const known = new Set([...template.requiredVariables, ...template.optionalVariables]);
  for (const name of Object.keys(values)) {
    if (!known.has(name))
      throw new Error(`judge ${template.id}: the template has no variable {{${name}}}`);
  }
  // Blocks first (innermost first), then plain variables. Values are inserted verbatim:
  // passages are data, so a `{{` inside one is never interpreted.
  let text = template.prompt;
  const block = /\{\{\s*#([a-z_][a-z0-9_]*)\s*\}\}\r?\n?([\s\S]*?)\{\{\s*\/\1\s*\}\}\r?\n?/;
  for (let m = block.exec(text); m; m = block.exec(text)) {
    const value = values[m[1]!];
    text = text.slice(0, m.index) + (value ? m[2]! : '') + text.slice(m.index + m[0].length);
  }
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g)) {
    parts.push(text.slice(last, m.index), values[m[1]!] ?? '');
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return { system: template.system, user: parts.join('').trim() };
}

/** Loads every `<id>.md` judge template in a folder; the file name must match the id. */
export function loadJudgeTemplates(dir: string): Map<string, JudgeTemplate> {
  const templates = new Map<string, JudgeTemplate>();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.md'))
    .sort()) {
    const file = join(dir, name);
    const template = parseTemplate(readFileSync(file, 'utf8'), file);
    if (`${template.id}.md` !== name)
      throw new TemplateError(file, `id '${template.id}' does not match the file name`);
    templates.set(template.id, template);
  }
  return templates;
}
