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
  /** 1 for an answer's first generation, 2.. for its regenerations. */
  attempt?: number;
  /** The control block's score of the answer (0..1). */
  score?: number;
  /** True when the text came from a stored answer (nothing was paid this time). */
  cached?: boolean;

  /** grill: the stage (`candidates`, `expansion`, `gaps`) of a query or filter decision. */
  stage?: string;
  /** grill: the document a filter decision is about (`filtered-out`, `filter-unreadable`). */
  docno?: string;
  /** The round: llmforum's forum round (1 or 2) of an agent's answer; grill's retrieve → expand round. */
  round?: number;
  /** grill: a round's new documents, and why the loop stopped. */
  newDocuments?: number;
  stop?: string;
  /** grill with decompose: which sub-question (1-based) the entry belongs to. */
  subQuestion?: number;
  /** Why a step fell back or dropped something (`query-fallback`, `filter-kept-all` …). */
  reason?: string;
  /** srsa: the route the entry belongs to. */
  route?: string;
}

/** The trace as JSONL (one entry a line). */
export function formatTrace(entries: readonly TraceEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join('');
}
