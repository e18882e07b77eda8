/** One retrieved document of a run for one topic, as written in a TREC run file. */
export interface RunEntry {
  /** Document identifier (third column). */
  docno: string;
  /** Rank column as written; trec_eval ignores it and re-ranks by score. */
  rank: number;
  /** Retrieval score (fifth column). */
  score: number;
}

/** A parsed TREC run: `qid Q0 docno rank score tag` lines grouped by topic. */
export interface Run {
  /** Run tag from the sixth column of the last line (what trec_eval reports as `runid`). */
  name: string;
  /** Entries per topic id, in file order (not yet ranked). Topic order is first appearance. */
  topics: Map<string, RunEntry[]>;
}

/** Relevance judgments: topic id → docno → integer grade (negative = in pool, unjudged). */
export type Qrels = Map<string, Map<string, number>>;

/** A search topic (query) with optional TREC fields. */
export interface Topic {
  id: string;
  /** The query text (TSV text, JSONL `text`/`query`/`title`, or the XML `<title>`). */
  text: string;
  description?: string;
  narrative?: string;
  /** Any other named fields found in the source (JSONL keys, XML tags). */
  fields?: Record<string, unknown>;
}
