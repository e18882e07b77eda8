import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** One step's prompt of an LLM retrieval method, read from `methods/<id>.md`. */
export interface MethodPrompt {
  id: string;
  /** The method it belongs to (e.g. `amd`). */
  method: string;
  /** The step within the method (e.g. `sub-questions`). */
  step: string;
  /** The paper the step follows. */
  paper: string;
  description: string;
  /** Variables the prompt needs; each must be given when rendering. */
  variables: string[];
  model: { temperature: number; maxTokens?: number };
  /** JSON schema of a structured answer; absent for free text. */
  schema?: Record<string, unknown>;
  system: string;
  /** The user prompt with `{{name}}` variables. */
  prompt: string;
}

/** A prompt file that cannot be used, with the reason. */
export class MethodPromptError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'MethodPromptError';
  }
}

const FrontMatter = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  method: z.string().min(1),
  step: z.string().min(1),
  paper: z.string().min(1),
  description: z.string().min(1),
  variables: z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/)).min(1),
  model: z
    .object({
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().positive().optional(),
    })
    .optional(),
  output: z.object({ schema: z.record(z.string(), z.unknown()) }).optional(),
  system: z.string().min(1),
});

/** Parses a method prompt file: YAML front matter between `---` lines, then the prompt. */
export function parseMethodPrompt(text: string, file = '<prompt>'): MethodPrompt {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) throw new MethodPromptError(file, 'no front matter between --- lines');
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new MethodPromptError(file, `front matter is not YAML: ${(error as Error).message}`);
  }
  const parsed = FrontMatter.safeParse(raw);
  if (!parsed.success)
    throw new MethodPromptError(
      file,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
    );
  const front = parsed.data;
  const prompt = match[2]!.trim();
  const used = new Set([...prompt.matchAll(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g)].map((m) => m[1]!));
  for (const name of front.variables)
    if (!used.has(name))
      throw new MethodPromptError(file, `variable '${name}' is declared but not used`);
  for (const name of used)
    if (!front.variables.includes(name))
      throw new MethodPromptError(file, `the prompt uses '{{${name}}}' but does not declare it`);
  const result: MethodPrompt = {
    id: front.id,
    method: front.method,
    step: front.step,
    paper: front.paper,
    description: front.description,
    variables: front.variables,
    model: { temperature: front.model?.temperature ?? 0 },
    system: front.system.trim(),
    prompt,
  };
  if (front.model?.max_tokens !== undefined) result.model.maxTokens = front.model.max_tokens;
  if (front.output) result.schema = front.output.schema;
  return result;
}

/**
 * Fills a prompt. Every declared variable needs a non-empty value and no other value is
 * accepted; values are inserted verbatim (a `{{` inside a query is never interpreted).
 */
export function renderMethodPrompt(
  prompt: MethodPrompt,
  values: Readonly<Record<string, string>>,
): { system: string; user: string } {
  for (const name of prompt.variables)
    if (!values[name]) throw new Error(`prompt ${prompt.id}: no value for {{${name}}}`);
  for (const name of Object.keys(values))
    if (!prompt.variables.includes(name))
      throw new Error(`prompt ${prompt.id}: the prompt has no variable {{${name}}}`);
  const user = prompt.prompt.replace(
    /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g,
    (_, name: string) => values[name]!,
  );
  // A replacement function inserts `$&` and friends literally, unlike a replacement string.
  return { system: prompt.system, user };
}

/** Loads every `<id>.md` in a folder; the file name must match the id. */
export function loadMethodPrompts(dir: string): Map<string, MethodPrompt> {
  const prompts = new Map<string, MethodPrompt>();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.md') && n !== 'README.md')
    .sort()) {
    const file = join(dir, name);
    const prompt = parseMethodPrompt(readFileSync(file, 'utf8'), file);
    if (`${prompt.id}.md` !== name)
      throw new MethodPromptError(file, `id '${prompt.id}' does not match the file name`);
    prompts.set(prompt.id, prompt);
  }
  return prompts;
}
