import { type AskAnswer, estimateTokens, UnusableAnswerError } from '@assay/llm';
import {
  analyzeQuery,
  documentQuery,
  documentText,
  wholeDocumentQuery,
  type Bm25Index,
  type WeightedQuery,
} from '@assay/retrieval';
import { defineMethod } from './method-definition.js';
import {
  askOrFallback,
  askStep,
  documentOf,
  usableQueries,
  usableQuery,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  searchOf,
  topicCandidates,
  memoryIndexOf,
} from './method-context.js';
import { rrfLists } from './ranked-lists.js';
import { FILTER_JUDGE, RelevanceFilter } from './relevance-filter.js';
import { checkRankGpt, RERANKER_SETTINGS } from './reranker-for.js';
import {
  choice,
  defaultsOf,
  integer,
  onSwitch,
  settings,
  type SettingsOf,
} from './settings.js';
import type { TraceEntry } from './trace.js';
import { FIRST_STAGE_SETTINGS, SEARCH_SETTINGS } from './search-service.js';

const GRILL_SETTINGS = settings({
  rounds: integer(
    'retrieve → expand rounds at most; stops early when a round adds nothing (saturation)',
    { default: 1, max: 50, paper: '1 (baseline run), 10 and 22 (saturation runs)' },
  ),
  minGain: integer('also stop when a round adds fewer new documents (0: off)', {
    default: 0,
    min: 0,
    max: 100_000,
  }),
  rerankBudget: integer('documents of the fused list kept (and reranked)', {
    default: 500,
    max: 100_000,
  }),
  decompose: onSwitch(
    'split the request into sub-questions, run the pipeline for each, fuse them by RRF',
    { paper: 'on for the RAG track' },
  ),
  maxSubQuestions: integer('sub-questions used at most', {
    default: 5,
    max: 20,
    onlyWith: { key: 'decompose' },
  }),
  candidates: integer('BM25 depth of the first-stage query and of every gap query', {
    default: 20,
    max: 10_000,
  }),
  qbdQuery: choice(
    ['document', 'terms'],
    "query-by-document: the document's text as the query, or its --qbd-terms best tf-idf terms",
    { default: 'document' },
  ),
  qbdTerms: integer("terms of highest tf-idf weight of a document's query", {
    default: 10,
    max: 1_000,
    onlyWith: { key: 'qbdQuery', value: 'terms' },
  }),
  qbdNeighbours: integer('BM25 depth of each document used as a query', {
    default: 10,
    max: 10_000,
  }),
  gapDocuments: integer('top documents shown to the gap analysis', { default: 10, max: 100 }),
  maxGaps: integer('gaps used at most', { default: 3, max: 20 }),
  queriesPerGap: integer('queries used at most per gap', { default: 3, max: 20 }),
  passageChars: integer('characters of a document shown to the gap analysis', {
    default: 2000,
    max: 100_000,
  }),
  rrfK: integer('RRF constant k of every fusion', { default: 60, max: 10_000 }),
  ...RERANKER_SETTINGS,
  ...SEARCH_SETTINGS,
  ...FIRST_STAGE_SETTINGS,
});

/** GRILL settings (Owoicho and Dalton, TREC 2025), parsed. */
export type GrillOptions = SettingsOf<typeof GRILL_SETTINGS>;

/**
 * The paper's stated settings (one round, rerank budget 500, the document as its own query,
 * RRF as Cormack et al. with k = 60); the depths and counts it leaves open are assay's
 * choices: 20 candidates per query, 10 neighbours per document, the top 10 documents shown
 * to the gap analysis, at most 3 gaps with 3 queries each, at most 5 sub-questions.
 */
export const DEFAULT_GRILL: GrillOptions = defaultsOf(GRILL_SETTINGS);

/** Why the retrieve → expand loop stopped. */
export type GrillStop = 'saturated' | 'min-gain' | 'rounds';

type Base = Pick<TraceEntry, 'topic' | 'method' | 'subQuestion'>;

/**
 * GRILL for one topic: the request rewritten with its conversation (or, with `decompose`,
 * split into sub-questions), then per query: BM25 candidates (or the topic's list in the
 * first-stage run); query-by-document rounds,
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
  // A first-stage run's list for the topic, looked up before any call: a topic the run
  // lacks gets no entries (and is named) without a call spent on it.
  const firstStage = context.firstStage
    ? topicCandidates(context, topic, options.candidates)
    : undefined;
  const values = contextValues(topic);
  let fused: ScoredDoc[];
  let rerankQuery: string;
  const questions = options.decompose
    ? await decompose(context, topic, values, options, base)
    : undefined;
  if (questions) {
    const lists: ScoredDoc[][] = [];
    for (const [i, question] of questions.entries())
      lists.push(
        await pipeline(context, question, options, { ...base, subQuestion: i + 1 }, firstStage),
      );
    fused = rrfLists(lists, options.rrfK, totalLength(lists));
    rerankQuery = topic.text;
  } else {
    rerankQuery = await rewrite(context, topic, values, base);
    fused = await pipeline(context, rerankQuery, options, base, firstStage);
  }
  const budgeted = fused.slice(0, options.rerankBudget);
  const ranked = context.reranker
    ? await context.reranker.rerank(rerankQuery, budgeted, context, topic.id)
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

/**
 * The request rewritten with its conversation. A rewrite that stays unusable, or that has
 * no term of the collection, is replaced by the raw request (traced as `query-fallback`).
 */
