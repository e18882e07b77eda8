import { estimateTokens } from '@assay/llm';
import { weightedQueryVector } from './dense-index.js';
import { defineMethod } from './method-definition.js';
import {
  askStep,
  denseOf,
  embedQueries,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  searchOf,
} from './method-context.js';
import { amdSparseQuery } from './query-strings.js';
import { rrfLists } from './ranked-lists.js';
import {
  AGGREGATION_HELP,
  choice,
  defaultsOf,
  integer,
  number,
  offSwitch,
  settings,
  type SettingsOf,
} from './settings.js';
import { SEARCH_SETTINGS } from './search-service.js';

const AMD_SETTINGS = settings({
  aggregation: choice(['sparse', 'dense', 'rrf'], AGGREGATION_HELP, { default: 'sparse' }),
  feedback: offSwitch("the reflective feedback step (--no-feedback: the paper's ablation)", {
    flag: 'no-feedback',
  }),
  queryWeight: number('dense: weight of the query embedding (the answers get the rest)', {
    default: 0.7,
    min: 0,
    max: 1,
    onlyWith: { key: 'aggregation', value: 'dense' },
  }),
  rrfK: integer('RRF constant k', {
    default: 60,
    max: 10_000,
    onlyWith: { key: 'aggregation', value: 'rrf' },
  }),
  ...SEARCH_SETTINGS,
});

/** AMD settings, parsed. */
export type AmdOptions = SettingsOf<typeof AMD_SETTINGS>;

/** How AMD turns its refined answers into a ranking. */
export type AmdAggregation = AmdOptions['aggregation'];

/** The paper's settings: sparse, with feedback, 0.7 / 0.3, RRF k = 60. */
export const DEFAULT_AMD: AmdOptions = defaultsOf(AMD_SETTINGS);

/** The three Socratic dimensions: answer field and the words the prompts use. */
export const AMD_DIMENSIONS = [
  { field: 'clarification', name: 'clarification', variable: 'clarification' },
  { field: 'assumption_probing', name: 'assumption probing', variable: 'assumption' },
  { field: 'implication_probing', name: 'implication probing', variable: 'implication' },
] as const;

type ThreeTexts = Record<(typeof AMD_DIMENSIONS)[number]['field'], string>;

/**
 * AMD (Agent-Mediated Dialogic inquiry) for one topic: one call writes three sub-questions
 * (clarification, assumption probing, implication probing); three calls in parallel write
 * a pseudo-answer each; a reflective feedback call rewrites or prunes them against the
 * query (an answer pruned to nothing is left out). The refined answers then become a
 * ranking by `options.aggregation`.
 */
