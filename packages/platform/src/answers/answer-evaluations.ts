// The evaluations an answer-scoring run asks: per topic, trial and example set, one prompt
// per answer (pointwise) or one with every answer of the topic under letters in a seeded
// order (comparative), with the request, examples, gold answer and references it needs.
import type { JudgeTemplate, TemplateValues } from '@assay/judge';
import { keyedSeed, seededPermutation } from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import type { AnswerResponse, ScoredExample } from './answer-files.js';
import type { AnswerScoreFailure, AnswerTopic, ScoreAnswersInput } from './score-answers.js';

/** Letters A … Z; comparative prompts take at most 26 answers. */
export function answerLabel(index: number): string {
  return String.fromCharCode(65 + index);
}

/**
 * The systems of one topic in the order the comparative prompt shows them: sorted by name,
 * then permuted by a shuffle seeded with keyedSeed(seed, topic). Position i has letter
 * answerLabel(i).
 */
export function comparativeOrder(
  topic: string,
  systems: readonly string[],
  seed: number,
): { seed: number; systems: string[] } {
  const sorted = [...systems].sort();
  const topicSeed = keyedSeed(seed, topic);
  return {
    seed: topicSeed,
    systems: seededPermutation(sorted.length, topicSeed).map((i) => sorted[i]!),
  };
}

/** Splits examples into k consecutive sets whose sizes differ by at most one. */
export function splitExamples<T>(examples: readonly T[], k: number): T[][] {
  if (!Number.isInteger(k) || k < 1)
    throw new PlatformError('invalid_input', `example sets must be a positive integer, got ${k}`);
  if (k > examples.length)
    throw new PlatformError(
      'invalid_input',
      `${k} example sets need at least ${k} examples, got ${examples.length}`,
    );
  const sets: T[][] = [];
  let start = 0;
  for (let i = 0; i < k; i++) {
    const size = Math.floor(examples.length / k) + (i < examples.length % k ? 1 : 0);
    sets.push(examples.slice(start, start + size));
    start += size;
  }
  return sets;
}

