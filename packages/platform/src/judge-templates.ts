import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadJudgeTemplates, type JudgeTemplate, type TemplateValues } from '@assay/judge';
import { requestHash } from '@assay/llm';
import { PlatformError } from './errors.js';

/** The `judges/` folder of this assay checkout (the shipped judge templates). */
export function defaultJudgesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'judges');
    if (existsSync(join(candidate, 'graded-0-3.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new PlatformError('not_found', 'cannot find the judges/ folder of this assay checkout');
    dir = parent;
  }
}

/** SHA-256 of a judge template's canonical JSON: which prompt a label set was made with. */
export function templateHash(template: JudgeTemplate): string {
  return requestHash(template as unknown as Record<string, unknown>);
}

/** A topic as judging sees it. */
export interface JudgeTopic {
  query: string;
  description?: string | undefined;
  narrative?: string | undefined;
}

/** A document as judging sees it. */
export interface JudgeDocument {
  title?: string | undefined;
  text: string;
}

/**
 * The values a relevance template renders for one (topic, document): `query`,
 * `description`, `narrative`, `passage` (the title, if any, on its own line, then the
 * text) and `title`, limited to the variables the template uses.
 */
export function judgeValues(
  template: JudgeTemplate,
  topic: JudgeTopic,
  doc: JudgeDocument,
): TemplateValues {
  const title = doc.title?.trim();
  const all: TemplateValues = {
    query: topic.query,
    description: topic.description,
    narrative: topic.narrative,
    passage: title ? `${title}\n${doc.text}` : doc.text,
    title,
  };
  const known = new Set([...template.requiredVariables, ...template.optionalVariables]);
  const values: TemplateValues = {};
  for (const [name, value] of Object.entries(all))
    if (known.has(name) && value !== undefined && value !== '') values[name] = value;
  return values;
}

/** Checks that a template can write a label set from topics and documents alone. */
export function checkRelevanceTemplate(template: JudgeTemplate): void {
  if (!template.gradeField)
    throw new PlatformError(
      'invalid_input',
      `judge '${template.id}' scores answers, not relevance; pick a relevance judge`,
    );
  const available = new Set(['query', 'description', 'narrative', 'passage', 'title']);
  const missing = template.requiredVariables.filter((v) => !available.has(v));
  if (missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} needs ${missing.map((v) => `{{${v}}}`).join(', ')}, which topics and documents do not provide`,
    );
}

/**
 * The judge template `id` of `dir` (default: the shipped judges/). invalid_input when the
 * folder cannot be read, not_found when it has no such judge (the message lists those it has).
 */
export function loadJudgeTemplate(id: string, dir?: string): JudgeTemplate {
  let templates: Map<string, JudgeTemplate>;
  try {
    templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(
      'invalid_input',
      `cannot read judge templates: ${(error as Error).message}`,
    );
  }
  const template = templates.get(id);
  if (!template)
    throw new PlatformError(
      'not_found',
      `no judge '${id}' (known: ${[...templates.keys()].join(', ')})`,
    );
  return template;
}

/** What a judge template is for, as listed: its id, kind, grade scale and description. */
export interface JudgeTemplateSummary {
  id: string;
  kind: JudgeTemplate['kind'];
  scale: { min: number; max: number };
  description: string;
}

/**
 * The judge templates of `dir` (default: the shipped judges/), by id. invalid_input when
 * the folder cannot be read.
 */
export function listJudgeTemplates(dir?: string): JudgeTemplateSummary[] {
  let templates: Map<string, JudgeTemplate>;
  try {
    templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(
      'invalid_input',
      `cannot read judge templates: ${(error as Error).message}`,
    );
  }
  return [...templates.values()]
    .map((t) => ({
      id: t.id,
      kind: t.kind,
      scale: { min: t.scale.min, max: t.scale.max },
      description: t.description,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
