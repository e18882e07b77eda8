import type { MethodContext, MethodTopic, ScoredDoc } from './method-context.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';

/** A generated answer of a method that answers (SRSA, LLMForum), with its references. */
export interface GeneratedAnswer {
  text: string;
  /** Docnos the answer rests on, in the order the method cited or used them. */
  references: string[];
}

/** What a method produced for one topic: its ranking, and an answer for methods that answer. */
export interface TopicOutcome {
  docs: ScoredDoc[];
  answer?: GeneratedAnswer;
  /** A short label of the path the method took (SRSA's route), kept in the run's parameters. */
  route?: string;
}

/** Where a method's dry-run estimate is counted (see `estimateModelRun`). */
export interface EstimateSink {
  /** One chat call of prompt `id` with this many tokens besides the prompt's own text. */
  call(id: string, inputTokens: number): void;
  /** The `max_tokens` of prompt `id` (256 when it sets none): the size of a generated text. */
  max(id: string): number;
  /** Texts embedded for a topic, and their tokens. */
  embed(texts: number, tokens: number): void;
}

/**
 * One retrieval method that calls models: what it needs, the parameters it records, how it
 * works on one topic and what it would cost. Registered in `methods-registry.ts`.
 */
export interface MethodDefinition {
  /** The `--method` name. */
  name: string;
  /** Checks the method's options before anything is read or sent; throws with the reason. */
  check?(options: ModelRetrieveOptions): void;
  needsChat(options: ModelRetrieveOptions): boolean;
  needsEmbeddings(options: ModelRetrieveOptions): boolean;
  /** Whether it answers each topic (its answers can be written as responses). */
  answers?: boolean;
  /** Whether it reads documents' text (reranking, query-by-document, answers). */
  needsDocumentText?(options: ModelRetrieveOptions): boolean;
  /** Adds the method's settings, defaults filled in, to the run's parameters. */
  parameters(options: ModelRetrieveOptions, out: Record<string, string | number>): void;
  /** Ranks the documents of one topic (and answers it, for methods that answer). */
  runTopic(
    context: MethodContext,
    topic: MethodTopic,
    options: ModelRetrieveOptions,
  ): Promise<ScoredDoc[] | TopicOutcome>;
  /** Counts the calls and tokens one topic needs at most. */
  estimateTopic(topic: MethodTopic, options: ModelRetrieveOptions, sink: EstimateSink): void;
}