/** Examples as the judge reads them: request, answer, the people's grades, why. */
export function renderExamples(examples: readonly ScoredExample[]): string {
  return examples
    .map((e, i) => {
      const lines = [
        `Example ${i + 1}`,
        `Request: ${e.query}`,
        `Answer: ${e.answer}`,
        `Grades: ${JSON.stringify(e.scores)}`,
      ];
      if (e.justification) lines.push(`Justification: ${e.justification}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

export function uses(template: JudgeTemplate, variable: string): boolean {
  return (
    template.requiredVariables.includes(variable) || template.optionalVariables.includes(variable)
  );
}

/** The criteria-per-letter template of a comparative prompt. */
function comparativeTemplate(template: JudgeTemplate, labels: readonly string[]): JudgeTemplate {
  const { criteria: _criteria, gradeField: _gradeField, ...rest } = template;
  return {
    ...rest,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: [...labels],
      properties: Object.fromEntries(labels.map((l) => [l, template.schema])),
    },
  };
}

export interface Evaluation {
  topic: string;
  trial: number;
  set: number;
  /** Systems judged by this call, with their letter in comparative mode. */
  systems: Array<{ system: string; label?: string }>;
  template: JudgeTemplate;
  values: TemplateValues;
}

/** The evaluations of a run, and what it knows before any call. */
export interface Plan {
  /** The responses by topic, in the order their topics first appear. */
  byTopic: Map<string, AnswerResponse[]>;
  evaluations: Evaluation[];
  /** Answers that cannot be put to the judge (a groundedness judge, no references). */
  early: AnswerScoreFailure[];
  /** Comparative mode: each topic's shuffle. */
  orders: Record<string, { seed: number; systems: string[] }>;
}

/** A topic's request: the responses' own `query`, else the topics file's. */
function topicRequest(
  input: ScoreAnswersInput,
  topic: string,
  responses: readonly AnswerResponse[],
): AnswerTopic {
  const own = responses.find((r) => r.query)?.query;
  if (own) return { ...input.topics?.get(topic), text: own };
  const known = input.topics?.get(topic);
  if (!known)
    throw new PlatformError(
      'invalid_input',
      `no request text for topic ${topic}: give "query" in the responses or a topics file`,
    );
  return known;
}

/** One comparative evaluation: every answer to the topic under its letter. */
function comparativeEvaluation(
  input: ScoreAnswersInput,
  topic: string,
  responses: readonly AnswerResponse[],
  at: { trial: number; set: number; values: TemplateValues },
  orders: Plan['orders'],
): Evaluation {
  if (responses.length > 26)
    throw new PlatformError(
      'invalid_input',
      `topic ${topic} has ${responses.length} answers; comparative prompts take at most 26`,
    );
  const order = comparativeOrder(
    topic,
    responses.map((r) => r.system),
    input.seed ?? 42,
  );
  orders[topic] = order;
  const labels = order.systems.map((_, i) => answerLabel(i));
  const values = {
    ...at.values,
    answers: order.systems
      .map((s, i) => `[${labels[i]}]\n${responses.find((r) => r.system === s)!.answer}`)
      .join('\n\n'),
  };
  return {
    topic,
    trial: at.trial,
    set: at.set,
    systems: order.systems.map((system, i) => ({ system, label: labels[i]! })),
    template: comparativeTemplate(input.template, labels),
    values,
  };
}

/**
 * The pointwise evaluations of a topic's answers; an answer a groundedness judge cannot
 * judge (no references) goes to `early`, once per trial.
 */
function pointwiseEvaluations(
  input: ScoreAnswersInput,
  topic: string,
  responses: readonly AnswerResponse[],
  at: { trial: number; set: number; values: TemplateValues },
  early: AnswerScoreFailure[],
): Evaluation[] {
  const { template } = input;
  const evaluations: Evaluation[] = [];
  for (const r of responses) {
    const own: TemplateValues = { ...at.values, answer: r.answer };
    if (uses(template, 'context')) {
      const context = (r.references ?? [])
        .map((ref, i) => `[${i + 1}] ${input.documents?.get(ref) ?? ref}`)
        .join('\n');
      if (!context) {
        if (at.set === 0)
          early.push({
            topic,
            system: r.system,
            trial: at.trial,
            reason: `judge ${template.id} needs the answer's references, and it has none`,
          });
        continue;
      }
      own.context = context;
    }
    evaluations.push({
      topic,
      trial: at.trial,
      set: at.set,
      systems: [{ system: r.system }],
      template,
      values: own,
    });
  }
  return evaluations;
}

/** Every evaluation of the run: per topic, trial and example set, in that order. */
export function planEvaluations(
  input: ScoreAnswersInput,
  sets: ReadonlyArray<readonly ScoredExample[] | undefined>,
): Plan {
  const { template } = input;
  const byTopic = new Map<string, AnswerResponse[]>();
  for (const r of input.responses) {
    const list = byTopic.get(r.topic);
    if (list) list.push(r);
    else byTopic.set(r.topic, [r]);
  }
  const plan: Plan = { byTopic, evaluations: [], early: [], orders: {} };
  for (const [topic, responses] of byTopic) {
    const request = topicRequest(input, topic, responses);
    const base: TemplateValues = { query: request.text };
    if (uses(template, 'background') && request.background) base.background = request.background;
    const gold = input.gold?.get(topic);
    if (gold !== undefined) base.reference_answer = gold;
    for (let trial = 1; trial <= (input.trials ?? 1); trial++)
      sets.forEach((examples, set) => {
        const values = { ...base };
        if (examples) values.examples = renderExamples(examples);
        const at = { trial, set, values };
        if ((input.mode ?? 'pointwise') === 'comparative')
          plan.evaluations.push(comparativeEvaluation(input, topic, responses, at, plan.orders));
        else
          plan.evaluations.push(...pointwiseEvaluations(input, topic, responses, at, plan.early));
      });
  }
  return plan;
}
