// Making a nugget bank with an LLM from a collection's judged passages: a label set and a
// grade threshold pick each topic's relevant passages (most relevant first), the
// AutoNuggetizer steps make and label the nuggets, and the result is stored as the bank's
// next version (nothing new when the same nuggets are there already).
import { getDocuments, getLabelGrades, getTopic, type JsonObject, type Queryable } from '@assay/db';
import type { JudgeDeps, JudgeTemplate } from '@assay/judge';
import { PlatformError } from '../core/errors.js';
import { dryRunStep, type LlmStep as BatchStep } from '../judging/batch.js';
import { templateHash } from '../judging/templates.js';
import { checkNewName } from '../core/names.js';
import type { Actor } from '../reports/reports.js';
import {
  resolveCollection,
  resolveLabelSet,
  type CollectionRef,
  type ItemRef,
} from '../core/resolve.js';
import { LlmStep, type LlmStepOptions, type LlmStepReport } from './llm-step.js';
import {
  createNuggets,
  NUGGET_CREATION_DEFAULTS,
  type CreatedTopic,
  type NuggetSourceTopic,
} from './nugget-create.js';
import { storeLlmNuggets, type StoredBankVersion } from './nugget-bank-versions.js';

/** Making a bank's nuggets with an LLM. */
export interface CreateNuggetBankInput extends LlmStepOptions {
  collection: CollectionRef;
  bank: string;
  /** The label set whose passages graded at least `minGrade` are the topics' relevant ones. */
  labelSet: ItemRef;
  /** Default 1. */
  minGrade?: number;
  /** Only these topics (default: every topic the label set judges relevant passages for). */
  topics?: readonly string[];
  creator: JudgeTemplate;
  scorer: JudgeTemplate;
  batchSize?: number;
  maxNuggets?: number;
  scoreBatch?: number;
  createdBy?: Actor;
}

/** What making a bank did. */
export interface CreateNuggetBankResult {
  /** The stored version (absent after a dry run, or when the budget left topics unfinished). */
  stored?: StoredBankVersion;
  topics: CreatedTopic[];
  /** Topics left out before any call, and why. */
  skipped: Array<{ topic: string; reason: string }>;
  /** Relevant passages the collection does not hold (left out). */
  missingPassages: number;
  report: LlmStepReport;
}

/**
 * Makes a nugget bank with an LLM (see createNuggets) and stores it as the bank's next
 * version. Topics whose prompts failed are reported and left out; when the budget stops
 * the step with topics unfinished nothing is stored (run again: stored answers cost
 * nothing). With `dryRun` nothing is sent or stored.
 */
export async function createNuggetBankWithLlm(
  db: Queryable,
  deps: JudgeDeps,
  input: CreateNuggetBankInput,
): Promise<CreateNuggetBankResult> {
  checkNewName(input.bank, 'nugget bank name');
  const collection = await resolveCollection(db, input.collection);
  const labelSet = await resolveLabelSet(db, collection, input.labelSet);
  const minGrade = input.minGrade ?? 1;
  if (!Number.isSafeInteger(minGrade))
    throw new PlatformError(
      'invalid_input',
      `the grade threshold must be an integer, got ${minGrade}`,
    );
  const grades = await getLabelGrades(
    db,
    labelSet.id,
    input.topics ? { topicIds: input.topics } : {},
  );
  const wanted = input.topics ? [...input.topics] : [...grades.keys()].sort();
  const skipped: CreateNuggetBankResult['skipped'] = [];
  const sources: NuggetSourceTopic[] = [];
  let missingPassages = 0;
  for (const topicId of wanted) {
    const relevant = [...(grades.get(topicId) ?? new Map<string, number>())]
      .filter(([, g]) => g >= minGrade)
      .sort(([da, ga], [db2, gb]) => gb - ga || (da < db2 ? -1 : da > db2 ? 1 : 0));
    if (relevant.length === 0) {
      skipped.push({
        topic: topicId,
        reason: `no passage graded ${minGrade} or more in ${labelSet.name}`,
      });
      continue;
    }
    const topic = await getTopic(db, collection.id, topicId);
    if (!topic) {
      skipped.push({
        topic: topicId,
        reason: `collection "${collection.name}" has no topic ${topicId}`,
      });
      continue;
    }
    const docs = await getDocuments(
      db,
      collection.id,
      relevant.map(([d]) => d),
    );
    const passages = relevant.flatMap(([docId]) => {
      const doc = docs.get(docId);
      if (!doc) {
        missingPassages++;
        return [];
      }
      return [{ id: docId, text: doc.title ? `${doc.title}\n${doc.text}` : doc.text }];
    });
    if (passages.length === 0) {
      skipped.push({
        topic: topicId,
        reason: 'the collection holds none of its relevant passages',
      });
      continue;
    }
    sources.push({ topicId, query: topic.query, passages });
  }
  if (sources.length === 0)
    throw new PlatformError(
      'invalid_input',
      `no topic has relevant passages to make nuggets from (${
        skipped
          .map((s) => `${s.topic}: ${s.reason}`)
          .slice(0, 3)
          .join('; ') || 'the label set is empty'
      })`,
    );
  const step = new LlmStep(deps, input);
  const topics = await createNuggets(
    sources,
    {
      creator: input.creator,
      scorer: input.scorer,
      ...(input.batchSize === undefined ? {} : { batchSize: input.batchSize }),
      ...(input.maxNuggets === undefined ? {} : { maxNuggets: input.maxNuggets }),
      ...(input.scoreBatch === undefined ? {} : { scoreBatch: input.scoreBatch }),
    },
    step,
  );
  const result: CreateNuggetBankResult = { topics, skipped, missingPassages, report: step.report };
  if (input.dryRun || topics.some((t) => t.status === 'not_sent')) return result;
  const created = topics.flatMap((t) => (t.status === 'created' ? [t] : []));
  if (created.length === 0) return result;
  const provenance: JsonObject = {
    labelSet: { id: labelSet.id, name: labelSet.name },
    minGrade,
    model: input.settings.model,
    creator: { judge: input.creator.id, templateHash: templateHash(input.creator) },
    scorer: { judge: input.scorer.id, templateHash: templateHash(input.scorer) },
    batchSize: input.batchSize ?? NUGGET_CREATION_DEFAULTS.batchSize,
    maxNuggets: input.maxNuggets ?? NUGGET_CREATION_DEFAULTS.maxNuggets,
    scoreBatch: input.scoreBatch ?? NUGGET_CREATION_DEFAULTS.scoreBatch,
    failedTopics: topics.flatMap((t) => (t.status === 'failed' ? [t.topicId] : [])),
  };
  result.stored = await storeLlmNuggets(
    db,
    collection,
    input.bank,
    created,
    provenance,
    input.createdBy,
  );
  return result;
}

/**
 * Making the bank as a batch step: the prompts it still needs, collected by a dry run (see
 * `dryRunStep`). Its importance scoring asks about the nuggets created, and each creation
 * prompt after a topic's first passages shows the nuggets so far: those prompts are
 * collected only once the answers before them are stored (a batch round each).
 */
export function nuggetBankBatchStep(
  db: Queryable,
  deps: JudgeDeps,
  input: CreateNuggetBankInput,
): BatchStep {
  return dryRunStep((d, collect) =>
    createNuggetBankWithLlm(db, { ...deps, ...d }, { ...input, dryRun: true, collect }),
  );
}
