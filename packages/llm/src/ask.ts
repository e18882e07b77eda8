import { checkSchema } from './json-schema.js';
import { type ChatClient, type ChatRequest } from './chat-client.js';
import type { CallDeps } from './call-deps.js';
import { chatCall } from './chat-call.js';
import { renderMethodPrompt, type MethodPrompt } from './method-prompt.js';

/** An answer that stayed unusable after every attempt; the reason names the last problem. */
export class UnusableAnswerError extends Error {
  constructor(
    readonly promptId: string,
    readonly reason: string,
    readonly raw: string | undefined,
  ) {
    super(`${promptId}: ${reason}`);
    this.name = 'UnusableAnswerError';
  }
}

/** Settings of {@link ask}. */
export interface AskSettings {
  model: string;
  /** Sampling temperature instead of the prompt's own. */
  temperature?: number;
  /** Nucleus sampling (`top_p`); absent, the endpoint's default. */
  topP?: number;
  /** Attempts in all when an answer cannot be used (default 3). */
  maxParseAttempts?: number;
  /** Ask for structured output when the prompt has a schema (default true). */
  structuredOutput?: boolean;
  /**
   * A further check of a parsed answer (of the trimmed text, for a prompt without a schema);
   * returns the problem, or undefined when usable.
   */
  validate?: (json: unknown) => string | undefined;
}

/** A usable answer: the text, and the parsed JSON for prompts with a schema. */
export interface AskAnswer {
  text: string;
  json?: unknown;
  request: ChatRequest;
  cached: boolean;
}

/** The chat request for one prompt (attempt > 1 is a re-ask, made distinct by its seed). */
export function buildMethodRequest(
  prompt: MethodPrompt,
  values: Readonly<Record<string, string>>,
  settings: AskSettings,
  attempt = 1,
): ChatRequest {
  const rendered = renderMethodPrompt(prompt, values);
  const request: ChatRequest = {
    model: settings.model,
    messages: [
      { role: 'system', content: rendered.system },
      { role: 'user', content: rendered.user },
    ],
    temperature: settings.temperature ?? prompt.model.temperature,
  };
  if (settings.topP !== undefined) request.top_p = settings.topP;
  if (prompt.model.maxTokens !== undefined) request.max_tokens = prompt.model.maxTokens;
  if (prompt.schema && (settings.structuredOutput ?? true))
    request.response_format = {
      type: 'json_schema',
      json_schema: { name: prompt.id.replace(/-/g, '_'), schema: prompt.schema, strict: true },
    };
  if (attempt > 1) request.seed = attempt;
  return request;
}

/**
 * Asks one prompt and returns a usable answer: non-blank text, and for a prompt with a
 * schema, JSON that satisfies it (also when wrapped in a ```json fence). An unusable
 * answer is asked again; after the last attempt an {@link UnusableAnswerError} is thrown.
 */
export async function ask(
  client: ChatClient,
  prompt: MethodPrompt,
  values: Readonly<Record<string, string>>,
  settings: AskSettings,
  deps: CallDeps,
): Promise<AskAnswer> {
  const attempts = settings.maxParseAttempts ?? 3;
  let reason = 'no answer';
  let raw: string | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const request = buildMethodRequest(prompt, values, settings, attempt);
    const { record, cached } = await chatCall(client, request, deps);
    raw = record.response ?? '';
    const text = raw.trim();
    if (text === '') {
      reason = 'empty answer';
      continue;
    }
    if (!prompt.schema) {
      const invalid = settings.validate?.(text);
      if (invalid) {
        reason = invalid;
        continue;
      }
      return { text, request, cached };
    }
    const json = readJson(text);
    if (json === undefined) {
      reason = 'answer is not JSON';
      continue;
    }
    const problem = checkSchema(json, prompt.schema, '$');
    if (problem) {
      reason = `answer does not match the schema: ${problem}`;
      continue;
    }
    const invalid = settings.validate?.(json);
    if (invalid) {
      reason = invalid;
      continue;
    }
    return { text, json, request, cached };
  }
  throw new UnusableAnswerError(
    prompt.id,
    `unusable answer after ${attempts} attempts: ${reason}`,
    raw,
  );
}

function readJson(text: string): unknown {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text);
  try {
    return JSON.parse(fenced ? fenced[1]! : text) as unknown;
  } catch {
    return undefined;
  }
}
