// @assay/methods: retrieval methods that use LLMs and embeddings (Query2doc, AMD, dense,
// hybrid), every call recorded through the call store and every generated text traced.

/** Exact cosine search over typed arrays; AMD's weighted query vector. */
export { DenseIndex, unitVector, weightedQueryVector, type DenseHit } from './dense-index.js';
/** The query strings the methods build (Query2doc's repetition, AMD's `[SEP]` string). */
export { amdSparseQuery, query2docDenseText, query2docSparseQuery, SEP } from './query-strings.js';
/** What a method works with on one topic. */
export type {
  ConversationTurn,
  DocumentText,
  FirstStage,
  MethodContext,
  MethodTopic,
  Reranker,
  ScoredDoc,
  StepSettings,
} from './method-context.js';
/** What a method is: its paper, settings, needs, parameters, work per topic and estimate. */
export type {
  EstimateSink,
  GeneratedAnswer,
  MethodDefinition,
  TopicOutcome,
} from './method-definition.js';
/** The methods that call models, by name, and their settings (one schema per method). */
export {
  compactMethods,
  isModelMethod,
  METHOD_DEFINITIONS,
  methodDefinition,
  methodSettingsSchema,
  methodsWithSetting,
  MODEL_METHODS,
  parseMethodSettings,
  settingDefaults,
  settingsCatalogue,
  type CataloguedSetting,
  type ModelMethod,
} from './methods-registry.js';
/** Settings: what a setting is, the errors naming it, values from command-line text. */
export {
  expects,
  kebab,
  listOf,
  SettingsError,
  valueFromText,
  type SettingInfo,
  type Spell,
} from './settings.js';
/** The docs' methods and settings tables, made from the definitions. */
export { flagOf, methodsReference } from './methods-table.js';
/** Options of a run. */
export type { ModelRetrieveOptions } from './retrieve-options.js';
/** Query2doc (Wang et al., 2023). */
export { query2docTopic, type Query2docMode } from './query2doc.js';
/** AMD: Socratic sub-questions, pseudo-answers, reflective feedback, three aggregations. */
export {
  AMD_DIMENSIONS,
  amdTopic,
  DEFAULT_AMD,
  type AmdAggregation,
  type AmdOptions,
} from './amd.js';
/** Dense retrieval and its RRF hybrid with BM25. */
export { denseTopic, hybridTopic } from './dense-methods.js';
/** Generate-then-retrieve for conversational topics: QR, AD, QD, AQD, AQD_A. */
export {
  DEFAULT_GR,
  GR_MAX_QUERIES,
  grConversation,
  grTopic,
  type GrOptions,
  type GrVariant,
} from './generate-then-retrieve.js';
/** SRSA (Wang & Xu, 2024) and its baselines: simple search and a ReAct agent. */
export { ROUTER_FALLBACK, srsaTopic, type SrsaRoute, type SrsaStrategy } from './srsa.js';
/** SRSA's baselines: one search then the answer; a ReAct agent with a search tool. */
export { reactTopic, simpleSearchTopic } from './search-baselines.js';
/** What SRSA and its baselines share: settings, the request text with its context. */
export { PASSAGE_CHARS, requestText, type SearchAgentSettings } from './search-agent.js';
/** Rerankers: a cross-encoder over `/v1/rerank`, RankGPT's listwise sliding window. */
export { CrossEncoderReranker, DEFAULT_RERANK_BATCH } from './cross-encoder-reranker.js';
export {
  DEFAULT_RANKGPT,
  parsePermutation,
  RankGptReranker,
  slidingWindows,
  type RankGptOptions,
} from './rankgpt-reranker.js';
/** The rerank baseline: BM25's top documents reordered by the reranker. */
export { DEFAULT_RERANK_DEPTH, rerankTopic } from './rerank-method.js';
/** RRF over ranked lists. */
export { rrfLists } from './ranked-lists.js';
/** LLMForum-RAG: weighted-Rocchio retrieval, the agents' forum and its control block. */
export {
  DEFAULT_LLMFORUM,
  llmforumTopic,
  LLMFORUM,
  summaryRouge,
  type LlmforumOptions,
} from './llmforum.js';
/** The context split into three word chunks with 10% overlap (LLMForum's agents). */
export { splitIntoChunks, type TextChunk } from './context-chunks.js';
/** Weighted Rocchio over embeddings: q' = α·q + β·pos − γ·neg, similarity-weighted. */
export { weightedRocchioVector, type FeedbackVector } from './dense-rocchio.js';
/** The control block's lexical similarity (without embeddings) and its scores. */
export { lexicalSimilarity, type ControlScore } from './llmforum-control.js';
/** Spending and the budget stop. */
export { BudgetExceededError, SpendTracker } from './spend-tracker.js';
/** The JSONL trace of generated texts. */
export { formatTrace, type TraceEntry } from './trace.js';
/** Running a method over topics. */
export {
  methodNeeds,
  readsTermVectors,
  modelMethodParameters,
  retrieveWithModels,
  type EmbeddingResources,
  type MethodNeeds,
  type MissingTopic,
  type ModelResources,
  type ModelRun,
  MissingTextsError,
} from './llm-retrieve.js';
/** Where methods search (own index, Anserini REST, Elasticsearch/OpenSearch), first stages. */
export {
  AnseriniSearch,
  ElasticsearchSearch,
  externalSearch,
  firstStageOf,
  SearchServiceError,
  type SearchService,
} from './search-service.js';
/** Dry-run estimate of calls, tokens and cost. */
export { estimateModelRun, type RunEstimate } from './estimate.js';
/** Where the shipped prompts are. */
export { defaultMethodsDir } from './prompts-dir.js';
/** GRILL: rewrite, BM25, query-by-document rounds, gap analysis, relevance filter, RRF. */
export { DEFAULT_GRILL, grillTopic, type GrillOptions, type GrillStop } from './grill.js';
/** The reranker a run's settings name (cross-encoder, RankGPT, or none). */
export { rerankerFor, type RerankerSettings } from './reranker-for.js';
