import { type AskAnswer, estimateTokens, UnusableAnswerError } from '@assay/llm';
import { defineMethod, type TopicOutcome } from './method-definition.js';
import {
  askOrFallback,
  askStep,
  usableQueries,
  usableQuery,
  type MethodContext,
  type MethodTopic,
  searchOf,
} from './method-context.js';
import {
  bullets,
  finalAnswer,
  FoundDocuments,
  MAX_ROUNDS,
  nonEmptyList,
  PASSAGE_CHARS,
  passages,
  requestText,
  search,
  SEARCH_K,
  stringList,
  type SearchAgentSettings,
} from './search-agent.js';
import { date, settings } from './settings.js';
import { SEARCH_SETTINGS } from './search-service.js';

/** The three search strategies of SRSA's router. */
export type SrsaStrategy = 'direct' | 'parallel' | 'planning';

/** The route a topic took: a strategy, or direct search after an unusable router answer. */
export type SrsaRoute = SrsaStrategy | 'direct-fallback';

/** The route of a topic whose router answer stayed unusable, as the paper treats it. */
export const ROUTER_FALLBACK: SrsaRoute = 'direct-fallback';

/** What a strategy found: the reference material for the answer and the documents it shows. */
interface Findings {
  material: string;
  given: string[];
}

type Base = { topic: string; method: string };

/** The router's decision: the strategy, the request rephrased for search (Q_r), suggestions. */
interface Routing {
  route: SrsaRoute;
  strategy: SrsaStrategy;
  searchQuery: string;
  suggestions: string[];
}

/**
 * SRSA (Wang & Xu, 2024) for one topic. The router (with today's date) picks a strategy,
 * rephrases the request into one search query Q_r and gives search suggestions; `direct`
 * searches Q_r once; `parallel` writes sub-questions from Q_r and the suggestions and
 * searches each, the results united; `planning` searches Q_r, then step by step,
 * compressing and filtering each later step's results, judging after each step whether the
 * findings suffice, else rewriting the search or going deeper, for at most `maxRounds`
 * searches. The answer is written from the reference material. A router answer that stays
 * unusable routes the topic to direct search with a rewrite of its own (traced), as the
 * paper's models that could not follow the router's format were routed.
 */
export async function srsaTopic(
  context: MethodContext,
  topic: MethodTopic,
  settings: SearchAgentSettings,
): Promise<TopicOutcome> {
  const base = { topic: topic.id, method: 'srsa' };
  const query = requestText(topic);
  const routing = await route(context, base, topic, query);
  const found = new FoundDocuments();
  const findings =
    routing.strategy === 'direct'
      ? await direct(context, base, routing.searchQuery, settings, found)
      : routing.strategy === 'parallel'
        ? await parallel(context, base, routing, settings, found)
        : await planning(context, base, query, routing, settings, found);
  const answer = await finalAnswer(context, base, query, findings.material, findings.given);
  return {
    docs: found.ranking(context.k, findings.given),
    answer,
    route: routing.route,
  };
}

/** The router's decision, or direct search with a rewrite when its answer stays unusable. */
async function route(
  context: MethodContext,
  base: Base,
  topic: MethodTopic,
  query: string,
): Promise<Routing> {
  let routed: AskAnswer;
  try {
    routed = await askStep(
      context,
      'srsa-router',
      { today: context.today, query },
      nonEmptyList('suggestions'),
    );
  } catch (error) {
    if (!(error instanceof UnusableAnswerError)) throw error;
    context.trace({
      ...base,
      step: 'route',
      prompt: 'srsa-router',
      text: 'direct',
      route: ROUTER_FALLBACK,
      reason: `${error.message}: routed to direct search`,
    });
    const rewritten = await rewrite(context, base, topic, query);
    return { route: ROUTER_FALLBACK, strategy: 'direct', searchQuery: rewritten, suggestions: [] };
  }
  const json = routed.json as { strategy: SrsaStrategy; search_query: string };
  const suggestions = stringList(routed.json, 'suggestions') as string[];
  context.trace({
    ...base,
    step: 'route',
    prompt: 'srsa-router',
    text: json.strategy,
    route: json.strategy,
    cached: routed.cached,
  });
  context.trace({
    ...base,
    step: 'rephrased-query',
    prompt: 'srsa-router',
    text: json.search_query.trim(),
    cached: routed.cached,
  });
  for (const s of suggestions)
    context.trace({
      ...base,
      step: 'suggestion',
      prompt: 'srsa-router',
      text: s,
      cached: routed.cached,
    });
  return {
    route: json.strategy,
    strategy: json.strategy,
    searchQuery: usableQuery(
      context,
      base,
      json.search_query.trim(),
      topic.text,
      'rephrased query',
      (text) => searchOf(context).hasTerm(text),
    ),
    suggestions,
  };
}

