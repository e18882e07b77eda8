import {
  createCollection,
  createLabelSet,
  createRun,
  deleteLabelSet,
  deleteRun,
  findLabelSetByName,
  findRunByName,
  getCollectionByName,
  insertDocuments,
  insertLabels,
  insertTopics,
  withTransaction,
  type JsonObject,
  type Queryable,
  type TopicContext,
  type TopicInput,
} from '@assay/db';
import {
  parseCollection,
  parseQrels,
  parseRun,
  parseTopics,
  type CollectionFormat,
  type Topic,
} from '@assay/trec';
import { PlatformError, parsing } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** A new collection from a document file. */
export interface ImportCollectionInput {
  name: string;
  description?: string;
  format: CollectionFormat;
  text: string;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
}

/**
 * Creates a collection and its documents. The whole file is parsed before anything is
 * written, then everything is written in one transaction: a bad line leaves nothing.
 */
export async function importCollection(db: Queryable, input: ImportCollectionInput) {
  const docs = parsing(() => parseCollection(input.text, input.file, input.format));
  if (await getCollectionByName(db, input.name))
    throw new PlatformError('conflict', `collection "${input.name}" already exists`);
  return withTransaction(db, async (trx) => {
    const collection = await createCollection(trx, {
      name: input.name,
      description: input.description ?? null,
    });
    const documents = await insertDocuments(
      trx,
      collection.id,
      docs.map((d) => ({
        docId: d.id,
        title: d.title ?? null,
        text: d.text,
        metadata: d.metadata as JsonObject,
      })),
    );
    return { collectionId: collection.id, name: collection.name, documents };
  });
}

/** Topics for a collection from a TSV, JSONL or TREC topic file. */
export interface ImportTopicsInput {
  collection: CollectionRef;
  text: string;
  file: string;
  format?: 'tsv' | 'jsonl' | 'trec';
}

/** Adds topics (conversational context from JSONL keys context/previous_turns/user_background). */
export async function importTopics(db: Queryable, input: ImportTopicsInput) {
  const topics = parsing(() => parseTopics(input.text, input.file, input.format));
  const collection = await resolveCollection(db, input.collection);
  const rows = topics.map(toTopicInput);
  const topicsWritten = await withTransaction(db, (trx) => insertTopics(trx, collection.id, rows));
  return { collectionId: collection.id, topics: topicsWritten };
}

function toTopicInput(t: Topic): TopicInput {
  const fields = t.fields ?? {};
  const context: TopicContext = {};
  const raw = fields.context;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) Object.assign(context, raw);
  const turns = fields.previous_turns ?? fields.previousTurns;
  if (Array.isArray(turns)) context.previousTurns = turns as TopicContext['previousTurns'];
  const background = fields.user_background ?? fields.userBackground ?? fields.ptkb;
  if (Array.isArray(background)) context.userBackground = background.map(String);
  else if (typeof background === 'string') context.userBackground = [background];
  return {
    topicId: t.id,
    query: t.text,
    description: t.description ?? null,
    narrative: t.narrative ?? null,
    context: Object.keys(context).length ? context : null,
  };
}

/** Human judgments (TREC qrels) as a label set. */
export interface ImportQrelsInput {
  collection: CollectionRef;
  labelSet: string;
  text: string;
  file: string;
  replace?: boolean;
  scale?: { min: number; max: number };
}

/** Stores qrels as a `human_qrels` label set; `replace` swaps an existing set atomically. */
export async function importQrels(db: Queryable, input: ImportQrelsInput) {
  const qrels = parsing(() => parseQrels(input.text, input.file));
  const collection = await resolveCollection(db, input.collection);
  const labels: Array<{ topicId: string; docId: string; grade: number }> = [];
  let min = 0;
  let max = 0;
  for (const [topicId, docs] of qrels) {
    for (const [docId, grade] of docs) {
      labels.push({ topicId, docId, grade });
      if (grade < min) min = grade;
      if (grade > max) max = grade;
    }
  }
  const scale = input.scale ?? { min, max: Math.max(max, min + 1) };
  if (min < scale.min || max > scale.max) {
    throw new PlatformError(
      'invalid_input',
      `${input.file}: grades ${min}..${max} fall outside the scale ${scale.min}..${scale.max}`,
    );
  }
  return withTransaction(db, async (trx) => {
    const existing = await findLabelSetByName(trx, collection.id, input.labelSet);
    if (existing) {
      if (!input.replace) {
        throw new PlatformError(
          'conflict',
          `label set "${input.labelSet}" already exists in collection "${collection.name}"; use --replace to overwrite it`,
        );
      }
      await deleteLabelSet(trx, existing.id);
    }
    const set = await createLabelSet(trx, {
      collectionId: collection.id,
      name: input.labelSet,
      kind: 'human_qrels',
      scaleMin: scale.min,
      scaleMax: scale.max,
      config: { source: input.file },
    });
    const count = await insertLabels(trx, set.id, labels);
    return { labelSetId: set.id, name: set.name, labels: count, topics: qrels.size };
  });
}

/** A run file for a collection. */
export interface ImportRunInput {
  collection: CollectionRef;
  /** Run name (default: the run's tag). */
  name?: string;
  text: string;
  file: string;
  replace?: boolean;
}

/** Stores a TREC run in one transaction; an existing name needs `replace`. */
export async function importRun(db: Queryable, input: ImportRunInput) {
  const run = parsing(() => parseRun(input.text, input.file));
  const collection = await resolveCollection(db, input.collection);
  const name = input.name ?? run.name;
  const entries = [...run.topics].flatMap(([topicId, list]) =>
    list.map((e) => ({ topicId, docId: e.docno, rank: e.rank, score: e.score })),
  );
  return withTransaction(db, async (trx) => {
    const existing = await findRunByName(trx, collection.id, name);
    if (existing) {
      if (!input.replace) {
        throw new PlatformError(
          'conflict',
          `run "${name}" already exists in collection "${collection.name}"; use --replace to overwrite it`,
        );
      }
      await deleteRun(trx, existing.id);
    }
    const created = await createRun(trx, {
      collectionId: collection.id,
      name,
      tag: run.name,
      entries,
    });
    return {
      runId: created.id,
      name: created.name,
      entries: created.entryCount,
      topics: created.topicCount,
    };
  });
}
