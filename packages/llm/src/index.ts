// @assay/llm: the LLM layer shared by judges and retrieval methods — the OpenAI-compatible
// chat client, retries, pacing, cost, request hashing, the call store interface, recorded
// calls, embeddings and rerank clients, prompt files and the one ask loop.

/** Canonical JSON and the SHA-256 request hash used as cache key. */
export { canonicalJson, chatRequestHash, requestHash } from './request-hash.js';
/** Retry policy: exponential backoff with jitter that honours Retry-After. */
export {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  CallStoppedError,
  parseRetryAfter,
  withRetries,
  type AttemptFailure,
  type RetryPolicy,
} from './retry.js';
/** Concurrency and requests/tokens-per-minute pacing. */
export { RateLimiter, type RateLimits } from './limiter.js';
/** Prices, cost of a call, token estimates. */
export { callCost, DEFAULT_PRICES, estimateTokens, hasPrice, type ModelPrice } from './cost.js';
/** The OpenAI-compatible chat client and its request/response shapes. */
export {
  ChatCallError,
  classifyChatError,
  OpenAIChatClient,
  type ChatCallOptions,
  type ChatClient,
  type ChatRequest,
  type ChatResponse,
  type EndpointConfig,
  type TokenLogprob,
} from './chat-client.js';
/** Recorded LLM calls and where they are kept. */
export { MemoryCallStore, type CallStore, type LlmCallRecord } from './call-store.js';
/** Checking a parsed answer against a prompt's JSON schema. */
export { checkSchema, type JsonSchema } from './json-schema.js';

/** What every call needs: the call store, pacing, retries, spending hooks. */
export type { CallDeps } from './call-deps.js';
/** One recorded call (stored answer reused, else sent with retries and recorded). */
export {
  cachedCall,
  ImpossibleUsageError,
  MAX_CALL_TOKENS,
  type CallResult,
  type SentAnswer,
} from './cached-call.js';
/** Reading answer bodies up to a size limit. */
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  fetchWithLimit,
  readLimitedBody,
  ResponseTooLargeError,
} from './response-limit.js';
/** A recorded chat completion. */
export { chatCall } from './chat-call.js';
/** JSON over HTTP with failures classified for retries. */
export {
  classifyHttpError,
  LlmHttpError,
  OPENAI_API_BASE_URL,
  postJson,
  publicEndpoint,
  type HttpEndpoint,
} from './http-json.js';
/** The Batch API: input and output files, batch prices, the Files and Batches endpoints. */
export {
  BATCH_CHAT_URL,
  batchCallCost,
  batchInputLine,
  batchIsOver,
  OpenAIBatchClient,
  readBatchOutput,
  type BatchInfo,
  type BatchOutputReading,
} from './batch.js';
/** `/v1/embeddings`, cached by (model, text). */
export {
  EmbeddingClient,
  embeddingHash,
  readEmbeddings,
  type EmbeddingOptions,
} from './embedding-client.js';
/** `/v1/rerank`. */
export { readRerank, RerankClient, type RerankResult } from './rerank-client.js';
/** Prompt files (judges and methods): YAML front matter, then the prompt; one parser, one renderer. */
export {
  loadPromptFiles,
  parsePromptFile,
  PromptFileError,
  renderPrompt,
  type PromptFile,
  type PromptValues,
  type RenderedPrompt,
} from './prompt-file.js';
/** Method prompts: `methods/<id>.md` prompt files with a method and a step. */
export { loadMethodPrompts, parseMethodPrompt, type MethodPrompt } from './method-prompt.js';
/** The one ask loop: a prompt asked until its answer is usable, else failing with the reason. */
export {
  ask,
  askPrompt,
  firstAttemptOf,
  buildPromptRequest,
  UnusableAnswerError,
  type AnswerReading,
  type AskAnswer,
  type AskSettings,
  type PromptAnswer,
  type PromptSettings,
} from './ask.js';
