import { estimateTokens } from '@assay/llm';
import type { MethodDefinition, TopicOutcome } from './method-definition.js';
import type { MethodContext, MethodTopic } from './method-context.js';
import {
  askStep,
  bullets,
  finalAnswer,
  FoundDocuments,
  nonEmptyList,
  PASSAGE_CHARS,
  passages,
  requestText,
  search,
  searchAgentSettings,
  stringList,
  type SearchAgentSettings,
} from './search-agent.js';

/** The three search strategies of SRSA's router. */
export type SrsaStrategy = 'direct' | 'parallel' | 'planning';

/** What a strategy found: the reference material for the answer and the documents it shows. */
interface Findings {
  material: string;
  given: string[];
}

type Base = { topic: string; method: string };

/**
 * SRSA (Wang & Xu, 2024) for one topic. The router (with today's date) picks a strategy
 * and gives search suggestions; `direct` rewrites the request into one query and searches
 * once; `parallel` writes sub-questions and searches each, the results united; `planning`
 * searches step by step, compressing and filtering each later step's results, judging
 * after each step whether the findings suffice, else rewriting the search or going deeper,
 * for at most `maxRounds` searches. The answer is written from the reference material.
 */
export async function srsaTopic(
  context: MethodContext,
  topic: MethodTopic,
  settings: SearchAgentSettings,
): Promise<TopicOutcome> {
  const base = { topic: topic.id, method: 'srsa' };
  const query = requestText(topic);
  const routed = await askStep(
    context,
    'srsa-router',
    { today: context.today, query },
    nonEmptyList('suggestions'),
  );
  const strategy = (routed.json as { strategy: SrsaStrategy }).strategy;
  const suggestions = stringList(routed.json, 'suggestions') as string[];
  context.trace({
    ...base,
    step: 'route',
    prompt: 'srsa-router',
    text: strategy,
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

  const found = new FoundDocuments();
  const findings =
    strategy === 'direct'
      ? await direct(context, base, query, suggestions, settings, found)
      : strategy === 'parallel'
        ? await parallel(context, base, query, suggestions, settings, found)
        : await planning(context, base, query, suggestions, settings, found);
  const answer = await finalAnswer(context, base, query, findings.material, findings.given);
  return { docs: found.ranking(context.k, findings.given), answer, route: strategy };
}

/** The first query: the request rephrased for a search engine, after the suggestions. */
async function rewrite(
  context: MethodContext,
  base: Base,
  query: string,
  suggestions: readonly string[],
): Promise<string> {
  const answer = await askStep(context, 'srsa-rewrite', {
    query,
    suggestions: bullets(suggestions),
  });
  const text = answer.text.split('\n')[0]!.trim();
  context.trace({ ...base, step: 'rewrite', prompt: 'srsa-rewrite', text, cached: answer.cached });
  return text;
}

async function direct(
  context: MethodContext,
  base: Base,
  query: string,
  suggestions: readonly string[],
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const rewritten = await rewrite(context, base, query, suggestions);
  const given = search(context, base, rewritten, settings.searchK, found);
  return { material: passages(context, given), given };
}

async function parallel(
  context: MethodContext,
  base: Base,
  query: string,
  suggestions: readonly string[],
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const answer = await askStep(
    context,
    'srsa-subquestions',
    { query, suggestions: bullets(suggestions) },
    nonEmptyList('sub_questions'),
  );
  const questions = stringList(answer.json, 'sub_questions') as string[];
  for (const q of questions)
    context.trace({
      ...base,
      step: 'sub-question',
      prompt: 'srsa-subquestions',
      text: q,
      cached: answer.cached,
    });
  for (const q of questions) search(context, base, q, settings.searchK, found);
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

async function planning(
  context: MethodContext,
  base: Base,
  query: string,
  suggestions: readonly string[],
  settings: SearchAgentSettings,
  found: FoundDocuments,
): Promise<Findings> {
  const plan = bullets(suggestions);
  // The first step's results are kept whole; each later step is kept as its summary and
  // the documents the summary uses.
  let searchQuery = await rewrite(context, base, query, suggestions);
  let firstResults: string[] = [];
  const summaries: Array<{ summary: string; kept: string[] }> = [];
  for (let round = 1; ; round++) {
    const results = search(context, base, searchQuery, settings.searchK, found);
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

/** `srsa`: the strategy-routed search agent (Wang & Xu, 2024). */
export const srsaMethod: MethodDefinition = {
  name: 'srsa',
  needsChat: () => true,
  needsEmbeddings: () => false,
  needsDocumentText: () => true,
  answers: true,
  parameters(options, p) {
    const s = searchAgentSettings(options);
    p['srsa.search-k'] = s.searchK;
    p['srsa.max-rounds'] = s.maxRounds;
    p['srsa.passage-chars'] = PASSAGE_CHARS;
    p['srsa.today'] = options.today ?? new Date().toISOString().slice(0, 10);
    p['srsa.ranking'] = 'reference documents first, then first-found order';
  },
  runTopic: (context, topic, options) => srsaTopic(context, topic, searchAgentSettings(options)),
  estimateTopic(topic, options, sink) {
    // The most expensive route, planning with every round: router, rewrite, then per
    // later round a summary and a sufficiency judgement, then the answer.
    const { searchK, maxRounds } = searchAgentSettings(options);
    const q = estimateTokens(requestText(topic)) + 10;
    const results = searchK * Math.ceil(PASSAGE_CHARS / 4);
    const plan = sink.max('srsa-router');
    sink.call('srsa-router', q);
    sink.call('srsa-rewrite', q + plan);
    let memory = results;
    for (let round = 2; round <= maxRounds; round++) {
      sink.call('srsa-sufficiency', q + plan + memory + results);
      sink.call('srsa-summarise', q + sink.max('srsa-sufficiency') + results);
      memory += sink.max('srsa-summarise');
    }
    sink.call('srsa-answer', q + memory);
  },
};
