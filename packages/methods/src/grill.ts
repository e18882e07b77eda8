import { ask, estimateTokens } from '@assay/llm';
import { documentQuery, documentText, type Hit } from '@assay/retrieval';
import type { MethodDefinition } from './method-definition.js';
import {
  chatOf,
  documentOf,
  promptOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import { rrfLists } from './ranked-lists.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';
import { FILTER_JUDGE, RelevanceFilter } from './relevance-filter.js';
import type { TraceEntry } from './trace.js';

/** GRILL settings (Owoicho and Dalton, TREC 2025). */
export interface GrillOptions {
  /** Retrieve → expand rounds at most (1: the paper's single-pass baseline; it ran 10 and 22). */
  rounds: number;
  /** Stop once a round adds fewer new documents than this (0: only saturation stops early). */
  minGain: number;
  /** Documents of the fused list passed to the reranker; the rest are cut (the paper: 500). */
  rerankBudget: number;
  /** Split the request into sub-questions, run the pipeline per sub-question, fuse by RRF. */
  decompose: boolean;
  /** BM25 depth of the first-stage query and of every gap query. */
  candidates: number;
  /** BM25 depth of each document used as a query (query-by-document). */
  qbdNeighbours: number;
  /** Terms of highest tf-idf weight taken from a document to make its query. */
  qbdTerms: number;
  /** Top documents of the expanded list shown to the gap analysis. */
  gapDocuments: number;
  /** Gaps used at most, and queries used at most per gap. */
  maxGaps: number;
  queriesPerGap: number;
  /** Sub-questions used at most (decompose). */
  maxSubQuestions: number;
  /** RRF constant of every fusion. */
  rrfK: number;
  /** Characters of each document shown to the gap analysis. */
  passageChars: number;
}

/**
 * The paper's stated settings (one round, rerank budget 500, RRF as Cormack et al. with
 * k = 60); the depths and counts it leaves open are assay's choices: 20 candidates per query,
 * every surviving first-stage document as a query for 10 neighbours of its 10 best terms,
 * the top 10 documents shown to the gap analysis, at most 3 gaps with 3 queries each, at
 * most 5 sub-questions.
 */
export const DEFAULT_GRILL: GrillOptions = {
  rounds: 1,
  minGain: 0,
  rerankBudget: 500,
  decompose: false,
  candidates: 20,
  qbdNeighbours: 10,
  qbdTerms: 10,
  gapDocuments: 10,
  maxGaps: 3,
  queriesPerGap: 3,
  maxSubQuestions: 5,
  rrfK: 60,
  passageChars: 2000,
};

/** Why the retrieve → expand loop stopped. */
export type GrillStop = 'saturated' | 'min-gain' | 'rounds';

type Base = Pick<TraceEntry, 'topic' | 'method' | 'subQuestion'>;

/**
 * GRILL for one topic: the request rewritten with its conversation (or, with `decompose`,
 * split into sub-questions), then per query: BM25 candidates; query-by-document rounds,
 * each seeded by the documents the previous round found, until a round adds nothing, adds
 * fewer than `minGain`, or `rounds` were run; a gap analysis of the top documents whose
 * queries are run with BM25; RRF of every list. The binary-filter judge removes documents
 * after every stage. The fused list (of the sub-questions' lists, with `decompose`) is cut
 * to `rerankBudget` documents and reranked by the context's reranker, when there is one.
 */
export async function grillTopic(
  context: MethodContext,
  topic: MethodTopic,
  options: GrillOptions,
): Promise<ScoredDoc[]> {
  const base: Base = { topic: topic.id, method: 'grill' };
  const values = contextValues(topic);
  let fused: ScoredDoc[];
  let rerankQuery: string;
  if (options.decompose) {
    const questions = await decompose(context, topic, values, options, base);
    const lists: ScoredDoc[][] = [];
    for (const [i, question] of questions.entries())
      lists.push(await pipeline(context, question, options, { ...base, subQuestion: i + 1 }));
    fused = rrfLists(lists, options.rrfK, totalLength(lists));
    rerankQuery = topic.text;
  } else {
    rerankQuery = await rewrite(context, topic, values, base);
    fused = await pipeline(context, rerankQuery, options, base);
  }
  const budgeted = fused.slice(0, options.rerankBudget);
  const ranked = context.reranker
    ? await context.reranker.rerank(rerankQuery, budgeted, context)
    : budgeted;
  return ranked.slice(0, context.k);
}

/** The conversation and user background as the rewrite and decompose prompts show them. */
function contextValues(topic: MethodTopic): { conversation: string; background: string } {
  const turns = topic.previousTurns ?? [];
  const background = topic.userBackground ?? [];
  return {
    conversation: turns.length
      ? turns.map((t) => `${t.role}: ${t.text}`).join('\n')
      : '(none: this is the first turn)',
    background: background.length ? background.map((b) => `- ${b}`).join('\n') : '(nothing)',
  };
}

async function rewrite(
  context: MethodContext,
  topic: MethodTopic,
  values: { conversation: string; background: string },
  base: Base,
): Promise<string> {
  const chat = chatOf(context);
  const prompt = promptOf(context, 'grill-rewrite');
  const answer = await ask(
    chat.client,
    prompt,
    { query: topic.text, ...values },
    {
      model: chat.model,
      validate: (json) =>
        (json as { query: string }).query.trim() === ''
          ? 'the rewritten query is empty'
          : undefined,
    },
    context.deps,
  );
  const query = (answer.json as { query: string }).query.trim();
  context.trace({
    ...base,
    step: 'rewrite',
    prompt: prompt.id,
    text: query,
    cached: answer.cached,
  });
  return query;
}

async function decompose(
  context: MethodContext,
  topic: MethodTopic,
  values: { conversation: string; background: string },
  options: GrillOptions,
  base: Base,
): Promise<string[]> {
  const chat = chatOf(context);
  const prompt = promptOf(context, 'grill-decompose');
  const answer = await ask(
    chat.client,
    prompt,
    { query: topic.text, ...values },
    {
      model: chat.model,
      validate: (json) =>
        nonBlankStrings((json as { sub_questions: unknown }).sub_questions, 'sub-question'),
    },
    context.deps,
  );
  const questions = (answer.json as { sub_questions: string[] }).sub_questions
    .map((q) => q.trim())
    .filter((q) => q !== '')
    .slice(0, options.maxSubQuestions);
  questions.forEach((text, i) =>
    context.trace({
      ...base,
      step: 'sub-question',
      prompt: prompt.id,
      subQuestion: i + 1,
      text,
      cached: answer.cached,
    }),
  );
  return questions;
}

/** The problem with a list that should hold at least one non-blank string, or undefined. */
function nonBlankStrings(value: unknown, what: string): string | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    return `the ${what}s are not a list of strings`;
  return value.some((v: string) => v.trim() !== '') ? undefined : `no ${what} was given`;
}