/** The router fallback's query: the request rephrased for a search engine. */
async function rewrite(
  context: MethodContext,
  base: Base,
  topic: MethodTopic,
  query: string,
): Promise<string> {
  const answer = await askOrFallback(
    context,
    base,
    'srsa-rewrite',
    { query, suggestions: '(none)' },
    undefined,
    { text: topic.text, note: 'searched the raw request' },
  );
  if (!answer) return topic.text;
  const text = answer.text.split('\n')[0]!.trim();
  context.trace({ ...base, step: 'rewrite', prompt: 'srsa-rewrite', text, cached: answer.cached });
  return usableQuery(context, base, text, topic.text, 'rewrite', (t) =>
    searchOf(context).hasTerm(t),
  );
}

/** Direct search: Q_r searched once, no further call. */
async function direct(
  context: MethodContext,
  base: Base,
  searchQuery: string,
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const given = await search(context, base, searchQuery, settings.searchK, found);
  return { material: passages(context, given), given };
}

/** Parallel search: sub-questions of Q_r and the suggestions, each searched, united. */
async function parallel(
  context: MethodContext,
  base: Base,
  routing: Routing,
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const answer = await askOrFallback(
    context,
    base,
    'srsa-subquestions',
    { query: routing.searchQuery, suggestions: bullets(routing.suggestions) },
    nonEmptyList('sub_questions'),
    { text: routing.searchQuery, note: 'searched the rephrased query' },
  );
  const questions = answer
    ? (stringList(answer.json, 'sub_questions') as string[])
    : [routing.searchQuery];
  if (answer)
    for (const q of questions)
      context.trace({
        ...base,
        step: 'sub-question',
        prompt: 'srsa-subquestions',
        text: q,
        cached: answer.cached,
      });
  // Sub-questions without a term of the collection are not searched; when none is left,
  // the rephrased query is, as when the answer stays unusable.
  const hasTerm = (q: string) => searchOf(context).hasTerm(q);
  let searched = answer
    ? usableQueries(context, base, questions, 'srsa-subquestions', hasTerm)
    : questions;
  if (searched.length === 0) {
    context.trace({
      ...base,
      step: 'query-fallback',
      prompt: 'srsa-subquestions',
      text: routing.searchQuery,
      reason: 'no sub-question has a term of the collection: searched the rephrased query',
    });
    searched = [routing.searchQuery];
  }
  for (const q of searched) await search(context, base, q, settings.searchK, found);
  // The union of the sub-questions' results, each document once, in first-found order.
  const given = found.ranking(Number.MAX_SAFE_INTEGER).map((d) => d.docno);
  return { material: passages(context, given), given };
}

interface Sufficiency {
  assessment: string;
  sufficient: boolean;
  next_step: 'none' | 'rewrite' | 'deeper';
  next_query: string;
}

/** Planning search: Q_r first, then searches judged, rewritten or deepened step by step. */
async function planning(
  context: MethodContext,
  base: Base,
  query: string,
  routing: Routing,
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const plan = bullets(routing.suggestions);
  // The first step's results are kept whole; each later step is kept as its summary and
  // the documents the summary uses.
  let searchQuery = routing.searchQuery;
  let firstResults: string[] = [];
  const summaries: Array<{ summary: string; kept: string[] }> = [];
  for (let round = 1; ; round++) {
    const results = await search(context, base, searchQuery, settings.searchK, found);
    let latest: string;
    if (round === 1) {
      firstResults = results;
      latest = `Query: ${searchQuery}\n${passages(context, results)}`;
    } else {
      const step = await summarise(context, base, query, searchQuery, results);
      summaries.push(step);
      latest = `Query: ${searchQuery}\nSummary: ${step.summary || '(nothing relevant)'}`;
    }
    if (round >= settings.maxRounds) {
      context.trace({ ...base, step: 'stop', text: `max rounds (${settings.maxRounds}) reached` });
      break;
    }
    const judged = await askStep(
      context,
      'srsa-sufficiency',
      { query, suggestions: plan, memory: memoryText(context, firstResults, summaries), latest },
      (json) => {
        const j = json as Sufficiency;
        return !j.sufficient && j.next_query.trim() === ''
          ? 'the findings are not sufficient but $.next_query is empty'
          : undefined;
      },
    );
    const verdict = judged.json as Sufficiency;
    context.trace({
      ...base,
      step: 'sufficiency',
      prompt: 'srsa-sufficiency',
      text: `${verdict.sufficient ? 'sufficient' : `not sufficient (${verdict.next_step})`}: ${verdict.assessment.trim()}`,
      cached: judged.cached,
    });
    if (verdict.sufficient) {
      context.trace({ ...base, step: 'stop', text: `sufficient after round ${round}` });
      break;
    }
    searchQuery = verdict.next_query.trim();
    context.trace({
      ...base,
      step: 'next-query',
      prompt: 'srsa-sufficiency',
      text: searchQuery,
      cached: judged.cached,
    });
  }
  const given = [...firstResults];
  for (const s of summaries) for (const d of s.kept) if (!given.includes(d)) given.push(d);
  return { material: memoryText(context, firstResults, summaries), given };
}

