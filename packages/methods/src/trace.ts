/**
 * One generated text (or the query built from them) of one topic, as written to the JSONL
 * trace beside a run: what the LLM produced, step by step, for a user to read.
 */
export interface TraceEntry {
  topic: string;
  method: string;
  /** `pseudo-document`, `sub-question`, `pseudo-answer`, `refined-answer`, `query`, `failed`. */
  step: string;
  /** The prompt file that produced the text, when an LLM did. */
  prompt?: string;
  /** AMD's dimension: clarification, assumption probing, implication probing. */
  dimension?: string;
  text: string;
  // llmforum
  /** Who wrote the text: `agent 1`..`agent 3` or `supervisor`. */
  speaker?: string;
  /** The forum round (1 or 2) of an agent's answer. */
  round?: number;
  /** 1 for an answer's first generation, 2.. for its regenerations. */
  attempt?: number;
  /** The control block's score of the answer (0..1). */
  score?: number;
  /** True when the text came from a stored answer (nothing was paid this time). */
  cached?: boolean;
}

/** The trace as JSONL (one entry a line). */
export function formatTrace(entries: readonly TraceEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join('');
}
