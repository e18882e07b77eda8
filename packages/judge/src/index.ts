// @assay/judge: LLM judging — templates, an OpenAI-compatible client, pacing, retries,
// request hashing (the cache key), cost and answer parsing.

/** Judge templates: parse, render, load a folder of `<id>.md` files. */
export {
  loadJudgeTemplates,
  parseTemplate,
  renderTemplate,
  TemplateError,
  type JsonSchema,
  type JudgeTemplate,
  type RenderedPrompt,
  type TemplateValues,
} from './template.js';
/** Reading a judge's raw answer (JSON with schema check, labelled-grade fallback). */
export {
  checkSchema,
  parseJudgeOutput,
  type ParseResult,
  type ParsedJudgment,
} from './parse-output.js';
/** Canonical JSON and the SHA-256 request hash used as cache key. */
export { canonicalJson, chatRequestHash, requestHash } from './request-hash.js';
/** Retry policy: exponential backoff with jitter that honours Retry-After. */
export {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  withRetries,
  type AttemptFailure,
  type RetryPolicy,
} from './retry.js';
/** Concurrency and requests/tokens-per-minute pacing. */
export { RateLimiter, type RateLimits } from './limiter.js';
/** Prices, cost of a call, token estimates. */
export { callCost, DEFAULT_PRICES, estimateTokens, type ModelPrice } from './cost.js';
/** The OpenAI-compatible chat client and its request/response shapes. */
export {
  ChatCallError,
  classifyChatError,
  OpenAIChatClient,
  type ChatClient,
  type ChatRequest,
  type ChatResponse,
  type EndpointConfig,
  type TokenLogprob,
} from './chat-client.js';
/** Recorded LLM calls and where they are kept. */
export { MemoryCallStore, type CallStore, type LlmCallRecord } from './call-store.js';
/** Judging one item end to end. */
export {
  buildJudgeRequest,
  gradeDistribution,
  judgeItem,
  type JudgeDeps,
  type JudgeOutcome,
  type JudgeSettings,
} from './judge.js';