/** The planning memory: the first step's passages, then each later step's summary. */
function memoryText(
  context: MethodContext,
  firstResults: readonly string[],
  summaries: ReadonlyArray<{ summary: string; kept: string[] }>,
): string {
  const parts = [passages(context, firstResults)];
  summaries.forEach((s, i) => {
    if (s.summary === '') return;
    const from = s.kept.length ? ` (from ${s.kept.map((d) => `[${d}]`).join(' ')})` : '';
    parts.push(`Summary of search ${i + 2}${from}:\n${s.summary}`);
  });
  return parts.join('\n\n');
}

/**
 * Compresses one step's results: a summary and the documents it keeps. Kept ids that were
 * not among the step's results are dropped (traced); results not kept are `filtered-out`.
 */
async function summarise(
  context: MethodContext,
  base: Base,
  query: string,
  searchQuery: string,
  results: readonly string[],
): Promise<{ summary: string; kept: string[] }> {
  const answer = await askStep(
    context,
    'srsa-summarise',
    { query, search_query: searchQuery, results: passages(context, results) },
    (json) => {
      const list = stringList(json, 'kept');
      return typeof list === 'string' ? list : undefined;
    },
  );
  const summary = (answer.json as { summary: string }).summary.trim();
  const kept: string[] = [];
  for (const docno of stringList(answer.json, 'kept') as string[]) {
    if (!results.includes(docno))
      context.trace({ ...base, step: 'dropped-reference', text: docno });
    else if (!kept.includes(docno)) kept.push(docno);
  }
  context.trace({
    ...base,
    step: 'summary',
    prompt: 'srsa-summarise',
    text: summary,
    cached: answer.cached,
  });
  context.trace({ ...base, step: 'kept', text: kept.join(' ') });
  const dropped = results.filter((d) => !kept.includes(d));
  if (dropped.length) context.trace({ ...base, step: 'filtered-out', text: dropped.join(' ') });
  return { summary, kept };
}

const SRSA_PAPER =
  'Wang & Xu (2024), SRSA: A Cost-Efficient Strategy-Router Search Agent for Real-world Human-Machine Interactions';

/** `srsa`: the strategy-routed search agent (Wang & Xu, 2024). */
export const srsaMethod = defineMethod({
  name: 'srsa',
  paper: SRSA_PAPER,
  steps:
    "router (told today's date) → strategy, the request rephrased as one query Q_r, and suggestions; `direct`: one BM25 search of Q_r; `parallel`: sub-questions from Q_r, one search each, results united; `planning`: Q_r searched, then per search a sufficiency judgement (stop, rewrite or go deeper), later searches summarised and filtered; answer from the references (cited docnos only). A router answer that stays unusable falls back to direct search with a rewrite (traced)",
  calls: 'direct 2, parallel 3, planning at most 2 + 2 × (max rounds − 1); fallback 3',
  reproduce:
    "The paper's models (Mistral, Gemma, Llama at temperature 0) go to `--model`; its search engine returned 5 results (the default `--search-k`); `--max-rounds 5` as in the paper. Pin `--today` to the date the requests were written for.",
  settings: settings({
    searchK: SEARCH_K,
    maxRounds: MAX_ROUNDS,
    today: date("the date the router is told is today (default: the clock's)"),
    ...SEARCH_SETTINGS,
  }),
  prompts: [
    'srsa-router',
    'srsa-rewrite',
    'srsa-subquestions',
    'srsa-sufficiency',
    'srsa-summarise',
    'srsa-answer',
  ],
  needsChat: () => true,
  embeddings: () => 'none',
  needsDocumentText: () => true,
  answers: true,
  parameters(_s, p) {
    p['srsa.passage-chars'] = PASSAGE_CHARS;
    p['srsa.ranking'] = 'reference documents first, then first-found order';
    p['srsa.router-fallback'] = 'direct search with a rewrite';
  },
  runTopic: (context, topic, s) => srsaTopic(context, topic, s),
  estimateTopic(topic, s, sink) {
    // The most expensive route, planning with every round: router, then per later round a
    // sufficiency judgement and a summary, then the answer.
    const q = estimateTokens(requestText(topic)) + 10;
    const results = s.searchK * Math.ceil(PASSAGE_CHARS / 4);
    const plan = sink.max('srsa-router');
    sink.call('srsa-router', q);
    let memory = results;
    for (let round = 2; round <= s.maxRounds; round++) {
      sink.call('srsa-sufficiency', q + plan + memory + results);
      sink.call('srsa-summarise', q + sink.max('srsa-sufficiency') + results);
      memory += sink.max('srsa-summarise');
    }
    sink.call('srsa-answer', q + memory);
  },
});
