import OpenAI from 'openai';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  fetchWithLimit,
  ResponseTooLargeError,
} from './response-limit.js';
import { publicEndpoint } from './http-json.js';
import { parseRetryAfter, type AttemptFailure } from './retry.js';
import { requestSignal } from './abort-fanout.js';

/** One chat-completions request as assay sends it (and hashes it). */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  response_format?: {
    type: 'json_schema';
    json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
  };
  logprobs?: boolean;
  top_logprobs?: number;
}

/** Log-probabilities of one generated token and its alternatives. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top: Array<{ token: string; logprob: number }>;
}

/** What came back from one call. */
export interface ChatResponse {
  content: string;
  promptTokens: number;
  completionTokens: number;
  logprobs?: TokenLogprob[];
}

/** Options of one chat request. */
export interface ChatCallOptions {
  /** Cuts the request off when aborted. */
  signal?: AbortSignal | undefined;
}

/** Anything that can answer a chat request: the OpenAI-compatible client, or a test fake. */
export interface ChatClient {
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse>;
}

/** Connection settings of an OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp). */
export interface EndpointConfig {
  baseURL?: string;
  apiKey?: string;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** The largest answer body read, in bytes (default 16 MiB); a larger one fails the call. */
  maxResponseBytes?: number;
}

/** A failure classified for the retry loop. */
export class ChatCallError extends Error {
  constructor(
    message: string,
    readonly failure: AttemptFailure,
    readonly status?: number,
    /** True when the endpoint could not be reached at all (connection refused, unknown host). */
    readonly unreachable = false,
  ) {
    super(message);
    this.name = 'ChatCallError';
  }
}

/**
 * Chat completions through the `openai` package against any OpenAI-compatible endpoint.
 * The package's own retries are off: assay retries with its own policy, so every attempt
 * is seen and recorded. Asks for structured output and, when an endpoint rejects
 * `response_format`, drops it for the rest of this client's life (the answer is then read
 * from text).
 */
export class OpenAIChatClient implements ChatClient {
  private readonly client: OpenAI;
  private structuredOutput = true;
  /** Where requests go, as error messages name it (never the key, a password or a query). */
  readonly endpoint: string;

  constructor(
    config: EndpointConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.client = new OpenAI({
      apiKey: config.apiKey ?? 'not-needed',
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      maxRetries: 0,
      timeout: config.timeoutMs ?? 120_000,
      fetch: fetchWithLimit(config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    });
    this.endpoint = publicEndpoint(this.client.baseURL);
  }

  /** Whether the endpoint still gets `response_format` (false after it rejected it). */
  get usesStructuredOutput(): boolean {
    return this.structuredOutput;
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const body = { ...request };
    if (!this.structuredOutput) delete body.response_format;
    try {
      return await this.send(body, options.signal);
    } catch (error) {
      if (body.response_format && isUnsupportedFormat(error)) {
        this.structuredOutput = false;
        delete body.response_format;
        return await this.send(body, options.signal);
      }
      throw error;
    }
  }

  private async send(body: ChatRequest, signal: AbortSignal | undefined): Promise<ChatResponse> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    const own = signal && requestSignal(signal);
    try {
      completion = (await this.client.chat.completions.create(
        {
          ...body,
          stream: false,
        } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
        own ? { signal: own.signal } : {},
      )) as OpenAI.Chat.Completions.ChatCompletion;
    } catch (error) {
      throw this.classify(error);
    } finally {
      own?.release();
    }
    const choice = completion.choices?.[0];
    if (!choice || typeof choice.message?.content !== 'string') {
      throw new ChatCallError('the endpoint returned no message content', { retryable: true });
    }
    const response: ChatResponse = {
      content: choice.message.content,
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
    };
    const tokens = choice.logprobs?.content;
    if (tokens?.length) {
      response.logprobs = tokens.map((t) => ({
        token: t.token,
        logprob: t.logprob,
        top: (t.top_logprobs ?? []).map((a) => ({ token: a.token, logprob: a.logprob })),
      }));
    }
    return response;
  }

  private classify(error: unknown): unknown {
    const tooLarge = causeOf(error, ResponseTooLargeError);
    if (tooLarge)
      return new ChatCallError(`${this.endpoint}: ${tooLarge.message}`, { retryable: false });
    if (error instanceof SyntaxError) {
      // The HTTP body was not valid JSON (a proxy error page, a truncated answer).
      return new ChatCallError(`malformed response body: ${error.message}`, { retryable: true });
    }
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return new ChatCallError(`timed out: ${error.message} (${this.endpoint})`, {
        retryable: true,
        timedOut: true,
      });
    }
    if (error instanceof OpenAI.APIConnectionError) {
      const code = socketCode(error);
      // A connection refused or a host unknown is the endpoint not being there at all; a
      // connection dropped mid-answer is the endpoint being there and failing.
      const unreachable = code !== undefined && UNREACHABLE_CODES.has(code);
      return new ChatCallError(
        `connection failed: cannot ${unreachable ? 'reach' : 'talk to'} ${this.endpoint}${code ? ` (${code})` : `: ${error.message}`}`,
        { retryable: true },
        undefined,
        unreachable,
      );
    }
    if (error instanceof OpenAI.APIError) {
      const status = error.status ?? 0;
      const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
      const failure: AttemptFailure = { retryable };
      const after = parseRetryAfter(error.headers, this.now());
      if (after !== undefined) failure.retryAfterMs = after;
      const wrapped = new ChatCallError(`HTTP ${status}: ${error.message}`, failure, status);
      (wrapped as { cause?: unknown }).cause = error;
      return wrapped;
    }
    return error;
  }
}

/** Socket errors of an endpoint that is not there: nothing listens, or the host is unknown. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
]);

/** The first error of a cause chain that is an instance of `type`. */
function causeOf<T>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e = error, depth = 0; e && depth < 6; depth++) {
    if (e instanceof type) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The socket error code (ECONNREFUSED …) somewhere in a cause chain. */
function socketCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function isUnsupportedFormat(error: unknown): boolean {
  return (
    error instanceof ChatCallError &&
    (error.status === 400 || error.status === 422) &&
    /response_format|json_schema|structured/i.test(error.message)
  );
}

/** Classifies any error thrown by a ChatClient for the retry loop. */
export function classifyChatError(error: unknown): AttemptFailure {
  if (error instanceof ChatCallError) return error.failure;
  return { retryable: false };
}
