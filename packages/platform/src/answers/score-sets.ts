// Score sets of stored response sets: scoring a response set with a judge, or importing a
// score file made by `assay answers score`, reading and removing them, the report of a score
// set, and the agreement and position-swap consistency of two of them.
import { positionSwapConsistency, type PositionSwapReport } from '../analysis/position-swap.js';
import {
  createScoreSet,
  deleteScoreSet,
  getResponseSet,
  getScoreSet,
  insertAnswerScores,
  listAnswerScores,
  listResponses,
  withTransaction,
  type AnswerScoreRow,
  type JsonObject,
  type Queryable,
  type ScoreSet,
} from '@assay/db';
import type { JudgeDeps, JudgeSettings, JudgeTemplate } from '@assay/judge';
import {
  answerQualityReport,
  answerScoreAgreement,
  trialSpread,
  type CriterionAgreement,
  type AnswerQualityOptions,
  type AnswerQualityReport,
  type TrialSpread,
} from '@assay/stats';
import { PlatformError, writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import { templateHash } from '../judging/templates.js';
import type { Actor } from '../reports/reports.js';
import {
  parseGoldAnswers,
  parseScoredExamples,
  parseScoreLines,
  type AnswerResponse,
  type AnswerScoreLine,
} from './answer-files.js';
import { resolveResponseSet, type ResponseSetRef } from './answer-sets.js';
import { scoreAnswers, type AnswerScoringMode, type ScoreAnswersResult } from './score-answers.js';
import { routeBreakdown, type RouteMeans } from './answers-report.js';

export type { ScoreSet, AnswerScoreRow };

async function resolveScoreSet(db: Queryable, id: number): Promise<ScoreSet> {
  const set = await getScoreSet(db, id);
  if (!set) throw new PlatformError('not_found', `no score set ${id}`);
  return set;
}

/** Scoring a stored response set with a judge. */
export interface ScoreResponseSetInput {
  responseSet: ResponseSetRef;
  /** Name of the new score set (unique within the response set). */
  name: string;
  template: JudgeTemplate;
  settings: JudgeSettings;
  mode?: AnswerScoringMode;
  trials?: number;
  /** Scored examples, JSONL text, split into `exampleSets` prompts. */
  examples?: string;
  exampleSets?: number;
  /** Gold answers, JSONL text `{"topic","answer"}`. */
  gold?: string;
  seed?: number;
  concurrency?: number;
  createdBy?: Actor;
}

function toRows(result: ScoreAnswersResult): AnswerScoreRow[] {
  return [
    ...result.scores.map((s) => ({
      topicId: s.topic,
      system: s.system,
      trial: s.trial,
      scores: s.scores,
      justification: s.justification,
      label: s.label ?? null,
      error: null,
      raw: null,
    })),
    ...result.failures.map((f) => ({
      topicId: f.topic,
      system: f.system,
      trial: f.trial,
      scores: null,
      justification: null,
      label: null,
      error: f.reason,
      raw: f.raw ?? null,
    })),
  ];
}

/**
 * Scores a stored response set with a judge (every call through `deps.store`, so a repeat
 * pays nothing) and stores the result as a score set: every (topic, system, trial) scored
 * or failed with its reason and raw answer. Answers need their request text in the file.
 */
export async function scoreResponseSet(
  db: Queryable,
  deps: JudgeDeps,
  input: ScoreResponseSetInput,
): Promise<ScoreSet & { failures: number }> {
  checkNewName(input.name, 'score set name');
  const set = await resolveResponseSet(db, input.responseSet);
  const stored = await listResponses(db, set.id);
  const responses: AnswerResponse[] = stored.map((r) => ({
    topic: r.topicId,
    system: r.system,
    answer: r.answer,
    ...(r.query === null ? {} : { query: r.query }),
    ...(r.references === null ? {} : { references: r.references }),
  }));
  const mode = input.mode ?? 'pointwise';
  const result = await scoreAnswers(
    {
      template: input.template,
      responses,
      mode,
      settings: input.settings,
      ...(input.trials === undefined ? {} : { trials: input.trials }),
      ...(input.examples === undefined
        ? {}
        : {
            examples: parseScoredExamples(input.examples, input.template, 'examples.jsonl'),
            exampleSets: input.exampleSets ?? 1,
          }),
      ...(input.gold === undefined ? {} : { gold: parseGoldAnswers(input.gold, 'gold.jsonl') }),
      ...(input.seed === undefined ? {} : { seed: input.seed }),
      ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
    },
    deps,
  );
  const settings: JsonObject = {
    model: input.settings.model,
    templateHash: templateHash(input.template),
    trials: input.trials ?? 1,
    exampleSets: input.examples === undefined ? 0 : (input.exampleSets ?? 1),
    seed: input.seed ?? 42,
    calls: result.calls,
  };
  if (input.settings.temperature !== undefined) settings.temperature = input.settings.temperature;
  if (result.orders) settings.orders = result.orders as unknown as JsonObject;
  const id = await storeScoreSet(db, {
    responseSetId: set.id,
    name: input.name,
    judgeId: input.template.id,
    mode,
    criteria: input.template.criteria!,
    settings,
    rows: toRows(result),
    ...(input.createdBy ? { createdBy: input.createdBy } : {}),
  });
  const scoreSet = await resolveScoreSet(db, id);
  return { ...scoreSet, failures: result.failures.length };
}

async function storeScoreSet(
  db: Queryable,
  input: {
    responseSetId: number;
    name: string;
    judgeId: string;
    mode: 'pointwise' | 'comparative' | 'imported';
    criteria: string[];
    settings: JsonObject;
    rows: AnswerScoreRow[];
    createdBy?: Actor;
  },
): Promise<number> {
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        const id = await createScoreSet(trx, {
          responseSetId: input.responseSetId,
          name: input.name,
          judgeId: input.judgeId,
          mode: input.mode,
          criteria: input.criteria,
          settings: input.settings,
          createdBy: input.createdBy?.id ?? null,
        });
        await insertAnswerScores(trx, id, input.rows);
        return id;
      }),
    `the response set has a score set named ${JSON.stringify(input.name)}`,
  );
}

