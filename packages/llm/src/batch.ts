// The OpenAI Batch API and its file format, for asking many chat requests at once at the
// batch price: the input JSONL (one request a line, the request hash as `custom_id`), the
// output JSONL (`{id, custom_id, response: {status_code, body}, error}`; `vllm run-batch`
// writes the same), and the Files and Batches endpoints that carry them.
import { callCost, type ModelPrice } from './cost.js';
import { MAX_CALL_TOKENS, type SentAnswer } from './cached-call.js';
import type { ChatRequest, TokenLogprob } from './chat-client.js';
import {
  LlmHttpError,
  OPENAI_API_BASE_URL,
  postJson,
  publicEndpoint,
  type HttpEndpoint,
} from './http-json.js';
import { chatRequestHash } from './request-hash.js';
import { readLimitedBody } from './response-limit.js';

/** The endpoint every request of an assay batch goes to. */
export const BATCH_CHAT_URL = '/v1/chat/completions';

/** One line of a batch input file: the request, keyed by its request hash. */
export function batchInputLine(request: ChatRequest): string {
  return JSON.stringify({
    custom_id: chatRequestHash(request),
    method: 'POST',
    url: BATCH_CHAT_URL,
    body: request,
  });
}

/** What one batch output file holds, line by line. */
export interface BatchOutputReading {
  /** Lines answered with a usable chat completion: the request hash and the answer. */
  answers: Array<{ customId: string; answer: SentAnswer }>;
  /** Lines whose request failed (an error, a status other than 200, no usable message). */
  failed: Array<{ customId: string; reason: string }>;
  /** Lines that are not a batch output record at all (1-based line numbers). */
  malformed: Array<{ line: number; reason: string }>;
}

/**
 * Reads a batch output (or error) file: one JSON object a line, `{custom_id, response:
 * {status_code, body}, error}`, as the OpenAI Batch API and `vllm run-batch` write it.
 * Blank lines are skipped; nothing is dropped without being counted.
 */
export function readBatchOutput(text: string): BatchOutputReading {
  const reading: BatchOutputReading = { answers: [], failed: [], malformed: [] };
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      reading.malformed.push({ line: index + 1, reason: 'not JSON' });
      return;
    }
    if (!isObject(record) || typeof record.custom_id !== 'string' || record.custom_id === '') {
      reading.malformed.push({ line: index + 1, reason: 'no custom_id' });
      return;
    }
    const customId = record.custom_id;
    const error = record.error;
    if (isObject(error)) {
      const code = typeof error.code === 'string' ? `${error.code}: ` : '';
      reading.failed.push({ customId, reason: `${code}${String(error.message ?? 'failed')}` });
      return;
    }
    const response = record.response;
    if (!isObject(response)) {
      reading.failed.push({ customId, reason: 'no response' });
      return;
    }
    const status = response.status_code;
    if (status !== 200) {
      const body = response.body;
      const message =
        isObject(body) && isObject(body.error) && typeof body.error.message === 'string'
          ? `: ${body.error.message}`
          : '';
      reading.failed.push({ customId, reason: `HTTP ${String(status)}${message}` });
      return;
    }
    const answer = readChatCompletion(response.body);
    if (typeof answer === 'string') reading.failed.push({ customId, reason: answer });
    else reading.answers.push({ customId, answer });
  });
  return reading;
}

/** A chat completion body as an answer, or why it is none. */
function readChatCompletion(body: unknown): SentAnswer | string {
  if (!isObject(body) || !Array.isArray(body.choices)) return 'the answer has no choices';
  const choice: unknown = body.choices[0];
  const message = isObject(choice) ? choice.message : undefined;
  if (!isObject(message) || typeof message.content !== 'string')
    return 'the endpoint returned no message content';
  const usage = isObject(body.usage) ? body.usage : {};
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  for (const [field, value] of [
    ['prompt_tokens', promptTokens],
    ['completion_tokens', completionTokens],
  ] as const)
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < 0 ||
      value > MAX_CALL_TOKENS
    )
      return `impossible token usage (${field} = ${String(value)})`;
  const answer: SentAnswer = {
    response: message.content,
    promptTokens: promptTokens as number,
    completionTokens: completionTokens as number,
  };
  const logprobs = isObject(choice) && isObject(choice.logprobs) ? choice.logprobs.content : [];
  if (Array.isArray(logprobs) && logprobs.length > 0)
    answer.logprobs = logprobs.filter(isObject).map((t): TokenLogprob => ({
      token: String(t.token),
      logprob: Number(t.logprob),
      top: (Array.isArray(t.top_logprobs) ? t.top_logprobs : [])
        .filter(isObject)
        .map((a) => ({ token: String(a.token), logprob: Number(a.logprob) })),
    }));
  return answer;
}

/**
 * Cost of one batch call in USD: the model's batch price when the table gives one, else
 * half its listed price (the Batch API's discount); undefined when the model has no price.
 */
