// LLM assessment of a response set's answers, stored as an assessment set: nugget
// assignment (a batch of a topic's nuggets per call, as the TREC RAG track did), citation
// support (one sentence and the passages it cites per call) and rubric criteria (a batch of
// a topic's criteria per call). Every call goes through the call store: a rerun of the
// same command sends no request, and finishes what a crash or a budget left.
import {
  createAssessmentSet,
  findAssessmentSet,
  freezeNuggetBankVersion,
  replaceAssessments,
  updateAssessmentSetSettings,
  withTransaction,
  type AssessmentKind,
  type AssessmentRow,
  type AssessmentSet,
  type JsonObject,
  type Queryable,
  type StoredResponse,
} from '@assay/db';
import type { JudgeDeps, JudgeTemplate } from '@assay/judge';
import { canonicalJson } from '@assay/llm';
import { PlatformError, writing } from '../core/errors.js';
import { dryRunStep, type LlmStep as BatchStep } from '../judging/batch.js';
import type { ResponseSetRef } from '../answers/answer-sets.js';
import { templateHash } from '../judging/templates.js';
import { checkNewName } from '../core/names.js';
import type { Actor } from '../reports/reports.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import {
  answerKey,
  isAssessable,
  itemsOf,
  loadAssessmentContext,
  requestOf,
  resolveAssessmentSet,
  type AssessmentContext,
  type AssessmentItem,
} from './assessment-context.js';
import {
  LlmStep,
  numberedLabels,
  numberedList,
  numberedTemplate,
  type LlmStepOptions,
  type LlmStepReport,
} from './llm-step.js';
import { resolveAssessmentBasis } from './assessment-basis.js';

/** The judge kind each assessment kind asks. */
const JUDGE_KIND: Readonly<Record<AssessmentKind, JudgeTemplate['kind']>> = {
  nuggets: 'nugget-assignment',
  support: 'citation-support',
  rubric: 'rubric-judgment',
};

/** The shipped judge of each kind. */
export const DEFAULT_ASSESSMENT_JUDGE: Readonly<Record<AssessmentKind, string>> = {
  nuggets: 'nugget-assign',
  support: 'citation-support',
  rubric: 'rubric-judge',
};