export async function amdTopic(
  context: MethodContext,
  topic: MethodTopic,
  options: AmdOptions,
): Promise<ScoredDoc[]> {
  const base = { topic: topic.id, method: 'amd' };
  const asked = await askStep(context, 'amd-questions', { query: topic.text }, (json) =>
    blankField(json as ThreeTexts, 'sub-question'),
  );
  const questions = asked.json as ThreeTexts;
  for (const d of AMD_DIMENSIONS)
    context.trace({
      ...base,
      step: 'sub-question',
      prompt: 'amd-questions',
      dimension: d.name,
      text: questions[d.field].trim(),
      cached: asked.cached,
    });

  const answers = await Promise.all(
    AMD_DIMENSIONS.map((d) =>
      askStep(context, 'amd-answer', { dimension: d.name, question: questions[d.field].trim() }),
    ),
  );
  AMD_DIMENSIONS.forEach((d, i) =>
    context.trace({
      ...base,
      step: 'pseudo-answer',
      prompt: 'amd-answer',
      dimension: d.name,
      text: answers[i]!.text,
      cached: answers[i]!.cached,
    }),
  );

  let refined: string[];
  if (options.feedback) {
    const values: Record<string, string> = { query: topic.text };
    AMD_DIMENSIONS.forEach((d, i) => {
      values[`${d.variable}_question`] = questions[d.field].trim();
      values[`${d.variable}_answer`] = answers[i]!.text;
    });
    const reviewed = await askStep(context, 'amd-feedback', values, (json) =>
      AMD_DIMENSIONS.every((d) => (json as ThreeTexts)[d.field].trim() === '')
        ? 'the feedback pruned every answer'
        : undefined,
    );
    const kept = reviewed.json as ThreeTexts;
    refined = [];
    for (const d of AMD_DIMENSIONS) {
      const text = kept[d.field].trim();
      context.trace({
        ...base,
        step: 'refined-answer',
        prompt: 'amd-feedback',
        dimension: d.name,
        text,
        cached: reviewed.cached,
      });
      if (text !== '') refined.push(text);
    }
  } else refined = answers.map((a) => a.text);

  switch (options.aggregation) {
    case 'sparse': {
      const query = amdSparseQuery(topic.text, refined);
      context.trace({ ...base, step: 'query', text: query });
      return searchOf(context).search(query, context.k);
    }
    case 'dense': {
      const dense = denseOf(context);
      const [queryVector, ...answerVectors] = await embedQueries(dense, [topic.text, ...refined]);
      const vector = weightedQueryVector(queryVector!, answerVectors, options.queryWeight);
      return dense.index.search(vector, context.k);
    }
    case 'rrf': {
      const lists = await Promise.all(
        refined.map((answer) => searchOf(context).search(answer, context.k)),
      );
      return rrfLists(lists, options.rrfK, context.k);
    }
  }
}

function blankField(json: ThreeTexts, what: string): string | undefined {
  const blank = AMD_DIMENSIONS.find((d) => json[d.field].trim() === '');
  return blank ? `the ${blank.name} ${what} is empty` : undefined;
}

/** `amd`: Agent-Mediated Dialogic inquiry. */
export const amdMethod = defineMethod({
  name: 'amd',
  paper: 'Agent-Mediated Dialogic inquiry (AMD) for query expansion',
  steps:
    "one call for 3 sub-questions (clarification, assumption probing, implication probing); 3 pseudo-answers in parallel; reflective feedback rewrites or prunes them (an answer pruned to nothing is left out); sparse: BM25 of the query 3 times and the refined answers, joined by `[SEP]`; dense: 0.7 × the query's embedding + 0.3 × the answers' mean, cosine; rrf: BM25 per refined answer, RRF k 60",
  calls: '5 chat (4 with `--no-feedback`; +1 embedding request for dense)',
  reproduce:
    'The paper used Qwen2.5-7B-Instruct (`--model`) and, for dense, E5-base: `--aggregation dense --embedding-model intfloat/e5-base --query-prefix "query: " --passage-prefix "passage: "`. The weights (query ×3, 0.7/0.3, RRF k 60) are the defaults.',
  settings: AMD_SETTINGS,
  prompts: ['amd-questions', 'amd-answer', 'amd-feedback'],
  needsChat: () => true,
  embeddings: (s) => (s.aggregation === 'dense' ? 'required' : 'none'),
  parameters(s, p) {
    if (s.aggregation === 'sparse') p['amd.query-repeats'] = 3;
  },
  runTopic: (context, topic, s) => amdTopic(context, topic, s),
  estimateTopic(topic, s, sink) {
    const q = estimateTokens(topic.text);
    sink.call('amd-questions', q);
    const question = Math.ceil(sink.max('amd-questions') / 3);
    for (let i = 0; i < 3; i++) sink.call('amd-answer', question);
    if (s.feedback)
      sink.call('amd-feedback', q + sink.max('amd-questions') + 3 * sink.max('amd-answer'));
    if (s.aggregation === 'dense')
      sink.embed(4, q + 3 * sink.max(s.feedback ? 'amd-feedback' : 'amd-answer'));
  },
});
