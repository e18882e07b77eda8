import { checkSchema } from './json-schema.js';
import { type ChatClient, type ChatRequest } from './chat-client.js';
import type { CallDeps } from './call-deps.js';
import type { LlmCallRecord } from './call-store.js';
import { chatCall } from './chat-call.js';
import { renderPrompt, type PromptFile, type PromptValues } from './prompt-file.js';

/** How one prompt is asked: the model and the request's parameters. */
export interface PromptSettings {
  model: string;
  /** Overrides the prompt file's temperature (default: the file's, else 0). */
  temperature?: number;
  /** Nucleus sampling (`top_p`); absent, the endpoint's default. */
  topP?: number;
  /** Overrides the prompt file's max_tokens. */
  maxTokens?: number;
  /** Ask for structured output when the prompt has a schema (default true). */
  structuredOutput?: boolean;
  /** Ask for log-probabilities (default false). */
  logprobs?: boolean;
  /** Attempts in all when an answer cannot be used (default 3). */
  maxParseAttempts?: number;
  /**
   * Sent as the request's `seed` (a re-ask adds attempt − 1). Repeated trials of the same
   * prompt use different seeds so each is its own request and its own cache entry.
   */
  seed?: number;
}

/**
 * The chat request for one prompt. Attempt > 1 is a re-ask after an unusable answer: its
 * seed makes it a new request, so the stored unusable answer is not returned again.
 */
export function buildPromptRequest(
  prompt: Pick<
    PromptFile,
    'id' | 'system' | 'prompt' | 'requiredVariables' | 'optionalVariables' | 'model' | 'schema'
  >,
  values: PromptValues,
  settings: PromptSettings,
  attempt = 1,
): ChatRequest {
  const rendered = renderPrompt(prompt, values);
  const request: ChatRequest = {
    model: settings.model,
    messages: [
      { role: 'system', content: rendered.system },
      { role: 'user', content: rendered.user },
    ],
    temperature: settings.temperature ?? prompt.model.temperature ?? 0,
  };
  if (settings.topP !== undefined) request.top_p = settings.topP;
  const maxTokens = settings.maxTokens ?? prompt.model.maxTokens;
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  if (prompt.schema && (settings.structuredOutput ?? true))
    request.response_format = {
      type: 'json_schema',
      json_schema: { name: prompt.id.replace(/-/g, '_'), schema: prompt.schema, strict: true },
    };
  if (settings.logprobs) {
    request.logprobs = true;
    request.top_logprobs = 5;
  }
  if (settings.seed !== undefined) request.seed = settings.seed + attempt - 1;
  else if (attempt > 1) request.seed = attempt;
  return request;
}

/**
 * The first attempt of round `round` of asking one prompt: round 0 is the first time it is
 * asked, and each later round (a retry of an item whose answers all stayed unusable) goes
 * on numbering where the last one stopped, `maxParseAttempts` attempts a round. An attempt
 * number makes its own request (its seed), so a retry never rebuilds a request whose stored
 * answer was unusable, while that answer stays in the store.
 */
export function firstAttemptOf(
  settings: Pick<PromptSettings, 'maxParseAttempts'>,
  round = 0,
): number {
  return round * (settings.maxParseAttempts ?? 3) + 1;
}

/** What reading one raw answer gave: the value, or why it cannot be used. */
export type AnswerReading<T> = { ok: true; value: T } | { ok: false; reason: string };

/** An answer that was usable, with the call that gave it. */
export interface PromptAnswer<T> {
  value: T;
  /** The call whose answer was used. */
  call: LlmCallRecord;
  request: ChatRequest;
  /** True when that call came from the store (nothing was paid for it this time). */
  cached: boolean;
}

/** An answer that stayed unusable after every attempt; the reason names the last problem. */
export class UnusableAnswerError extends Error {
  constructor(
    readonly promptId: string,
    /** The last problem, without the attempts prefix. */
    readonly problem: string,
    readonly attempts: number,
    readonly raw: string | undefined,
  ) {
    super(`${promptId}: unusable answer after ${attempts} attempts: ${problem}`);
    this.name = 'UnusableAnswerError';
  }

  /** `unusable answer after N attempts: problem`, without the prompt id. */
  get reason(): string {
    return `unusable answer after ${this.attempts} attempts: ${this.problem}`;
  }
}

/**
 * The one ask loop of judges, answer scoring and methods: renders the prompt, asks it
 * through {@link chatCall} (a stored answer reused; otherwise sent, paced, retried and
 * every attempt recorded), and reads the answer with `read`. An unusable answer is asked
 * again with a new seed; after the last attempt an {@link UnusableAnswerError} is thrown
 * with the raw text. An endpoint that fails for good throws its error (the failed calls
 * are recorded); `deps.onPaidCall` sees every call sent. `round` > 0 asks anew after an
 * earlier round's answers all stayed unusable: its attempts start at
 * {@link firstAttemptOf}, so none of the earlier requests (and answers) is used again.
 */
export async function askPrompt<T>(
  client: ChatClient,
  prompt: Parameters<typeof buildPromptRequest>[0],
  values: PromptValues,
  settings: PromptSettings,
  deps: CallDeps,
  read: (raw: string, call: LlmCallRecord) => AnswerReading<T>,
  round = 0,
): Promise<PromptAnswer<T>> {
  const attempts = settings.maxParseAttempts ?? 3;
  const first = firstAttemptOf(settings, round);
  let problem = 'no answer';
  let raw: string | undefined;
  for (let attempt = first; attempt < first + attempts; attempt++) {
    const request = buildPromptRequest(prompt, values, settings, attempt);
    const { record, cached } = await chatCall(client, request, deps);
    raw = record.response ?? '';
    const reading = read(raw, record);
    if (reading.ok) return { value: reading.value, call: record, request, cached };
    problem = reading.reason;
  }
  throw new UnusableAnswerError(prompt.id, problem, attempts, raw);
}

/** Settings of {@link ask}. */
export interface AskSettings extends PromptSettings {
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

/**
 * Asks one prompt of a method and returns a usable answer: non-blank text, and for a
 * prompt with a schema, JSON that satisfies it (also when wrapped in a ```json fence).
 * {@link askPrompt} with that reading.
 */
export async function ask(
  client: ChatClient,
  prompt: Parameters<typeof buildPromptRequest>[0],
  values: PromptValues,
  settings: AskSettings,
  deps: CallDeps,
): Promise<AskAnswer> {
  const answer = await askPrompt(client, prompt, values, settings, deps, (raw) =>
    readAnswer(raw, prompt.schema, settings.validate),
  );
  return { ...answer.value, request: answer.request, cached: answer.cached };
}

/** Reads a method's answer: non-blank text; JSON matching the schema when there is one. */
function readAnswer(
  raw: string,
  schema: Record<string, unknown> | undefined,
  validate: AskSettings['validate'],
): AnswerReading<{ text: string; json?: unknown }> {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'empty answer' };
  if (!schema) {
    const invalid = validate?.(text);
    return invalid ? { ok: false, reason: invalid } : { ok: true, value: { text } };
  }
  const json = readJson(text);
  if (json === undefined) return { ok: false, reason: 'answer is not JSON' };
  const problem = checkSchema(json, schema, '$');
  if (problem) return { ok: false, reason: `answer does not match the schema: ${problem}` };
  const invalid = validate?.(json);
  return invalid ? { ok: false, reason: invalid } : { ok: true, value: { text, json } };
}

function readJson(text: string): unknown {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text);
  try {
    return JSON.parse(fenced ? fenced[1]! : text) as unknown;
  } catch {
    return undefined;
  }
}
