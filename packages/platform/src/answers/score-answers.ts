// Scoring generated answers with an answer-quality or groundedness judge, pointwise (one
// answer per call) or comparative (all systems' answers to a topic in one call, under
// letters in a seeded per-topic order), with few-shot example sets and repeated trials.
// Every call goes through judgeItem (the one ask loop), so it is stored and never paid
// twice, and an unreadable answer is re-asked and then reported as failed with its raw text.
import {
  judgeItem,
  type JudgeDeps,
  type JudgeSettings,
  type JudgeTemplate,
  type TemplateValues,
} from '@assay/judge';
import { keyedSeed, seededPermutation } from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import { AnswerRefusingStore } from '../llm/answer-refusals.js';
import type { AnswerResponse, AnswerScoreLine, ScoredExample } from './answer-files.js';

/** How answers are put to the judge. */
export type AnswerScoringMode = 'pointwise' | 'comparative';

/** The request text (and what is known about the user) of a topic. */
export interface AnswerTopic {
  text: string;
  background?: string;
}

/** What to score and how. */
export interface ScoreAnswersInput {
  /** An answer-quality judge (`answer-quality`) or a groundedness judge (`rag-groundedness`). */
  template: JudgeTemplate;
  responses: readonly AnswerResponse[];
  /** Topic id → request; a response's own `query` wins. */
  topics?: ReadonlyMap<string, AnswerTopic>;
  /** Default pointwise; comparative needs a judge with an `{{answers}}` block. */
  mode?: AnswerScoringMode;
  /** Scored examples, split into `exampleSets` prompts whose evaluations are averaged. */
  examples?: readonly ScoredExample[];
  /** Number of example sets K (default 1); K prompts per answer, scores averaged. */
  exampleSets?: number;
  /** Repetitions of every evaluation (default 1); each trial is its own request. */
  trials?: number;
  /** Topic id → gold answer, for judges with a `{{reference_answer}}` block. */
  gold?: ReadonlyMap<string, string>;
  /** Document id → text, to turn references that are document ids into text. */
  documents?: ReadonlyMap<string, string>;
  settings: JudgeSettings;
  /** Base seed of the comparative shuffle (default 42); each topic derives its own. */
  seed?: number;
  /** Calls in flight at once (default 8). */
  concurrency?: number;
  /** Called after every finished call with the number done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** An answer that could not be scored, with the reason and the judge's raw answer. */
export interface AnswerScoreFailure {
  topic: string;
  system: string;
  trial: number;
  reason: string;
  raw?: string;
}

/** What scoring produced. */
export interface ScoreAnswersResult {
  /** One line per scored (topic, system, trial), in response-file topic order, then system, trial. */
  scores: AnswerScoreLine[];
  failures: AnswerScoreFailure[];
  /**
   * Calls paid for this time (answered ones), evaluations answered from stored calls, and
   * the USD paid: null when a paid call's model has no price (the cost is unknown, not 0).
   */
  calls: { paid: number; cached: number; costUsd: number | null };
  /** Comparative mode: per topic the seed of its shuffle and the systems in letter order. */
  orders?: Record<string, { seed: number; systems: string[] }>;
}

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

function uses(template: JudgeTemplate, variable: string): boolean {
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

interface Evaluation {
  topic: string;
  trial: number;
  set: number;
  /** Systems judged by this call, with their letter in comparative mode. */
  systems: Array<{ system: string; label?: string }>;
  template: JudgeTemplate;
  values: TemplateValues;
}

type Judged =
  | { ok: true; scores: Record<string, number>; justification: string }
  | { ok: false; reason: string; raw?: string };

function checkInput(input: ScoreAnswersInput): void {
  const { template } = input;
  const mode = input.mode ?? 'pointwise';
  if (!template.criteria?.length)
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} scores no criteria; answers need an answer-quality or groundedness judge`,
    );
  if (mode === 'comparative' && !uses(template, 'answers'))
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} has no {{answers}} block: it cannot judge answers side by side`,
    );
  if (mode === 'pointwise' && !uses(template, 'answer'))
    throw new PlatformError('invalid_input', `judge ${template.id} has no {{answer}} variable`);
  if (input.examples?.length && !uses(template, 'examples'))
    throw new PlatformError('invalid_input', `judge ${template.id} takes no examples`);
  if (input.gold?.size && !uses(template, 'reference_answer'))
    throw new PlatformError('invalid_input', `judge ${template.id} takes no gold answer`);
  const trials = input.trials ?? 1;
  if (!Number.isInteger(trials) || trials < 1)
    throw new PlatformError('invalid_input', `trials must be a positive integer, got ${trials}`);
}

