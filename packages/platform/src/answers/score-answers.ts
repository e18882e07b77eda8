// Scoring generated answers with an answer-quality or groundedness judge, pointwise (one
// answer per call) or comparative (all systems' answers to a topic in one call, under
// letters in a seeded per-topic order), with few-shot example sets and repeated trials.
// Every call goes through judgeItem (the one ask loop), so it is stored and never paid
// twice, and an unreadable answer is re-asked and then reported as failed with its raw text.
import { judgeItem, type JudgeDeps, type JudgeSettings, type JudgeTemplate } from '@assay/judge';
import { PlatformError } from '../core/errors.js';
import { AnswerRefusingStore } from '../llm/answer-refusals.js';
import type { AnswerResponse, AnswerScoreLine, ScoredExample } from './answer-files.js';
import { planEvaluations, splitExamples, uses, type Evaluation } from './answer-evaluations.js';

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