/** A score file (as `assay answers score` writes it) to store for a response set. */
export interface ImportScoreSetInput {
  responseSet: ResponseSetRef;
  name: string;
  /** JSONL `{"topic","system","trial","scores","justification"}`. */
  text: string;
  file?: string;
  /** The judge that produced the scores, for the record (default "imported"). */
  judge?: string;
  createdBy?: Actor;
}

/**
 * Stores a score file as a score set of a response set. Every line must grade an answer
 * of the set (else invalid_input `file:line`); nothing is kept on failure.
 */
export async function importScoreSet(db: Queryable, input: ImportScoreSetInput): Promise<ScoreSet> {
  checkNewName(input.name, 'score set name');
  const file = input.file ?? 'scores.jsonl';
  const set = await resolveResponseSet(db, input.responseSet);
  const lines = parseScoreLines(input.text, file);
  const known = new Set(
    (await listResponses(db, set.id)).map((r) => JSON.stringify([r.topicId, r.system])),
  );
  const textLines = input.text.split(/\r?\n/);
  let lineNo = 0;
  for (const l of lines) {
    // Find the line number of this score for the message (lines are read in order).
    while (lineNo < textLines.length && textLines[lineNo]!.trim() === '') lineNo++;
    lineNo++;
    if (!known.has(JSON.stringify([l.topic, l.system])))
      throw new PlatformError(
        'invalid_input',
        `${file}:${lineNo}: response set ${set.name} has no answer of system ${l.system} to topic ${l.topic}`,
        { file, line: lineNo },
      );
  }
  const id = await storeScoreSet(db, {
    responseSetId: set.id,
    name: input.name,
    judgeId: input.judge ?? 'imported',
    mode: 'imported',
    criteria: Object.keys(lines[0]!.scores),
    settings: { file },
    rows: lines.map((l) => ({
      topicId: l.topic,
      system: l.system,
      trial: l.trial,
      scores: l.scores,
      justification: l.justification,
      label: l.label ?? null,
      error: null,
      raw: null,
    })),
    ...(input.createdBy ? { createdBy: input.createdBy } : {}),
  });
  return resolveScoreSet(db, id);
}

/** A score set with its rows (optionally one topic's): scored ones and failed ones. */
export async function getScoreSetDetail(
  db: Queryable,
  id: number,
  options: { topic?: string } = {},
): Promise<ScoreSet & { rows: AnswerScoreRow[] }> {
  const set = await resolveScoreSet(db, id);
  const rows = await listAnswerScores(
    db,
    set.id,
    options.topic === undefined ? {} : { topicId: options.topic },
  );
  return { ...set, rows };
}

