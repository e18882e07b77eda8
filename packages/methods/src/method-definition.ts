import type { MethodContext, MethodTopic, ScoredDoc } from './method-context.js';
import type { SettingsOf, SettingsShape, Spell } from './settings.js';

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

/** What the run has besides the method's settings, for the checks that depend on it. */
export interface RunModels {
  /** An embeddings model is configured. */
  embeddings: boolean;
}

/** Whether a method embeds: always, never, or when an embeddings model is configured. */
export type EmbeddingUse = 'required' | 'optional' | 'none';

/**
 * One retrieval method that calls models: the paper it follows, its settings (one schema,
 * from which the CLI flags and help, the API body, the errors and the docs' methods table
 * are made), what it needs, the parameters it records, how it works on one topic and what
 * it would cost. Registered in `methods-registry.ts`.
 */
export interface MethodDefinition<S extends SettingsShape = SettingsShape> {
  /** The `--method` name. */
  name: string;
  /** The paper (authors, year, title, venue), or what the method is when it is no paper's. */
  paper: string;
  /** Its steps, in a sentence or two (docs). */
  steps: string;
  /** Calls per topic (docs). */
  calls: string;
  /**
   * How the paper ran it, where assay's defaults differ or a choice is the user's (models,
   * sampling, rerankers), and the options that reproduce it (docs).
   */
  reproduce: string;
  settings: S;
  /** The prompt ids (and `binary-filter`) it asks: the steps that take their own model settings. */
  prompts: readonly string[];
  /** Prefix of its settings in the run's parameters (default: the name). */
  prefix?: string;
  /** Checks that span several settings; throws a SettingsError naming them with `spell`. */
  check?(settings: SettingsOf<S>, spell: Spell): void;
  needsChat(settings: SettingsOf<S>): boolean;
  embeddings(settings: SettingsOf<S>): EmbeddingUse;
  /** Whether it answers each topic (its answers can be written as responses). */
  answers?: boolean;
  /** Whether it reads documents' text (reranking, query-by-document, answers). */
  needsDocumentText?(settings: SettingsOf<S>): boolean;
  /**
   * Whether it reads documents' term vectors from the own index (query-by-document, tf-idf
   * feedback), which an on-disk index does not hold.
   */
  readsTermVectors?(settings: SettingsOf<S>, models: RunModels): boolean;
  /** How many of each topic's first-stage documents it reads the text of (`--first-stage`). */
  firstStageTexts?(settings: SettingsOf<S>): number;
  /** What a user should know about how the run departs from the paper (stderr, run header). */
  warnings?(settings: SettingsOf<S>, models: RunModels): string[];
  /** Adds what the settings do not say (fixed facts of the method) to the run's parameters. */
  parameters?(settings: SettingsOf<S>, out: Record<string, string | number>, models: RunModels): void;
  /** Ranks the documents of one topic (and answers it, for methods that answer). */
  runTopic(
    context: MethodContext,
    topic: MethodTopic,
    settings: SettingsOf<S>,
  ): Promise<ScoredDoc[] | TopicOutcome>;
  /** Counts the calls and tokens one topic needs at most. */
  estimateTopic(
    topic: MethodTopic,
    settings: SettingsOf<S>,
    sink: EstimateSink,
    extra: EstimateExtra,
  ): void;
}

/** What an estimate may know besides the topic and the settings. */
export interface EstimateExtra {
  /** The collection's documents, when read (bounds the documents a filter judges). */
  documents?: readonly { title?: string; text: string }[];
  /** An embeddings model is configured. */
  embeddings: boolean;
}

/** A method's definition with its settings' type checked (the registry keeps them untyped). */
export function defineMethod<S extends SettingsShape>(
  definition: MethodDefinition<S>,
): MethodDefinition {
  return definition as unknown as MethodDefinition;
}
