import OpenAI from 'openai';
import { parseRetryAfter, type AttemptFailure } from './retry.js';

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

/** Anything that can answer a chat request: the OpenAI-compatible client, or a test fake. */
export interface ChatClient {
  complete(request: ChatRequest): Promise<ChatResponse>;
}

/** Connection settings of an OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp). */
export interface EndpointConfig {
  baseURL?: string;
  apiKey?: string;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
}

/** A failure classified for the retry loop. */
export class ChatCallError extends Error {
  constructor(
    message: string,
    readonly failure: AttemptFailure,
    readonly status?: number,
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

  constructor(
    config: EndpointConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.client = new OpenAI({
      apiKey: config.apiKey ?? 'not-needed',
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      maxRetries: 0,
      timeout: config.timeoutMs ?? 120_000,
    });
  }

  /** Whether the endpoint still gets `response_format` (false after it rejected it). */
  get usesStructuredOutput(): boolean {
    return this.structuredOutput;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const body = { ...request };
    if (!this.structuredOutput) delete body.response_format;
    try {
      return await this.send(body);
    } catch (error) {
      if (body.response_format && isUnsupportedFormat(error)) {
        this.structuredOutput = false;
        delete body.response_format;
        return await this.send(body);
      }
      throw error;
    }
  }

  private async send(body: ChatRequest): Promise<ChatResponse> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = (await this.client.chat.completions.create({
        ...body,
        stream: false,
      } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)) as OpenAI.Chat.Completions.ChatCompletion;
    } catch (error) {
      throw this.classify(error);
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
    if (error instanceof SyntaxError) {
      // The HTTP body was not valid JSON (a proxy error page, a truncated answer).
      return new ChatCallError(`malformed response body: ${error.message}`, { retryable: true });
    }
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return new ChatCallError(`timed out: ${error.message}`, { retryable: true });
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new ChatCallError(`connection failed: ${error.message}`, { retryable: true });
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
