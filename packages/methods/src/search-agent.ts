import type { GeneratedAnswer } from './method-definition.js';
import {
  askStep,
  documentOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  searchOf,
} from './method-context.js';
import { integer } from './settings.js';

/** Documents per search: the paper's search API returned 5 (`max_results = 5`). */
export const SEARCH_K = integer('documents per BM25 search', { default: 5, max: 1_000 });

/** SRSA's planning rounds and ReAct's steps at most (the paper: 5). */
export const MAX_ROUNDS = integer(
  'srsa: planning searches at most; react: Thought/Action steps at most',
  { default: 5, max: 50 },
);

/** Settings shared by SRSA and its baselines (Wang & Xu's search tool and loops). */
export interface SearchAgentSettings {
  searchK: number;
  maxRounds: number;
}

/** Characters of a document's text shown to the model (the rest is cut). */
export const PASSAGE_CHARS = 2000;

/**
 * The request as the agent reads it: the topic's text, preceded by the conversation so far
 * and what the user said about themselves when the topic carries them.
 */
export function requestText(topic: MethodTopic): string {
  const parts: string[] = [];
  if (topic.userBackground?.length)
    parts.push(`About the user:\n${topic.userBackground.map((b) => `- ${b}`).join('\n')}`);
  if (topic.previousTurns?.length)
    parts.push(
      `The conversation so far:\n${topic.previousTurns.map((t) => `${t.role}: ${t.text}`).join('\n')}`,
    );
  if (parts.length === 0) return topic.text;
  parts.push(`Current request:\n${topic.text}`);
  return parts.join('\n\n');
}

/** A document as the model reads it: `[docno] title` then its text, cut at {@link PASSAGE_CHARS}. */
export function passage(context: MethodContext, docno: string): string {
  const doc = documentOf(context, docno);
  const text = doc.text.length > PASSAGE_CHARS ? `${doc.text.slice(0, PASSAGE_CHARS)} …` : doc.text;
  return doc.title ? `[${docno}] ${doc.title}\n${text}` : `[${docno}]\n${text}`;
}

/** Passages of documents, one blank line apart ("(no documents)" for none). */
export function passages(context: MethodContext, docnos: readonly string[]): string {
  return docnos.length ? docnos.map((d) => passage(context, d)).join('\n\n') : '(no documents)';
}

/** Suggestions or sub-questions as a bulleted list. */
export function bullets(items: readonly string[]): string {
  return items.map((s) => `- ${s}`).join('\n');
}

/**
 * Records which documents were found first. The topic's ranking is every document found,
 * in the order first found (each search's BM25 order, searches in the order made), with
 * the documents `promote`d (a method's references) ahead of the rest.
 */
export class FoundDocuments {
  private readonly order: string[] = [];
  private readonly seen = new Set<string>();

  /** Adds a search's results; returns their docnos. */
  add(hits: readonly ScoredDoc[]): string[] {
    for (const h of hits)
      if (!this.seen.has(h.docno)) {
        this.seen.add(h.docno);
        this.order.push(h.docno);
      }
    return hits.map((h) => h.docno);
  }

  /** The ranking: `promote` first (in its order), then the others in first-found order; k at most. */
  ranking(k: number, promote: readonly string[] = []): ScoredDoc[] {
    const first = promote.filter((d, i) => this.seen.has(d) && promote.indexOf(d) === i);
    const firstSet = new Set(first);
    const docnos = [...first, ...this.order.filter((d) => !firstSet.has(d))].slice(0, k);
    // Distinct descending scores, so trec_eval's order (score desc) is this order.
    return docnos.map((docno, i) => ({ docno, score: docnos.length - i }));
  }
}

/**
 * One search of `query` (searchK documents) with the run's search service, traced with its
 * query and results.
 */
export async function search(
  context: MethodContext,
  base: { topic: string; method: string },
  query: string,
  searchK: number,
  found: FoundDocuments,
): Promise<string[]> {
  context.trace({ ...base, step: 'search', text: query });
  const docnos = found.add(await searchOf(context).search(query, searchK));
  context.trace({ ...base, step: 'results', text: docnos.join(' ') });
  return docnos;
}

/** The strings of a list field of a structured answer, trimmed, blanks left out. */
export function stringList(json: unknown, field: string): string[] | string {
  const value = (json as Record<string, unknown>)[field];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    return `$.${field} must be a list of strings`;
  return (value as string[]).map((v) => v.trim()).filter((v) => v !== '');
}

/** A check that a list field holds at least one non-blank string. */
export function nonEmptyList(field: string): (json: unknown) => string | undefined {
  return (json) => {
    const list = stringList(json, field);
    if (typeof list === 'string') return list;
    return list.length === 0 ? `$.${field} is empty` : undefined;
  };
}

/**
 * The final answer (`srsa-answer`, shared by SRSA and its baselines) from the reference
 * material. Its references are the docnos it cites that are among `given` (the documents
 * the material shows), in citation order; any other id it cites is dropped and traced as
 * `dropped-reference`.
 */
export async function finalAnswer(
  context: MethodContext,
  base: { topic: string; method: string },
  query: string,
  material: string,
  given: readonly string[],
): Promise<GeneratedAnswer> {
  const answer = await askStep(context, 'srsa-answer', { query, references: material }, (json) => {
    const list = stringList(json, 'references');
    if (typeof list === 'string') return list;
    return (json as { answer: string }).answer.trim() === '' ? '$.answer is empty' : undefined;
  });
  const text = (answer.json as { answer: string }).answer.trim();
  context.trace({
    ...base,
    step: 'final-answer',
    prompt: 'srsa-answer',
    text,
    cached: answer.cached,
  });
  const allowed = new Set(given);
  const references: string[] = [];
  for (const docno of stringList(answer.json, 'references') as string[]) {
    if (!allowed.has(docno)) context.trace({ ...base, step: 'dropped-reference', text: docno });
    else if (!references.includes(docno)) references.push(docno);
  }
  context.trace({ ...base, step: 'references', text: references.join(' ') });
  return { text, references };
}