/** Deletes a score set. */
export async function removeScoreSet(db: Queryable, id: number): Promise<void> {
  await resolveScoreSet(db, id);
  await deleteScoreSet(db, id);
}

/** The answer-quality report of a stored score set (failed rows left out) and its trial spread. */
export async function scoreSetReport(
  db: Queryable,
  id: number,
  options: AnswerQualityOptions = {},
): Promise<{ report: AnswerQualityReport; spread: TrialSpread; routes: RouteMeans[] }> {
  const set = await resolveScoreSet(db, id);
  const rows = await listAnswerScores(db, set.id);
  // A response set made by a method that routes (srsa) records each topic's route.
  const provenance = (await getResponseSet(db, set.responseSetId))?.provenance ?? {};
  const routes = (provenance.routes ?? {}) as Record<string, string | null>;
  const routeOf = (topic: string, system: string) =>
    system === provenance.run ? (routes[topic] ?? undefined) : undefined;
  const scored = rows.filter((r) => r.scores !== null);
  if (scored.length === 0)
    throw new PlatformError('invalid_input', `score set ${id} has no scored answers`);
  // The report lists criteria as the rows' score objects do; stored ones come back in the
  // database's key order (jsonb sorts keys), so they are put back in the set's own order
  // (the judge template's, or the imported file's).
  const rowsForStats = scored.map((r) => ({
    topic: r.topicId,
    system: r.system,
    trial: r.trial,
    scores: inCriteriaOrder(r.scores!, set.criteria),
  }));
  return {
    report: answerQualityReport(rowsForStats, options),
    spread: trialSpread(rowsForStats),
    routes: routeBreakdown(
      rowsForStats.map((r) => {
        const route = routeOf(r.topic, r.system);
        return route ? { ...r, route } : r;
      }),
    ),
  };
}

/** `scores` with its keys in the order of `criteria` (any others after them). */
function inCriteriaOrder(
  scores: Record<string, number>,
  criteria: readonly string[],
): Record<string, number> {
  const ordered: Record<string, number> = {};
  for (const c of criteria) if (c in scores) ordered[c] = scores[c]!;
  for (const [c, v] of Object.entries(scores)) if (!(c in ordered)) ordered[c] = v;
  return ordered;
}

/**
 * Per criterion, the agreement of two score sets of the same response set (a judge and
 * people, or two judges) on the answers both scored: exact agreement, weighted kappas and
 * Krippendorff's alpha on the 0–5 scale (see answerScoreAgreement). Failed rows are left out.
 */
export async function scoreSetAgreement(
  db: Queryable,
  a: number,
  b: number,
  scale: { min: number; max: number } = { min: 0, max: 5 },
): Promise<CriterionAgreement[]> {
  const [setA, setB] = [await resolveScoreSet(db, a), await resolveScoreSet(db, b)];
  if (setA.responseSetId !== setB.responseSetId)
    throw new PlatformError(
      'invalid_input',
      `score sets ${a} and ${b} grade different response sets`,
    );
  const rowsOf = async (id: number) =>
    (await listAnswerScores(db, id))
      .filter((r) => r.scores !== null)
      .map((r) => ({ topic: r.topicId, system: r.system, trial: r.trial, scores: r.scores! }));
  return answerScoreAgreement(await rowsOf(a), await rowsOf(b), scale);
}

/**
 * Position-swap consistency of two comparative score sets of the same answers (scored with
 * different seeds, so different orders): see positionSwapConsistency. Failed rows and rows
 * without a position letter (pointwise scoring) are left out; two pointwise sets give no topic.
 */
export async function scoreSetPositionSwap(
  db: Queryable,
  a: number,
  b: number,
): Promise<PositionSwapReport> {
  const [setA, setB] = [await resolveScoreSet(db, a), await resolveScoreSet(db, b)];
  if (setA.responseSetId !== setB.responseSetId)
    throw new PlatformError(
      'invalid_input',
      `score sets ${a} and ${b} grade different response sets`,
    );
  const rowsOf = async (id: number): Promise<AnswerScoreLine[]> =>
    (await listAnswerScores(db, id))
      .filter((r) => r.scores !== null && r.label !== null)
      .map((r) => ({
        topic: r.topicId,
        system: r.system,
        trial: r.trial,
        scores: r.scores!,
        justification: r.justification ?? '',
        label: r.label!,
      }));
  // Pointwise score sets have no positions: no topic in common, nothing swapped.
  return positionSwapConsistency(await rowsOf(a), await rowsOf(b));
}