interface Gap {
  gap: string;
  queries: string[];
}

function gapProblem(json: unknown): string | undefined {
  const gaps = (json as { gaps: unknown }).gaps;
  if (!Array.isArray(gaps)) return 'gaps is not a list';
  if (gaps.length === 0) return 'no gap was named';
  for (const g of gaps as unknown[]) {
    const gap = g as Partial<Gap> | null;
    if (typeof gap !== 'object' || gap === null || typeof gap.gap !== 'string')
      return 'a gap has no description';
    if (gap.gap.trim() === '') return 'a gap is empty';
    const problem = nonBlankStrings(gap.queries, 'query');
    if (problem) return `gap '${gap.gap.trim()}': ${problem}`;
  }
  return undefined;
}

/** One query through candidates, query-by-document rounds and gap analysis, fused by RRF. */
async function pipeline(
  context: MethodContext,
  query: string,
  options: GrillOptions,
  base: Base,
): Promise<ScoredDoc[]> {
  const filter = new RelevanceFilter(context, query);
  const docNumbers = new Map<string, number>();
  const lists: Hit[][] = [];
  const known = new Set<string>();

  /** Each list without the documents the judge says are not relevant; new decisions traced. */
  const keep = async (stage: string, found: Hit[][], round?: number): Promise<Hit[][]> => {
    const order: string[] = [];
    const fresh = new Set<string>();
    for (const list of found)
      for (const hit of list) {
        docNumbers.set(hit.docno, hit.doc);
        if (!filter.judged(hit.docno) && !fresh.has(hit.docno)) {
          fresh.add(hit.docno);
          order.push(hit.docno);
        }
      }
    const decisions = await filter.judge([...new Set(found.flat().map((h) => h.docno))]);
    for (const docno of order) {
      const d = decisions.get(docno)!;
      const where = { ...base, stage, ...(round !== undefined ? { round } : {}), docno };
      if (d.unreadable !== undefined)
        context.trace({
          ...where,
          step: 'filter-unreadable',
          prompt: FILTER_JUDGE,
          text: d.unreadable,
        });
      else if (!d.relevant)
        context.trace({ ...where, step: 'filtered-out', prompt: FILTER_JUDGE, text: query });
    }
    return found.map((list) => list.filter((h) => decisions.get(h.docno)!.relevant));
  };

  // Stage 1: BM25 candidates.
  context.trace({ ...base, step: 'query', stage: 'candidates', text: query });
  const [first] = await keep('candidates', [context.bm25.search(query, options.candidates)]);
  lists.push(first!);
  for (const h of first!) known.add(h.docno);

  // Stage 2, in rounds: each seed document as a query (query-by-document).
  let seeds = first!.map((h) => h.docno);
  for (let round = 1; round <= options.rounds; round++) {
    const found = seeds.map((docno) =>
      context.bm25.searchWeighted(
        documentQuery(context.bm25.index, docNumbers.get(docno)!, options.qbdTerms),
        options.qbdNeighbours,
      ),
    );
    const kept = await keep('expansion', found, round);
    lists.push(...kept);
    const added: string[] = [];
    for (const list of kept)
      for (const h of list)
        if (!known.has(h.docno)) {
          known.add(h.docno);
          added.push(h.docno);
        }
    const stop: GrillStop | undefined =
      added.length === 0
        ? 'saturated'
        : added.length < options.minGain
          ? 'min-gain'
          : round === options.rounds
            ? 'rounds'
            : undefined;
    context.trace({
      ...base,
      step: 'round',
      round,
      newDocuments: added.length,
      ...(stop ? { stop } : {}),
      text: `round ${round}: ${seeds.length} seed documents, ${added.length} new documents, ${known.size} in all${stop ? `; stopped: ${stop}` : ''}`,
    });
    if (stop) break;
    seeds = added;
  }

  // Stage 3: gap analysis over the top documents so far, then BM25 per gap query.
  const top = rrfLists(lists, options.rrfK, options.gapDocuments);
  const passages = top.length
    ? top
        .map(
          (d, i) =>
            `[${i + 1}] ${clip(documentText(documentOf(context, d.docno)), options.passageChars)}`,
        )
        .join('\n\n')
    : '(no document found yet)';
  const chat = chatOf(context);
  const prompt = promptOf(context, 'grill-gaps');
  const answer = await ask(
    chat.client,
    prompt,
    { query, passages },
    { model: chat.model, validate: gapProblem },
    context.deps,
  );
  const queries: string[] = [];
  for (const g of (answer.json as { gaps: Gap[] }).gaps.slice(0, options.maxGaps)) {
    context.trace({
      ...base,
      step: 'gap',
      prompt: prompt.id,
      text: g.gap.trim(),
      cached: answer.cached,
    });
    for (const q of g.queries
      .map((q) => q.trim())
      .filter((q) => q !== '')
      .slice(0, options.queriesPerGap)) {
      context.trace({
        ...base,
        step: 'generated-query',
        prompt: prompt.id,
        text: q,
        cached: answer.cached,
      });
      queries.push(q);
    }
  }
  lists.push(
    ...(await keep(
      'gaps',
      queries.map((q) => context.bm25.search(q, options.candidates)),
    )),
  );
  return rrfLists(lists, options.rrfK, totalLength(lists));
}