/** An LLM assessment of a response set. */
export interface LlmAssessmentInput extends Omit<LlmStepOptions, 'onProgress'> {
  collection: CollectionRef;
  kind: AssessmentKind;
  /** The set's name (default `<response set>-<model>`); a rerun names the same set. */
  name?: string;
  responseSet: ResponseSetRef;
  /** Nuggets: the bank (latest version unless `version`). */
  bank?: { name: string; version?: number };
  /** Rubric: the rubric set's name. */
  rubricSet?: string;
  template: JudgeTemplate;
  /** Nuggets or criteria per call (default 10); support asks one sentence per call. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  createdBy?: Actor;
}

/** An item the LLM could not judge, with the reason and its raw answer. */
export interface AssessmentFailure {
  topic: string;
  system: string;
  item: string;
  reason: string;
  raw?: string;
}

/** What an LLM assessment did. */
export interface LlmAssessmentResult {
  /** The stored set (absent after a dry run). */
  set?: AssessmentSet;
  /** Whether the set was made by this run. */
  created: boolean;
  report: LlmStepReport;
  /** Answers and items judged. */
  answers: number;
  items: number;
  failures: AssessmentFailure[];
  /** Items left unjudged (a spent budget, or a dry run). */
  pending: number;
  /** Answers with nothing to judge (no nuggets or criteria for the topic, no citations). */
  skippedAnswers: number;
  /**
   * Support: citations "cannot assess" because the collection lacks their passage (stored
   * so, with no call), and how many passages that is.
   */
  cannotAssess: { citations: number; passages: number };
}

function checkTemplate(kind: AssessmentKind, template: JudgeTemplate): void {
  if (template.kind !== JUDGE_KIND[kind])
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} is a ${template.kind} judge; ${kind} assessment needs a ${JUDGE_KIND[kind]} judge`,
    );
}

/** A prompt of the run: one answer's batch of items (nuggets, criteria) or one sentence's citations. */
interface Unit {
  answer: StoredResponse;
  items: AssessmentItem[];
}

/** The prompts of a run, the answers with nothing to judge, and the judgments made without a call. */
interface Units {
  units: Unit[];
  skipped: number;
  /** Support: "cannot assess" rows of citations whose passage the collection lacks. */
  offline: AssessmentRow[];
  /** The passages those citations cite. */
  missing: Set<string>;
}

function unitsOf(context: AssessmentContext, batchSize: number): Units {
  const units: Unit[] = [];
  const offline: AssessmentRow[] = [];
  const missing = new Set<string>();
  let skipped = 0;
  for (const answer of context.answers) {
    const items = isAssessable(context, answer) ? itemsOf(context, answer) : [];
    if (items.length === 0) {
      skipped++;
      continue;
    }
    if (context.set.kind === 'support') {
      // A passage the collection lacks cannot be judged: "cannot assess", no call.
      for (const i of items)
        if (i.passage === null) {
          missing.add(i.docid!);
          offline.push({
            topicId: answer.topicId,
            system: answer.system,
            item: i.item,
            label: 'cannot_assess',
            rationale: `passage ${i.docid} is not in the collection`,
          });
        }
      const bySentence = new Map<number, AssessmentItem[]>();
      for (const i of items) {
        if (i.passage === null) continue;
        const list = bySentence.get(i.sentence!) ?? [];
        list.push(i);
        bySentence.set(i.sentence!, list);
      }
      for (const list of bySentence.values()) units.push({ answer, items: list });
      continue;
    }
    for (let k = 0; k < items.length; k += batchSize)
      units.push({ answer, items: items.slice(k, k + batchSize) });
  }
  return { units, skipped, offline, missing };
}

/**
 * Refuses a support run that could assess no citation: the collection holds none of the
 * cited passages (one made without documents, by `nuggets import --create-collection`),
 * so every citation would be "cannot assess" and every system score 0.
 */
function checkAssessable(kind: AssessmentKind, collection: string, planned: Units): void {
  if (kind !== 'support' || planned.units.length > 0 || planned.offline.length === 0) return;
  const passages = planned.missing.size;
  const citations = planned.offline.length;
  throw new PlatformError(
    'invalid_input',
    `none of the ${passages} passage${passages === 1 ? '' : 's'} the answers cite is in collection ${JSON.stringify(collection)}, ` +
      `so none of their ${citations} citation${citations === 1 ? '' : 's'} can be assessed (every system would score 0): ` +
      `add the documents with \`assay import documents --collection ${collection} FILE\` or POST /api/collections/${encodeURIComponent(collection)}/documents, then run again`,
  );
}

function valuesOf(context: AssessmentContext, unit: Unit): Record<string, string | undefined> {
  const query = requestOf(context, unit.answer);
  switch (context.set.kind) {
    case 'nuggets':
    case 'rubric': {
      if (query === undefined)
        throw new PlatformError(
          'invalid_input',
          `no request text for topic ${unit.answer.topicId}: give "query" in the responses or import the collection's topics`,
        );
      const list = numberedList(unit.items.map((i) => i.text));
      return {
        query,
        answer: unit.answer.answer,
        ...(context.set.kind === 'nuggets' ? { nuggets: list } : { criteria: list }),
      };
    }
    case 'support':
      return {
        query,
        sentence: unit.items[0]!.text,
        passages: numberedList(unit.items.map((i) => i.passage!)),
      };
  }
}

/** The configuration a set records; a rerun must match it. */
function configOf(input: LlmAssessmentInput, batchSize: number): JsonObject {
  return {
    judge: input.template.id,
    templateHash: templateHash(input.template),
    model: input.settings.model,
    ...(input.settings.temperature === undefined
      ? {}
      : { temperature: input.settings.temperature }),
    ...(input.kind === 'support' ? {} : { batchSize }),
  };
}

/** Where a run's judgments go: the set (as stored, or as it will be) and what it records. */
interface AssessmentTarget {
  collection: { id: number; name: string };
  name: string;
  /** The set a rerun replaces the judgments of; absent on the first run. */
  existing?: AssessmentSet;
  /** The set as it is or will be stored, for loading what it judges. */
  draft: AssessmentSet;
  config: JsonObject;
}