async function rewrite(
  context: MethodContext,
  topic: MethodTopic,
  values: { conversation: string; background: string },
  base: Base,
): Promise<string> {
  const answer = await askOrFallback(
    context,
    base,
    'grill-rewrite',
    { query: topic.text, ...values },
    (json) =>
      (json as { query: string }).query.trim() === '' ? 'the rewritten query is empty' : undefined,
    { text: topic.text, note: 'searched the raw request' },
  );
  if (!answer) return topic.text;
  const query = (answer.json as { query: string }).query.trim();
  context.trace({
    ...base,
    step: 'rewrite',
    prompt: 'grill-rewrite',
    text: query,
    cached: answer.cached,
  });
  return usableQuery(context, base, query, topic.text, 'rewrite');
}

/**
 * The request split into sub-questions; an answer that stays unusable leaves the request
 * itself as the one sub-question (traced as `query-fallback`).
 */
async function decompose(
  context: MethodContext,
  topic: MethodTopic,
  values: { conversation: string; background: string },
  options: GrillOptions,
  base: Base,
): Promise<string[]> {
  const answer = await askOrFallback(
    context,
    base,
    'grill-decompose',
    { query: topic.text, ...values },
    (json) => nonBlankStrings((json as { sub_questions: unknown }).sub_questions, 'sub-question'),
    { text: topic.text, note: 'the request is the one sub-question' },
  );
  if (!answer) return [topic.text];
  const questions = (answer.json as { sub_questions: string[] }).sub_questions
    .map((q) => q.trim())
    .filter((q) => q !== '')
    .slice(0, options.maxSubQuestions);
  questions.forEach((text, i) =>
    context.trace({
      ...base,
      step: 'sub-question',
      prompt: 'grill-decompose',
      subQuestion: i + 1,
      text,
      cached: answer.cached,
    }),
  );
  return questions.map((q, i) =>
    usableQuery(context, { ...base, subQuestion: i + 1 }, q, topic.text, 'sub-question'),
  );
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

/** Each document's number in the own index, by docno (built once per index). */
const docNumbersOf = new WeakMap<Bm25Index, Map<string, number>>();

function docNumberIn(index: Bm25Index, docno: string): number | undefined {
  let numbers = docNumbersOf.get(index);
  if (!numbers) {
    numbers = new Map(index.data.docIds.map((id, d) => [id, d]));
    docNumbersOf.set(index, numbers);
  }
  return numbers.get(docno);
}

/**
 * One query through candidates, query-by-document rounds and gap analysis, fused by RRF.
 * `firstStage`, when given, is the candidates stage: the topic's list in the first-stage run
 * instead of BM25 of the query.
 */
async function pipeline(
  context: MethodContext,
  query: string,
  options: GrillOptions,
  base: Base,
  firstStage?: ScoredDoc[],
): Promise<ScoredDoc[]> {
  const filter = new RelevanceFilter(context, query);
  const docNumbers = new Map<string, number>();
  const lists: ScoredDoc[][] = [];
  const known = new Set<string>();

  /** Each list without the documents the judge says are not relevant; new decisions traced. */
  // Hits of the own index carry their document numbers (the seeds of query-by-document);
  // the gap queries' hits may come from a search service and carry none.
  const keep = async <H extends ScoredDoc & { doc?: number }>(
    stage: string,
    found: H[][],
    round?: number,
  ): Promise<H[][]> => {
    const order: string[] = [];
    const fresh = new Set<string>();
    for (const list of found)
      for (const hit of list) {
        if (hit.doc !== undefined) docNumbers.set(hit.docno, hit.doc);
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
    const kept = found.map((list) => list.filter((h) => decisions.get(h.docno)!.relevant));
    // A stage whose every document the filter rejects, when nothing was kept before it,
    // keeps its unfiltered ranking: the topic is not left without a document.
    const all = new Set(found.flat().map((h) => h.docno));
    if (known.size === 0 && all.size > 0 && kept.every((list) => list.length === 0)) {
      context.trace({
        ...base,
        stage,
        step: 'filter-kept-all',
        prompt: FILTER_JUDGE,
        text: query,
        reason: `the relevance filter rejected all ${all.size} documents of the ${stage} stage and none was kept before: kept its unfiltered ranking`,
      });
      return found;
    }
    return kept;
  };

  /**
   * A seed document as a query: its whole text, or its best tf-idf terms. A first-stage
   * document the own index lacks is its text analyzed as a query.
   */
  const documentAsQuery = (docno: string): WeightedQuery => {
    const index = memoryIndexOf(context, 'grill query-by-document').index;
    const doc = docNumbers.get(docno) ?? docNumberIn(index, docno);
    if (doc === undefined) return analyzeQuery(index, documentText(documentOf(context, docno)));
    return options.qbdQuery === 'document'
      ? wholeDocumentQuery(index, doc)
      : documentQuery(index, doc, options.qbdTerms);
  };

  // Stage 1: the candidates, BM25 of the query or the topic's list in the first-stage run.
  context.trace(
    firstStage
      ? { ...base, step: 'first-stage', stage: 'candidates', text: context.firstStage!.name }
      : { ...base, step: 'query', stage: 'candidates', text: query },
  );
  const [first] = await keep('candidates', [
    firstStage ?? context.bm25.search(query, options.candidates),
  ]);
  lists.push(first!);
  for (const h of first!) known.add(h.docno);

  // Stage 2, in rounds: each seed document as a query (query-by-document).
  let seeds = first!.map((h) => h.docno);
  for (let round = 1; round <= options.rounds; round++) {
    const found = seeds.map((docno) =>
      memoryIndexOf(context, 'grill query-by-document').searchWeighted(
        documentAsQuery(docno),
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
  const queries: string[] = [];
  let answer: AskAnswer | undefined;
  try {
    answer = await askStep(context, 'grill-gaps', { query, passages }, gapProblem);
  } catch (error) {
    if (!(error instanceof UnusableAnswerError)) throw error;
    // Without gaps the stage adds nothing; the documents found so far still make the ranking.
    context.trace({
      ...base,
      step: 'gaps-unusable',
      prompt: 'grill-gaps',
      text: '',
      reason: `${error.message}: no gap queries`,
    });
  }
  for (const g of answer ? (answer.json as { gaps: Gap[] }).gaps.slice(0, options.maxGaps) : []) {
    context.trace({
      ...base,
      step: 'gap',
      prompt: 'grill-gaps',
      text: g.gap.trim(),
      cached: answer!.cached,
    });
    for (const q of g.queries
      .map((q) => q.trim())
      .filter((q) => q !== '')
      .slice(0, options.queriesPerGap)) {
      context.trace({
        ...base,
        step: 'generated-query',
        prompt: 'grill-gaps',
        text: q,
        cached: answer!.cached,
      });
      queries.push(q);
    }
  }
  const searched = usableQueries(context, base, queries, 'grill-gaps', (q) =>
    searchOf(context).hasTerm(q),
  );
  lists.push(
    ...(await keep(
      'gaps',
      await Promise.all(searched.map((q) => searchOf(context).search(q, options.candidates))),
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

/** `grill`: agentic iterative retrieval with gap analysis and a relevance filter. */
export const grillMethod = defineMethod({
  name: 'grill',
  paper:
    'Owoicho & Dalton (2026), GRILL Lab at TREC 2025: Agentic Iterative Retrieval and Gap-Aware Refinement (iKAT, RAG)',
  steps:
    "rewrite with turns and background (`grill-rewrite.md`); BM25 candidates (with `--first-stage RUN`, the topic's list in the run); query-by-document rounds seeded by the last round's new documents (each document's text as the query); gap analysis of the top documents (`grill-gaps.md`: gaps × queries, BM25 each); RRF of every list; the `binary-filter` judge removes documents after every stage; the top of the fused list kept for the reranker",
  calls:
    '2 chat (+1 per sub-question with `--decompose`) + 1 filter judgment per document found per query',
  reproduce:
    "The paper's filter is GPT-4.1 nano fine-tuned on CAsT 2022 and iKAT 2023 judgments: give it as `--step-model binary-filter=ft:…`; its reranker is MonoT5 over a `/v1/rerank` endpoint (`--reranker cross-encoder --reranker-model …`), or RankGPT with GPT-5 (`--reranker rankgpt --step-model rankgpt=…`). Its runs: `--rounds 1` (baseline, the default), `--rounds 10`, `--rounds 22`; the RAG track: `--decompose`. The depths the paper does not give (20 candidates, 10 neighbours, 10 gap documents, 3 gaps × 3 queries) are assay's defaults.",
  settings: GRILL_SETTINGS,
  prompts: ['grill-rewrite', 'grill-decompose', 'grill-gaps', FILTER_JUDGE, 'rankgpt'],
  check: (s, spell) => checkRankGpt(s, spell),
  needsChat: () => true,
  embeddings: () => 'none',
  needsDocumentText: () => true,
  readsTermVectors: (s) => s.rounds > 0,
  firstStageTexts: (s) => s.candidates,
  parameters(_s, p) {
    p['grill.qbd-seeds'] = 'every kept document of the previous stage';
    p['grill.filter'] = FILTER_JUDGE;
    p['grill.filter-unreadable'] = 'keep';
    p['grill.filter-rejects-all'] = 'the first stage with documents keeps its unfiltered ranking';
  },
  runTopic: (context, topic, s) => grillTopic(context, topic, s),
  estimateTopic(topic, o, sink, extra) {
    // The documents' text, when the estimate was given it: the longest passage bounds a
    // judgment's size and the collection bounds the documents judged per query.
    const documents = extra.documents;
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
});
