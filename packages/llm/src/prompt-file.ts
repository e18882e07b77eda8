import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { JsonSchema } from './json-schema.js';

/**
 * A prompt read from a prompt file (`judges/<id>.md`, `methods/<id>.md`): YAML front
 * matter between `---` lines, then the user prompt. Judge templates and method prompts
 * are prompt files with a few fields of their own.
 */
export interface PromptFile {
  id: string;
  description: string;
  /** Where the prompt comes from (the paper, the rubric). */
  source: string;
  /** Default model parameters (the model itself comes from configuration). */
  model: { name?: string; temperature?: number; maxTokens?: number };
  /** JSON schema of a structured answer; absent for free text. */
  schema?: JsonSchema;
  system: string;
  /** The user prompt with `{{name}}` variables and `{{#name}}…{{/name}}` optional blocks. */
  prompt: string;
  /** Variables the prompt uses outside optional blocks (each needs a non-empty value). */
  requiredVariables: string[];
  /** Variables used only inside optional blocks. */
  optionalVariables: string[];
}

/** Values of a prompt's variables; an empty or missing optional value drops its block. */
export type PromptValues = Readonly<Record<string, string | undefined>>;

/** A prompt file that cannot be used, with the file and the reason. */
export class PromptFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'PromptFileError';
  }
}

const VARIABLE_NAME = /^[a-z_][a-z0-9_]*$/;

/** The front matter every prompt file has; a kind of prompt adds fields of its own. */
const BaseFrontMatter = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  description: z.string().min(1),
  source: z.string().min(1),
  /** When given, exactly the variables the prompt uses. */
  variables: z.array(z.string().regex(VARIABLE_NAME)).optional(),
  model: z
    .object({
      name: z.string().optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().positive().optional(),
    })
    .default({}),
  output: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional(),
  system: z.string().min(1),
});

/**
 * Parses a prompt file: YAML front matter between `---` lines, then the user prompt.
 * `fields` reads the front-matter fields of a kind of prompt (a judge's scale, a method's
 * step); `paper` is read as an older name of `source`. Variables are `{{name}}`, optional
 * blocks `{{#name}}…{{/name}}`; a declared `variables` list must name exactly the
 * variables the prompt uses. Returns the prompt and the kind's fields.
 */
export function parsePromptFile<Fields = Record<string, never>>(
  text: string,
  file: string,
  fields?: z.ZodType<Fields>,
): { prompt: PromptFile; fields: Fields } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match)
    throw new PromptFileError(
      file,
      'expected YAML front matter between --- lines, then the prompt',
    );
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new PromptFileError(file, `front matter is not valid YAML: ${(error as Error).message}`);
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    if (record.source === undefined && record.paper !== undefined) {
      const { paper, ...rest } = record;
      raw = { ...rest, source: paper };
    }
  }
  const parsed = BaseFrontMatter.safeParse(raw);
  const own = fields ? fields.safeParse(raw) : undefined;
  const issues = [...(parsed.error?.issues ?? []), ...(own?.error?.issues ?? [])];
  if (!parsed.success || (own && !own.success))
    throw new PromptFileError(
      file,
      issues
        .map((i) => `front matter field ${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; '),
    );
  const front = parsed.data;
  // Kept as written: a judge template's hash (which label set it made) covers it.
  const body = match[2]!;
  const { required, optional } = variablesOf(body, file);
  if (front.variables) {
    const used = new Set([...required, ...optional]);
    for (const name of front.variables)
      if (!used.has(name))
        throw new PromptFileError(file, `variable '${name}' is declared but not used`);
    for (const name of used)
      if (!front.variables.includes(name))
        throw new PromptFileError(file, `the prompt uses '{{${name}}}' but does not declare it`);
  }
  const prompt: PromptFile = {
    id: front.id,
    description: front.description,
    source: front.source.trim(),
    model: {
      ...(front.model.name === undefined ? {} : { name: front.model.name }),
      ...(front.model.temperature === undefined ? {} : { temperature: front.model.temperature }),
      ...(front.model.max_tokens === undefined ? {} : { maxTokens: front.model.max_tokens }),
    },
    system: front.system.trim(),
    prompt: body,
    requiredVariables: required,
    optionalVariables: optional,
  };
  if (front.output?.schema) prompt.schema = front.output.schema;
  return { prompt, fields: (own?.data ?? {}) as Fields };
}

const VARIABLE = /\{\{\s*([#/]?)([a-z_][a-z0-9_]*)\s*\}\}/g;

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
        throw new PromptFileError(file, `{{/${name}}} closes a block that is not open`);
    } else if (open.length) optional.add(name);
    else required.add(name);
  }
  if (open.length)
    throw new PromptFileError(file, `block {{#${open[open.length - 1]}}} is never closed`);
  for (const name of required) optional.delete(name);
  return { required: [...required], optional: [...optional] };
}

/** The two messages of a rendered prompt. */
export interface RenderedPrompt {
  system: string;
  user: string;
}

/**
 * Fills a prompt. A `{{#name}}…{{/name}}` block appears only when `name` has a non-empty
 * value; a required variable without a value, or a value for a variable the prompt does
 * not use, is an error (a typo must not silently drop the passage). The prompt's own text
 * is trimmed; values are inserted verbatim (a `{{` inside a passage is never interpreted).
 */
export function renderPrompt(
  prompt: Pick<PromptFile, 'id' | 'system' | 'prompt' | 'requiredVariables' | 'optionalVariables'>,
  values: PromptValues,
): RenderedPrompt {
  for (const name of prompt.requiredVariables)
    if (values[name] === undefined || values[name] === '')
      throw new Error(`prompt ${prompt.id}: no value for {{${name}}}`);
  const known = new Set([...prompt.requiredVariables, ...prompt.optionalVariables]);
  for (const name of Object.keys(values))
    if (!known.has(name))
      throw new Error(`prompt ${prompt.id}: the prompt has no variable {{${name}}}`);
  // Blocks first (innermost first), then the prompt's own text is trimmed, then values.
  let text = prompt.prompt;
  const block = /\{\{\s*#([a-z_][a-z0-9_]*)\s*\}\}\r?\n?([\s\S]*?)\{\{\s*\/\1\s*\}\}\r?\n?/;
  for (let m = block.exec(text); m; m = block.exec(text)) {
    const value = values[m[1]!];
    text = text.slice(0, m.index) + (value ? m[2]! : '') + text.slice(m.index + m[0].length);
  }
  text = text.trim();
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g)) {
    parts.push(text.slice(last, m.index), values[m[1]!] ?? '');
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return { system: prompt.system, user: parts.join('') };
}

/**
 * Reads every `<id>.md` prompt file of a folder (README.md aside) with `parse`; the file
 * name must match the id. Returns them by id.
 */
export function loadPromptFiles<P extends { id: string }>(
  dir: string,
  parse: (text: string, file: string) => P,
): Map<string, P> {
  const prompts = new Map<string, P>();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.md') && n !== 'README.md')
    .sort()) {
    const file = join(dir, name);
    const prompt = parse(readFileSync(file, 'utf8'), file);
    if (`${prompt.id}.md` !== name)
      throw new PromptFileError(file, `id '${prompt.id}' does not match the file name`);
    prompts.set(prompt.id, prompt);
  }
  return prompts;
}
