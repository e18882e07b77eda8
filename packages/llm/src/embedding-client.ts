import { estimateTokens } from './cost.js';
import { requestHash } from './request-hash.js';
import type { CallDeps } from './call-deps.js';
import { cachedCall } from './cached-call.js';
import { classifyHttpError, LlmHttpError, postJson, type HttpEndpoint } from './http-json.js';

/** Settings of {@link EmbeddingClient}. */
export interface EmbeddingOptions {
  /** Texts sent in one `/v1/embeddings` request (default 64). */
  batchSize?: number;
}

/**
 * Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama,
 * TEI, llama.cpp). Every vector is cached by (model, text) through the call store: a text
 * embedded once is never sent again, in this run or any later one. Texts not yet stored
 * are sent in batches; each answer is then stored text by text.
 */
export class EmbeddingClient {
  private readonly memory = new Map<string, Float32Array>();

  constructor(
    private readonly endpoint: HttpEndpoint,
    private readonly deps: CallDeps,
    private readonly options: EmbeddingOptions = {},
  ) {}

  /** One vector per text, in the order given. */
  async embed(model: string, texts: readonly string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array | undefined>(texts.length);
    const missing: number[] = [];
    await Promise.all(
      texts.map(async (text, i) => {
        const key = `${model}\u0000${text}`;
        const known = this.memory.get(key);
        if (known) {
          out[i] = known;
          return;
        }
        const stored = await this.deps.store.get(embeddingHash(model, text));
        if (stored?.response !== undefined) {
          out[i] = toVector(stored.response);
          this.memory.set(key, out[i]!);
        } else missing.push(i);
      }),
    );
    missing.sort((a, b) => a - b);
    // Each distinct text is sent once even when it appears several times.
    const unique = [...new Set(missing.map((i) => texts[i]!))];
    const batchSize = this.options.batchSize ?? 64;
    for (let start = 0; start < unique.length; start += batchSize) {
      const batch = unique.slice(start, start + batchSize);
      const vectors = await this.sendBatch(model, batch);
      batch.forEach((text, j) => this.memory.set(`${model}\u0000${text}`, vectors[j]!));
    }
    for (const i of missing) out[i] = this.memory.get(`${model}\u0000${texts[i]!}`)!;
    return out as Float32Array[];
  }

  private async sendBatch(model: string, batch: string[]): Promise<Float32Array[]> {
    // The whole batch is one recorded HTTP request, retried as one; the store then also
    // keeps each vector under its own (model, text) key.
    const { record } = await cachedCall(
      'embeddings.batch',
      { model, input: batch },
      async (signal) => {
        const answer = await postJson(
          this.endpoint,
          '/embeddings',
          { model, input: batch },
          this.deps.now,
          signal,
        );
        const vectors = readEmbeddings(answer, batch.length);
        return {
          response: JSON.stringify(vectors),
          promptTokens: readUsage(answer),
          completionTokens: 0,
        };
      },
      classifyHttpError,
      this.deps,
      batch.reduce((s, t) => s + estimateTokens(t), 0),
    );
    const vectors = JSON.parse(record.response!) as number[][];
    const now = this.deps.now ?? Date.now;
    for (let j = 0; j < batch.length; j++) {
      await this.deps.store.put({
        hash: embeddingHash(model, batch[j]!),
        model,
        request: { model, input: batch[j]! } as never,
        response: JSON.stringify(vectors[j]),
        promptTokens: 0,
        completionTokens: 0,
        latencyMs: 0,
        createdAt: new Date(now()).toISOString(),
      });
    }
    return vectors.map((v) => Float32Array.from(v));
  }
}

/** The call-store key of one (model, text) embedding. */
export function embeddingHash(model: string, text: string): string {
  // Same canonical hashing as every other call, under its own endpoint name.
  return requestHash({ endpoint: 'embeddings', model, input: text });
}

function toVector(stored: string): Float32Array {
  return Float32Array.from(JSON.parse(stored) as number[]);
}

/** The vectors of an embeddings answer, by `index`, checked for count and shape. */
export function readEmbeddings(answer: unknown, expected: number): number[][] {
  const data = (answer as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== expected)
    throw new LlmHttpError(
      `embeddings answer has ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} texts`,
      { retryable: true },
    );
  const out = new Array<number[]>(expected);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    const vector = item?.embedding;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((x) => typeof x === 'number' && Number.isFinite(x)) ||
      index < 0 ||
      index >= expected
    )
      throw new LlmHttpError('embeddings answer holds a malformed vector', { retryable: true });
    out[index] = vector as number[];
  });
  const dims = out[0]?.length;
  if (out.some((v) => v === undefined || v.length !== dims))
    throw new LlmHttpError('embeddings answer vectors differ in length or are missing', {
      retryable: true,
    });
  return out;
}

function readUsage(answer: unknown): number {
  const tokens = (answer as { usage?: { prompt_tokens?: unknown } })?.usage?.prompt_tokens;
  return typeof tokens === 'number' ? tokens : 0;
}