/** The evaluations of a run, and what it knows before any call. */
interface Plan {
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
function planEvaluations(
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

/** What a system's part of one evaluation came to, by evaluation (as in the plan). */
type EvaluationResults = Array<Map<string, Judged>>;

/** The account of the calls. */
interface Calls {
  paid: number;
  cached: number;
  costUsd: number;
  unpriced: number;
}

/** One evaluation's outcome per system it judged, read from the judge's answer. */
function judgedBySystem(
  e: Evaluation,
  outcome: Awaited<ReturnType<typeof judgeItem>>,
  criteria: readonly string[],
): Map<string, Judged> {
  const out = new Map<string, Judged>();
  if (outcome.status === 'stopped') {
    for (const s of e.systems) out.set(s.system, { ok: false, reason: 'stopped' });
  } else if (outcome.status === 'failed') {
    for (const s of e.systems)
      out.set(s.system, {
        ok: false,
        reason: outcome.reason,
        ...(outcome.raw === undefined ? {} : { raw: outcome.raw }),
      });
  } else {
    const fields = outcome.judgment.fields;
    for (const s of e.systems) {
      const own = (s.label ? fields[s.label] : fields) as Record<string, unknown>;
      out.set(s.system, {
        ok: true,
        scores: Object.fromEntries(criteria.map((c) => [c, own[c] as number])),
        justification: typeof own.justification === 'string' ? own.justification : '',
      });
    }
  }
  return out;
}

/**
 * Asks every evaluation, `concurrency` at a time (trial t > 1 with seed 1000 t, so each
 * trial is its own request), keeping the account of the calls.
 */
async function runEvaluations(
  input: ScoreAnswersInput,
  evaluations: readonly Evaluation[],
  deps: JudgeDeps,
): Promise<{ results: EvaluationResults; calls: Calls }> {
  const criteria = input.template.criteria!;
  const calls: Calls = { paid: 0, cached: 0, costUsd: 0, unpriced: 0 };
  let done = 0;
  const results: EvaluationResults = new Array(evaluations.length);
  const settingsOf = (trial: number): JudgeSettings =>
    trial === 1 ? input.settings : { ...input.settings, seed: trial * 1000 };
  // An answer the call store cannot keep fails its evaluation, not the run.
  const refusals = new AnswerRefusingStore(deps.store);
  const judging: JudgeDeps = { ...deps, store: refusals };
  let next = 0;
  const worker = async () => {
    while (next < evaluations.length) {
      const index = next++;
      const e = evaluations[index]!;
      const outcome = refusals.kept(
        await judgeItem(e.template, e.values, settingsOf(e.trial), judging),
      );
      calls.paid += outcome.paidCalls.length;
      for (const c of outcome.paidCalls) {
        if (c.costUsd === undefined) calls.unpriced++;
        else calls.costUsd += c.costUsd;
      }
      if (outcome.status === 'labelled' && outcome.cached) calls.cached++;
      results[index] = judgedBySystem(e, outcome, criteria);
      input.onProgress?.(++done, evaluations.length);
    }
  };
  await Promise.all(
    Array.from(
      { length: Math.max(1, Math.min(input.concurrency ?? 8, evaluations.length)) },
      worker,
    ),
  );
  return { results, calls };
}

/** The K example-set evaluations of one (topic, system, trial). */
interface Gathered {
  topic: string;
  system: string;
  trial: number;
  label?: string;
  judged: Judged[];
}

/** Gathers the results of each (topic, system, trial) over its example sets. */
function gatherBySystem(
  evaluations: readonly Evaluation[],
  results: EvaluationResults,
): Map<string, Gathered> {
  const gathered = new Map<string, Gathered>();
  evaluations.forEach((e, index) => {
    for (const s of e.systems) {
      const key = JSON.stringify([e.topic, s.system, e.trial]);
      let g = gathered.get(key);
      if (!g) {
        g = { topic: e.topic, system: s.system, trial: e.trial, judged: [] };
        if (s.label) g.label = s.label;
        gathered.set(key, g);
      }
      g.judged[e.set] = results[index]!.get(s.system)!;
    }
  });
  return gathered;
}

/**
 * One score line per (topic, system, trial) whose every example set was judged, the
 * criteria averaged over the sets; a failure (naming the example set, when there are
 * several) otherwise.
 */
function scoreLines(
  input: ScoreAnswersInput,
  gathered: Iterable<Gathered>,
  setCount: number,
): { scores: AnswerScoreLine[]; failures: AnswerScoreFailure[] } {
  const criteria = input.template.criteria!;
  const routeOf = new Map(
    input.responses
      .filter((r) => r.route !== undefined)
      .map((r) => [JSON.stringify([r.topic, r.system]), r.route!]),
  );
  const scores: AnswerScoreLine[] = [];
  const failures: AnswerScoreFailure[] = [];
  for (const g of gathered) {
    const failed = g.judged.findIndex((j) => !j.ok);
    if (failed >= 0) {
      const j = g.judged[failed] as Extract<Judged, { ok: false }>;
      failures.push({
        topic: g.topic,
        system: g.system,
        trial: g.trial,
        reason: setCount > 1 ? `example set ${failed + 1}: ${j.reason}` : j.reason,
        ...(j.raw === undefined ? {} : { raw: j.raw }),
      });
      continue;
    }
    const ok = g.judged as Array<Extract<Judged, { ok: true }>>;
    const line: AnswerScoreLine = {
      topic: g.topic,
      system: g.system,
      trial: g.trial,
      scores: Object.fromEntries(
        criteria.map((c) => [c, ok.reduce((s, j) => s + j.scores[c]!, 0) / ok.length]),
      ),
      justification:
        ok.length === 1
          ? ok[0]!.justification
          : ok.map((j, i) => `[example set ${i + 1}] ${j.justification}`).join('\n'),
    };
    if (g.label) line.label = g.label;
    const route = routeOf.get(JSON.stringify([g.topic, g.system]));
    if (route !== undefined) line.route = route;
    scores.push(line);
  }
  return { scores, failures };
}

/**
 * Scores every answer. Pointwise: one evaluation per (answer, example set, trial).
 * Comparative: one per (topic, example set, trial) with the topic's answers under letters
 * A, B, C … in the order {@link comparativeOrder} gives, the judge's grades mapped back to
 * the systems. The K example-set evaluations of an answer are averaged into one score line
 * per trial; if any of them fails, the answer's trial is reported as failed (never as 0).
 */
export async function scoreAnswers(
  input: ScoreAnswersInput,
  deps: JudgeDeps,
): Promise<ScoreAnswersResult> {
  checkInput(input);
  const sets = input.examples?.length
    ? splitExamples(input.examples, input.exampleSets ?? 1)
    : [undefined];
  const plan = planEvaluations(input, sets);
  const { results, calls } = await runEvaluations(input, plan.evaluations, deps);
  const lines = scoreLines(input, gatherBySystem(plan.evaluations, results).values(), sets.length);
  const scores = lines.scores;
  const failures = [...plan.early, ...lines.failures];
  // In the responses' topic order, then by system and trial.
  const topicRank = new Map([...plan.byTopic.keys()].map((t, i) => [t, i]));
  const order = (a: { topic: string; system: string; trial: number }, b: typeof a) =>
    topicRank.get(a.topic)! - topicRank.get(b.topic)! ||
    (a.system < b.system ? -1 : a.system > b.system ? 1 : 0) ||
    a.trial - b.trial;
  scores.sort(order);
  failures.sort(order);
  const result: ScoreAnswersResult = {
    scores,
    failures,
    calls: {
      paid: calls.paid,
      cached: calls.cached,
      costUsd: calls.unpriced > 0 ? null : calls.costUsd,
    },
  };
  if ((input.mode ?? 'pointwise') === 'comparative') result.orders = plan.orders;
  return result;
}