/**
 * Resolves what a run judges and where it stores it: the collection, the answers and the
 * nugget bank version or rubric set, the set's name; a set of that name made with other
 * answers, items, judge or model is a conflict.
 */
async function assessmentTarget(
  db: Queryable,
  input: LlmAssessmentInput,
  batchSize: number,
): Promise<AssessmentTarget> {
  const collection = await resolveCollection(db, input.collection);
  const { responseSet, nuggetVersionId, rubricSetId } = await resolveAssessmentBasis(
    db,
    collection.id,
    input.kind,
    input,
  );
  const name = checkNewName(
    input.name ?? `${responseSet.name}-${input.settings.model}`,
    'assessment set name',
  );
  const config = configOf(input, batchSize);
  const existing = await findAssessmentSet(db, collection.id, input.kind, name);
  if (existing) {
    const same =
      existing.assessor === 'llm' &&
      existing.responseSetId === responseSet.id &&
      existing.nuggetVersionId === nuggetVersionId &&
      existing.rubricSetId === rubricSetId &&
      canonicalJson(existing.settings.config ?? null) === canonicalJson(config);
    if (!same)
      throw new PlatformError(
        'conflict',
        `${input.kind} assessment set ${JSON.stringify(name)} was made with other answers, ${input.kind === 'nuggets' ? 'nuggets' : input.kind === 'rubric' ? 'rubrics' : 'passages'}, judge or model; give another name`,
      );
  }
  const draft: AssessmentSet = existing ?? {
    id: 0,
    collectionId: collection.id,
    kind: input.kind,
    name,
    responseSetId: responseSet.id,
    nuggetVersionId,
    rubricSetId,
    assessor: 'llm',
    mode: null,
    referenceSetId: null,
    settings: {},
    createdBy: input.createdBy?.id ?? null,
    createdAt: new Date(),
    judged: 0,
    failed: 0,
  };
  return {
    collection: { id: collection.id, name: collection.name },
    name,
    ...(existing ? { existing } : {}),
    draft,
    config,
  };
}

/** What the prompts of a run came to: the rows to store, the items failed and left. */
interface Judged {
  rows: AssessmentRow[];
  failures: AssessmentFailure[];
  pending: number;
}

/** Asks one unit's prompt and reads its answer into a row per item. */
async function judgeUnit(
  step: LlmStep,
  input: LlmAssessmentInput,
  context: AssessmentContext,
  unit: Unit,
): Promise<Judged> {
  const template = numberedTemplate(input.template, unit.items.length);
  const answer = await step.ask(template, valuesOf(context, unit));
  const key = { topicId: unit.answer.topicId, system: unit.answer.system };
  if (answer.status === 'not_sent') return { rows: [], failures: [], pending: unit.items.length };
  if (answer.status === 'failed')
    return {
      rows: unit.items.map((i) => ({
        ...key,
        item: i.item,
        label: null,
        error: answer.reason,
        raw: answer.raw ?? null,
      })),
      failures: unit.items.map((i) => ({
        topic: key.topicId,
        system: key.system,
        item: i.item,
        reason: answer.reason,
        ...(answer.raw === undefined ? {} : { raw: answer.raw }),
      })),
      pending: 0,
    };
  const labels = numberedLabels(answer.judgment, unit.items.length);
  return {
    rows: unit.items.map((i, k) => ({ ...key, item: i.item, label: labels[k]! })),
    failures: [],
    pending: 0,
  };
}

/** Asks every unit (`concurrency` at a time); rows and failures come in the units' order. */
async function judgeUnits(
  step: LlmStep,
  input: LlmAssessmentInput,
  context: AssessmentContext,
  units: readonly Unit[],
): Promise<Judged> {
  const byUnit: Judged[] = new Array(units.length);
  await step.forEach(
    units.map((unit, index) => ({ unit, index })),
    async ({ unit, index }) => {
      byUnit[index] = await judgeUnit(step, input, context, unit);
    },
  );
  return {
    rows: byUnit.flatMap((j) => j.rows),
    failures: byUnit.flatMap((j) => j.failures),
    pending: byUnit.reduce((s, j) => s + j.pending, 0),
  };
}