export function batchCallCost(
  model: string,
  usage: { promptTokens: number; completionTokens: number },
  prices: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  const price = prices[model];
  if (!price) return undefined;
  const batch = price.batch ?? { input: price.input / 2, output: price.output / 2 };
  return callCost(model, usage, { [model]: batch });
}

/** A batch as the Batches endpoint describes it (the fields assay reads). */
export interface BatchInfo {
  id: string;
  status: string;
  inputFileId: string;
  outputFileId?: string;
  errorFileId?: string;
  /** Requests in the batch, done and failed so far (absent while it is being validated). */
  counts?: { total: number; completed: number; failed: number };
  /** Why a batch failed as a whole (its validation errors). */
  errors: string[];
}

/** Statuses after which a batch changes no more. */
const FINAL_STATUSES = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** Whether a batch in this status is over (completed, failed, expired or cancelled). */
export function batchIsOver(status: string): boolean {
  return FINAL_STATUSES.has(status);
}

/**
 * The Files and Batches endpoints of an OpenAI-compatible API: upload a batch input file,
 * create a batch, read it, find it by its input file, download a file's content.
 */
export class OpenAIBatchClient {
  /** Where requests go, as messages name it. */
  readonly endpoint: string;
  private readonly base: string;

  constructor(private readonly config: HttpEndpoint) {
    this.base = (config.baseURL ?? OPENAI_API_BASE_URL).replace(/\/+$/, '');
    this.endpoint = publicEndpoint(this.base);
  }

  /** Uploads a batch input file (`POST /files`, purpose `batch`); returns its file id. */
  async uploadBatchFile(jsonl: string, filename: string): Promise<string> {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), filename);
    const answer = await this.send('POST', '/files', form);
    if (!isObject(answer) || typeof answer.id !== 'string')
      throw new LlmHttpError(`${this.endpoint}/files answered without a file id`, {
        retryable: false,
      });
    return answer.id;
  }

  /** Creates a batch of the uploaded file's chat requests, to finish within 24 hours. */
  async createBatch(inputFileId: string): Promise<BatchInfo> {
    return toBatch(
      await postJson(this.config, '/batches', {
        input_file_id: inputFileId,
        endpoint: BATCH_CHAT_URL,
        completion_window: '24h',
      }),
    );
  }

  /** The batch `id` now. */
  async getBatch(id: string): Promise<BatchInfo> {
    return toBatch(await this.send('GET', `/batches/${encodeURIComponent(id)}`));
  }

  /** The newest batch made from this input file, if any (of the last 100 batches). */
  async findBatchByInputFile(inputFileId: string): Promise<BatchInfo | undefined> {
    const answer = await this.send('GET', '/batches?limit=100');
    const data = isObject(answer) && Array.isArray(answer.data) ? answer.data : [];
    const found: unknown = data.find((b) => isObject(b) && b.input_file_id === inputFileId);
    return found === undefined ? undefined : toBatch(found);
  }

  /** The content of file `id` (`GET /files/{id}/content`) as text. */
  async fileContent(id: string): Promise<string> {
    return (await this.send(
      'GET',
      `/files/${encodeURIComponent(id)}/content`,
      undefined,
      true,
    )) as string;
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    body?: FormData,
    raw = false,
  ): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers,
        ...(body ? { body } : {}),
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 120_000),
      });
      text = new TextDecoder().decode(
        await readLimitedBody(response, this.config.maxResponseBytes ?? 1024 * 1024 * 1024),
      );
    } catch (error) {
      throw new LlmHttpError(
        `cannot reach ${this.endpoint}${path.replace(/\?.*$/, '')}: ${(error as Error).message}`,
        { retryable: true },
      );
    }
    if (!response.ok)
      throw new LlmHttpError(
        `HTTP ${response.status} from ${this.endpoint}${path.replace(/\?.*$/, '')}: ${text.slice(0, 300)}`,
        { retryable: response.status === 429 || response.status >= 500 },
        response.status,
      );
    if (raw) return text;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new LlmHttpError(`malformed response body from ${this.endpoint}${path}`, {
        retryable: true,
      });
    }
  }
}

function toBatch(value: unknown): BatchInfo {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.status !== 'string')
    throw new LlmHttpError('the Batches endpoint answered without a batch id and status', {
      retryable: false,
    });
  const batch: BatchInfo = {
    id: value.id,
    status: value.status,
    inputFileId: String(value.input_file_id ?? ''),
    errors: [],
  };
  if (typeof value.output_file_id === 'string') batch.outputFileId = value.output_file_id;
  if (typeof value.error_file_id === 'string') batch.errorFileId = value.error_file_id;
  const counts = value.request_counts;
  if (isObject(counts))
    batch.counts = {
      total: Number(counts.total ?? 0),
      completed: Number(counts.completed ?? 0),
      failed: Number(counts.failed ?? 0),
    };
  const errors = isObject(value.errors) ? value.errors.data : undefined;
  if (Array.isArray(errors))
    for (const e of errors)
      if (isObject(e))
        batch.errors.push(
          `${typeof e.line === 'number' ? `line ${e.line}: ` : ''}${String(e.message ?? e.code ?? 'error')}`,
        );
  return batch;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
