// @assay/llm: the LLM layer of methods — recorded chat calls (through the judge engine's
// client), OpenAI-compatible embeddings and rerank clients, method prompts as data.

/** What every call needs: the call store, pacing, retries, spending hooks. */
export type { CallDeps } from './call-deps.js';
/** One recorded call (stored answer reused, else sent with retries and recorded). */
export { cachedCall, type CallResult, type SentAnswer } from './cached-call.js';
/** A recorded chat completion. */
export { chatCall } from './chat-call.js';
/** JSON over HTTP with failures classified for retries. */
export { classifyHttpError, LlmHttpError, postJson, type HttpEndpoint } from './http-json.js';
/** `/v1/embeddings`, cached by (model, text). */
export {
  EmbeddingClient,
  embeddingHash,
  readEmbeddings,
  type EmbeddingOptions,
} from './embedding-client.js';
/** `/v1/rerank`. */
export { readRerank, RerankClient, type RerankResult } from './rerank-client.js';
/** Method prompts: `methods/<id>.md` files with front matter. */
export {
  loadMethodPrompts,
  MethodPromptError,
  parseMethodPrompt,
  renderMethodPrompt,
  type MethodPrompt,
} from './method-prompt.js';
/** Asking a prompt until the answer is usable, else failing with the reason. */
export {
  ask,
  buildMethodRequest,
  UnusableAnswerError,
  type AskAnswer,
  type AskSettings,
} from './ask.js';