/** Stores the run's judgments: the set made on the first run, its judgments replaced after. */
async function storeAssessment(
  db: Queryable,
  input: LlmAssessmentInput,
  target: AssessmentTarget,
  rows: readonly AssessmentRow[],
  settings: JsonObject,
): Promise<{ id: number; created: boolean }> {
  const { draft, existing, name } = target;
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        let id = existing?.id;
        let created = false;
        if (id === undefined) {
          id = await createAssessmentSet(trx, {
            collectionId: target.collection.id,
            kind: input.kind,
            name,
            responseSetId: draft.responseSetId,
            nuggetVersionId: draft.nuggetVersionId,
            rubricSetId: draft.rubricSetId,
            assessor: 'llm',
            settings,
            createdBy: input.createdBy?.id ?? null,
          });
          created = true;
        } else await updateAssessmentSetSettings(trx, id, settings);
        if (draft.nuggetVersionId !== null)
          await freezeNuggetBankVersion(trx, draft.nuggetVersionId);
        await replaceAssessments(trx, id, rows);
        return { id, created };
      }),
    `a ${input.kind} assessment set named ${JSON.stringify(name)} was made at the same time; run the command again`,
  );
}

/**
 * Judges a response set's answers with an LLM and stores the judgments as an assessment set
 * of the collection (made on the first run; a later run with the same name must use the
 * same answers, nuggets or rubric, judge and model, and replaces its judgments by the new
 * ones, read from stored calls where they exist). An item whose answer stays unreadable is
 * stored failed with the reason and raw answer, never as a label. With `dryRun` nothing is
 * sent or stored: the result counts the calls it would send and their cost.
 */
export async function runLlmAssessment(
  db: Queryable,
  deps: JudgeDeps,
  input: LlmAssessmentInput,
): Promise<LlmAssessmentResult> {
  checkTemplate(input.kind, input.template);
  const batchSize = input.batchSize ?? 10;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new PlatformError(
      'invalid_input',
      `the batch size must be a positive integer, got ${batchSize}`,
    );
  const target = await assessmentTarget(db, input, batchSize);
  const context = await loadAssessmentContext(db, target.draft);
  const planned = unitsOf(context, batchSize);
  const { units, offline } = planned;
  checkAssessable(input.kind, target.collection.name, planned);
  for (const u of units) valuesOf(context, u); // every prompt can be made before one is sent

  const step = new LlmStep(deps, input);
  const judged = await judgeUnits(step, input, context, units);
  const items = units.reduce((s, u) => s + u.items.length, 0) + offline.length;
  const answers = new Set(units.map((u) => answerKey(u.answer.topicId, u.answer.system))).size;
  const result: LlmAssessmentResult = {
    created: false,
    report: step.report,
    answers,
    items,
    failures: judged.failures,
    pending: judged.pending,
    skippedAnswers: planned.skipped,
    cannotAssess: { citations: offline.length, passages: planned.missing.size },
  };
  if (input.dryRun) return result;

  const settings: JsonObject = {
    config: target.config,
    calls: {
      paid: step.report.paidCalls,
      cached: step.report.cachedAnswers,
      costUsd: step.report.costUsd,
    },
    pending: judged.pending,
  };
  const stored = await storeAssessment(db, input, target, [...offline, ...judged.rows], settings);
  result.created = stored.created;
  result.set = await resolveAssessmentSet(db, stored.id);
  return result;
}

/**
 * The assessment as a batch step: the prompts it still needs, collected by a dry run (see
 * `dryRunStep`), for `--batch-export`, `--batch-import` and the Batch API. The answers go
 * into the call store; the assessment run after it reads them all from there.
 */
export function llmAssessmentBatchStep(
  db: Queryable,
  deps: JudgeDeps,
  input: LlmAssessmentInput,
): BatchStep {
  return dryRunStep((d, collect) =>
    runLlmAssessment(db, { ...deps, ...d }, { ...input, dryRun: true, collect }),
  );
}
