import { ask, estimateTokens } from '@assay/llm';
import { weightedQueryVector } from './dense-index.js';
import type { MethodDefinition } from './method-definition.js';
import {
  chatOf,
  denseOf,
  promptOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import { amdSparseQuery } from './query-strings.js';
import { rrfLists } from './ranked-lists.js';

/** How AMD turns its refined answers into a ranking. */
export type AmdAggregation = 'sparse' | 'dense' | 'rrf';

/** AMD settings. */
export interface AmdOptions {
  aggregation: AmdAggregation;
  /** Run the reflective feedback step (false: the paper's ablation). */
  feedback: boolean;
  /** Weight of the query embedding in dense aggregation (the rest goes to the answers). */
  queryWeight: number;
  /** RRF constant of rrf aggregation. */
  rrfK: number;
}

/** The paper's settings: sparse, with feedback, 0.7 / 0.3, RRF k = 60. */
export const DEFAULT_AMD: AmdOptions = {
  aggregation: 'sparse',
  feedback: true,
  queryWeight: 0.7,
  rrfK: 60,
};

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
  const chat = chatOf(context);
  const settings = { model: chat.model };
  const base = { topic: topic.id, method: 'amd' };
  const questionsPrompt = promptOf(context, 'amd-questions');
  const asked = await ask(
    chat.client,
    questionsPrompt,
    { query: topic.text },
    { ...settings, validate: (json) => blankField(json as ThreeTexts, 'sub-question') },
    context.deps,
  );
  const questions = asked.json as ThreeTexts;
  for (const d of AMD_DIMENSIONS)
    context.trace({
      ...base,
      step: 'sub-question',
      prompt: questionsPrompt.id,
      dimension: d.name,
      text: questions[d.field].trim(),
      cached: asked.cached,
    });

  const answerPrompt = promptOf(context, 'amd-answer');
  const answers = await Promise.all(
    AMD_DIMENSIONS.map((d) =>
      ask(
        chat.client,
        answerPrompt,
        { dimension: d.name, question: questions[d.field].trim() },
        settings,
        context.deps,
      ),
    ),
  );
  AMD_DIMENSIONS.forEach((d, i) =>
    context.trace({
      ...base,
      step: 'pseudo-answer',
      prompt: answerPrompt.id,
      dimension: d.name,
      text: answers[i]!.text,
      cached: answers[i]!.cached,
    }),
  );

  let refined: string[];
  if (options.feedback) {
    const feedbackPrompt = promptOf(context, 'amd-feedback');
    const values: Record<string, string> = { query: topic.text };
    AMD_DIMENSIONS.forEach((d, i) => {
      values[`${d.variable}_question`] = questions[d.field].trim();
      values[`${d.variable}_answer`] = answers[i]!.text;
    });
    const reviewed = await ask(
      chat.client,
      feedbackPrompt,
      values,
      {
        ...settings,
        validate: (json) =>
          AMD_DIMENSIONS.every((d) => (json as ThreeTexts)[d.field].trim() === '')
            ? 'the feedback pruned every answer'
            : undefined,
      },
      context.deps,
    );
    const kept = reviewed.json as ThreeTexts;
    refined = [];
    for (const d of AMD_DIMENSIONS) {
      const text = kept[d.field].trim();
      context.trace({
        ...base,
        step: 'refined-answer',
        prompt: feedbackPrompt.id,
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
      return context.bm25.search(query, context.k);
    }
    case 'dense': {
      const dense = denseOf(context);
      const [queryVector, ...answerVectors] = await dense.client.embed(dense.model, [
        topic.text,
        ...refined,
      ]);
      const vector = weightedQueryVector(queryVector!, answerVectors, options.queryWeight);
      return dense.index.search(vector, context.k);
    }
    case 'rrf': {
      const lists = refined.map((answer) => context.bm25.search(answer, context.k));
      return rrfLists(lists, options.rrfK, context.k);
    }
  }
}

function blankField(json: ThreeTexts, what: string): string | undefined {
  const blank = AMD_DIMENSIONS.find((d) => json[d.field].trim() === '');
  return blank ? `the ${blank.name} ${what} is empty` : undefined;
}

/** `amd`: Agent-Mediated Dialogic inquiry. */
export const amdMethod: MethodDefinition = {
  name: 'amd',
  needsChat: () => true,
  needsEmbeddings: (options) => options.aggregation === 'dense',
  parameters(options, p) {
    const aggregation = options.aggregation ?? DEFAULT_AMD.aggregation;
    p['amd.aggregation'] = aggregation;
    p['amd.feedback'] = String(options.feedback ?? DEFAULT_AMD.feedback);
    if (aggregation === 'sparse') p['amd.query-repeats'] = 3;
    if (aggregation === 'dense')
      p['amd.query-weight'] = options.queryWeight ?? DEFAULT_AMD.queryWeight;
    if (aggregation === 'rrf') p['amd.rrf-k'] = options.rrfK ?? DEFAULT_AMD.rrfK;
  },
  runTopic: (context, topic, options) =>
    amdTopic(context, topic, {
      aggregation: options.aggregation ?? DEFAULT_AMD.aggregation,
      feedback: options.feedback ?? DEFAULT_AMD.feedback,
      queryWeight: options.queryWeight ?? DEFAULT_AMD.queryWeight,
      rrfK: options.rrfK ?? DEFAULT_AMD.rrfK,
    }),
  estimateTopic(topic, options, sink) {
    const q = estimateTokens(topic.text);
    sink.call('amd-questions', q);
    const question = Math.ceil(sink.max('amd-questions') / 3);
    for (let i = 0; i < 3; i++) sink.call('amd-answer', question);
    if (options.feedback ?? true)
      sink.call('amd-feedback', q + sink.max('amd-questions') + 3 * sink.max('amd-answer'));
    if (options.aggregation === 'dense')
      sink.embed(4, q + 3 * sink.max(options.feedback === false ? 'amd-answer' : 'amd-feedback'));
  },
};
