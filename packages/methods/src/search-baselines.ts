import { estimateTokens } from '@assay/llm';
import { defineMethod, type EstimateSink, type TopicOutcome } from './method-definition.js';
import {
  askOrFallback,
  askStep,
  searchOf,
  usableQuery,
  type MethodContext,
  type MethodTopic,
} from './method-context.js';
import {
  finalAnswer,
  FoundDocuments,
  MAX_ROUNDS,
  PASSAGE_CHARS,
  passages,
  requestText,
  search,
  SEARCH_K,
} from './search-agent.js';
import { settings } from './settings.js';
import { SEARCH_SETTINGS } from './search-service.js';

/**
 * SRSA's simple-search baseline (Wang & Xu, 2024, section IV-B1) for one topic: one search
 * with the request as it is, and the answer written from its results.
 */
export async function simpleSearchTopic(
  context: MethodContext,
  topic: MethodTopic,
  settings: { searchK: number },
): Promise<TopicOutcome> {
  const base = { topic: topic.id, method: 'simple-search' };
  const query = requestText(topic);
  const found = new FoundDocuments();
  const given = await search(context, base, query, settings.searchK, found);
  const answer = await finalAnswer(context, base, query, passages(context, given), given);
  return { docs: found.ranking(context.k), answer };
}

interface ReactStep {
  thought: string;
  action: 'search' | 'finish';
  input: string;
}

/**
 * SRSA's ReAct baseline (Wang & Xu, 2024, section IV-B1, after Yao et al.) for one topic:
 * the request is first rephrased into a precise question (the paper's rephrasing module);
 * then Thought and Action (search or finish), the search's results as the Observation,
 * until the agent finishes or `maxRounds` steps were taken. There is no summarising: the
 * answer is written from the whole history.
 */
export async function reactTopic(
  context: MethodContext,
  topic: MethodTopic,
  settings: { searchK: number; maxRounds: number },
): Promise<TopicOutcome> {
  const base = { topic: topic.id, method: 'react' };
  const query = requestText(topic);
  const rephrased = await askOrFallback(context, base, 'react-rephrase', { query }, undefined, {
    text: topic.text,
    note: 'the raw request is the question',
  });
  let question = topic.text;
  if (rephrased) {
    const text = rephrased.text.split('\n')[0]!.trim();
    context.trace({
      ...base,
      step: 'rephrase',
      prompt: 'react-rephrase',
      text,
      cached: rephrased.cached,
    });
    // Every step is asked with the question: one without a term of the collection (an
    // answer such as `{"oops":`) is replaced by the raw request, as a blank one is.
    question = usableQuery(
      context,
      base,
      text,
      topic.text,
      'rephrased question',
      (t) => searchOf(context).hasTerm(t),
      { prompt: 'react-rephrase', note: 'the raw request is the question' },
    );
  }
  const found = new FoundDocuments();
  const history: string[] = [];
  for (let step = 1; ; step++) {
    const answer = await askStep(
      context,
      'react-step',
      { query, question, history: history.length ? history.join('\n\n') : '(none yet)' },
      (json) =>
        (json as ReactStep).action === 'search' && (json as ReactStep).input.trim() === ''
          ? 'the search action has an empty $.input'
          : undefined,
    );
    const { thought, action, input } = answer.json as ReactStep;
    const cached = answer.cached;
    context.trace({ ...base, step: 'thought', prompt: 'react-step', text: thought.trim(), cached });
    context.trace({
      ...base,
      step: 'action',
      prompt: 'react-step',
      text: `${action}: ${input.trim()}`,
      cached,
    });
    if (action === 'finish') {
      context.trace({ ...base, step: 'stop', text: `finished at step ${step}` });
      break;
    }
    const docnos = await search(context, base, input.trim(), settings.searchK, found);
    history.push(
      `Thought ${step}: ${thought.trim()}\nAction ${step}: search[${input.trim()}]\n` +
        `Observation ${step}:\n${passages(context, docnos)}`,
    );
    if (step >= settings.maxRounds) {
      context.trace({ ...base, step: 'stop', text: `max steps (${settings.maxRounds}) reached` });
      break;
    }
  }
  const given = found.ranking(Number.MAX_SAFE_INTEGER).map((d) => d.docno);
  const material = history.length ? history.join('\n\n') : '(no searches were made)';
  const answer = await finalAnswer(context, base, query, material, given);
  return { docs: found.ranking(context.k), answer };
}

function answerEstimate(topic: MethodTopic, sink: EstimateSink, material: number): void {
  sink.call('srsa-answer', estimateTokens(requestText(topic)) + material);
}

const BASELINES =
  "Wang & Xu (2024)'s baselines, run with the same model and search settings as srsa.";

/** `simple-search`: one search with the request, then the answer (SRSA's first baseline). */
export const simpleSearchMethod = defineMethod({
  name: 'simple-search',
  paper: 'same paper as srsa, single-search baseline',
  steps: 'one BM25 search with the request; answer from its results',
  calls: '1',
  reproduce: BASELINES,
  settings: settings({ searchK: SEARCH_K, ...SEARCH_SETTINGS }),
  prompts: ['srsa-answer'],
  needsChat: () => true,
  embeddings: () => 'none',
  needsDocumentText: () => true,
  answers: true,
  parameters(_s, p) {
    p['simple-search.passage-chars'] = PASSAGE_CHARS;
    p['simple-search.ranking'] = 'the search order';
  },
  runTopic: (context, topic, s) => simpleSearchTopic(context, topic, s),
  estimateTopic(topic, s, sink) {
    answerEstimate(topic, sink, s.searchK * Math.ceil(PASSAGE_CHARS / 4));
  },
});

/** `react`: a ReAct agent with a search tool (SRSA's second baseline). */
export const reactMethod = defineMethod({
  name: 'react',
  paper: 'same paper as srsa, ReAct baseline (Yao et al. 2023)',
  steps:
    'rephrase the request; Thought/Action (search or finish)/Observation; answer from the history',
  calls: 'at most 2 + max rounds',
  reproduce: `${BASELINES} The paper capped ReAct at 5 steps (the default \`--max-rounds\`).`,
  settings: settings({ searchK: SEARCH_K, maxRounds: MAX_ROUNDS, ...SEARCH_SETTINGS }),
  prompts: ['react-rephrase', 'react-step', 'srsa-answer'],
  needsChat: () => true,
  embeddings: () => 'none',
  needsDocumentText: () => true,
  answers: true,
  parameters(_s, p) {
    p['react.passage-chars'] = PASSAGE_CHARS;
    p['react.ranking'] = 'first-found order';
  },
  runTopic: (context, topic, s) => reactTopic(context, topic, s),
  estimateTopic(topic, { searchK, maxRounds }, sink) {
    const q = estimateTokens(requestText(topic)) + 10;
    const perStep = sink.max('react-step') + searchK * Math.ceil(PASSAGE_CHARS / 4);
    sink.call('react-rephrase', q);
    const question = sink.max('react-rephrase');
    for (let step = 1; step <= maxRounds; step++)
      sink.call('react-step', q + question + (step - 1) * perStep);
    answerEstimate(topic, sink, maxRounds * perStep);
  },
});