function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}…`;
}

function totalLength(lists: readonly unknown[][]): number {
  return lists.reduce((s, l) => s + l.length, 0);
}

const longest = new WeakMap<object, number>();

/** Tokens of the longest document (found once per collection: the estimate asks per topic). */
function longestPassage(documents: readonly { title?: string; text: string }[]): number {
  let tokens = longest.get(documents);
  if (tokens === undefined) {
    tokens = 0;
    for (const d of documents) tokens = Math.max(tokens, estimateTokens(documentText(d)));
    longest.set(documents, tokens);
  }
  return tokens;
}

/** The settings of a run, defaults filled in. */
function grillOptions(options: ModelRetrieveOptions): GrillOptions {
  return {
    ...DEFAULT_GRILL,
    ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
    ...(options.minGain !== undefined ? { minGain: options.minGain } : {}),
    ...(options.rerankBudget !== undefined ? { rerankBudget: options.rerankBudget } : {}),
    ...(options.decompose !== undefined ? { decompose: options.decompose } : {}),
  };
}

/** `grill`: agentic iterative retrieval with gap analysis and a relevance filter. */
export const grillMethod: MethodDefinition = {
  name: 'grill',
  check(options) {
    const o = grillOptions(options);
    if (!Number.isInteger(o.rounds) || o.rounds < 1)
      throw new Error(`grill rounds must be a whole number of at least 1, not ${o.rounds}`);
    if (!Number.isInteger(o.minGain) || o.minGain < 0)
      throw new Error(`grill min-gain must be a whole number of at least 0, not ${o.minGain}`);
    if (!Number.isInteger(o.rerankBudget) || o.rerankBudget < 1)
      throw new Error(
        `grill rerank budget must be a whole number of at least 1, not ${o.rerankBudget}`,
      );
    if (options.aggregation !== undefined) throw new Error('grill has no aggregation setting');
  },
  needsChat: () => true,
  needsEmbeddings: () => false,
  needsDocumentText: () => true,
  parameters(options, p) {
    const o = grillOptions(options);
    p['grill.rounds'] = o.rounds;
    p['grill.min-gain'] = o.minGain;
    p['grill.rerank-budget'] = o.rerankBudget;
    p['grill.decompose'] = String(o.decompose);
    if (o.decompose) p['grill.max-sub-questions'] = o.maxSubQuestions;
    p['grill.candidates'] = o.candidates;
    p['grill.qbd-seeds'] = 'every kept document of the previous stage';
    p['grill.qbd-neighbours'] = o.qbdNeighbours;
    p['grill.qbd-terms'] = o.qbdTerms;
    p['grill.gap-documents'] = o.gapDocuments;
    p['grill.passage-chars'] = o.passageChars;
    p['grill.max-gaps'] = o.maxGaps;
    p['grill.queries-per-gap'] = o.queriesPerGap;
    p['grill.rrf-k'] = o.rrfK;
    p['grill.filter'] = FILTER_JUDGE;
    p['grill.filter-unreadable'] = 'keep';
  },
  runTopic: (context, topic, options) => grillTopic(context, topic, grillOptions(options)),
  estimateTopic(topic, options, sink) {
    const o = grillOptions(options);
    // The documents' text, when the estimate was given it: the longest passage bounds a
    // judgment's size and the collection bounds the documents judged per query.
    const documents = (options as { documents?: readonly { title?: string; text: string }[] })
      .documents;
    const passage = documents ? longestPassage(documents) : 0;
    const q = estimateTokens(topic.text);
    const context = [
      ...(topic.previousTurns ?? []).map((t) => t.text),
      ...(topic.userBackground ?? []),
    ]
      .map(estimateTokens)
      .reduce((s, n) => s + n, 0);
    let queries = 1;
    let query = sink.max('grill-rewrite');
    if (o.decompose) {
      sink.call('grill-decompose', q + context);
      queries = o.maxSubQuestions;
      query = sink.max('grill-decompose');
    } else sink.call('grill-rewrite', q + context);
    for (let i = 0; i < queries; i++) {
      let judged = o.candidates;
      let seeds = o.candidates;
      for (let r = 0; r < o.rounds; r++) {
        judged += seeds * o.qbdNeighbours;
        seeds *= o.qbdNeighbours;
        if (judged >= (documents ? documents.length : 1_000_000)) break;
      }
      judged += o.maxGaps * o.queriesPerGap * o.candidates;
      // Without the collection's size, many rounds would count more documents than any
      // collection has; a million stands for "the whole collection".
      judged = Math.min(judged, documents ? documents.length : 1_000_000);
      // A filter judgment is counted as a call of the rewrite prompt, whose text and
      // max_tokens are larger than the binary-filter judge's: an upper bound.
      for (let j = 0; j < judged; j++) sink.call('grill-rewrite', query + passage);
      sink.call(
        'grill-gaps',
        query + o.gapDocuments * Math.min(passage, Math.ceil(o.passageChars / 4)),
      );
    }
  },
};
