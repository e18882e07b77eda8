import {
  createCollection,
  createLabelSet,
  deleteLabelSet,
  findLabelSetByName,
  getCollectionByName,
  getCollectionSummary,
  heldDocIds,
  getLabelSetSummary,
  insertDocuments,
  insertLabels,
  insertTopics,
  listTopics,
  lockName,
  withTransaction,
  type JsonObject,
  type LabelSetSummary,
  type Queryable,
  type TopicContext,
  type TopicInput,
} from '@assay/db';
import {
  MAX_NAME_CHARS,
  gradeScaleProblem,
  documentFormatOf,
  parseCollectionStream,
  parseConversationalTopics,
  parseConversationalTopicsStream,
  parseQrelsStream,
  topicFormatOf,
  type CollectionDocument,
  type CollectionFormat,
  type ConversationalTopic,
  type TopicFormat,
} from '@assay/trec';
import { PlatformError, parsingAsync, REPLACEABLE, writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import { collectionLockName, labelSetLockName } from '../core/name-locks.js';
import { writeInCollection } from './collection-writes.js';
import {
  isBlankText,
  refuseNulYielding,
  slicesYielding,
  wholeText,
  type FileText,
} from '../core/text-slices.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';

/** Runs: parsed while written (import-run.ts). */
export { importRun, type ImportRunInput, type ImportRunResult } from './import-run.js';

/** The document and topic formats an import accepts by name (the one rule of @assay/trec). */
export { DOCUMENT_FORMATS, TOPIC_FORMATS } from '@assay/trec';

/** A new collection from a document file. */
export interface ImportCollectionInput {
  /** Unique collection name. */
  name: string;
  description?: string;
  /**
   * `jsonl` (`{"id","title"?,"text"}`), `tsv` (`id<TAB>[title<TAB>]text`) or `cranfield`
   * (`cran.all.1400`); when absent, from the file's name, else its first line
   * (documentFormatOf of @assay/trec).
   */
  format?: CollectionFormat | undefined;
  /** The file's content, whole or in consecutive parts (as an upload was read). */
  text: FileText;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
}

/** What importCollection created. */
export interface ImportCollectionResult {
  collectionId: number;
  name: string;
  /** Documents stored. */
  documents: number;
}

/**
 * Creates a collection with its documents (an empty file: none, for evaluating stored runs
 * against stored qrels only). The whole file is parsed first (bad JSON, a
 * missing id or text, a duplicate id → invalid_input `file:line: reason`), then everything
 * is written in one transaction; conflict when the name is taken. A failure leaves nothing.
 */
export async function importCollection(
  db: Queryable,
  input: ImportCollectionInput,
): Promise<ImportCollectionResult> {
  const name = checkNewName(input.name, 'collection name');
  // An empty file makes an evaluation-only collection: runs and qrels, no documents.
  // Parsed in slices, so that a large file does not hold up other requests.
  const docs = isBlankText(input.text)
    ? []
    : await parsingAsync(async () => {
        await refuseNulYielding(input.text, input.file);
        const format = documentFormatOf(input.file, input.text, {
          given: input.format,
          option: 'format',
        });
        return parseCollectionStream(slicesYielding(input.text), input.file, format);
      });
  const taken = `collection "${name}" already exists`;
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        await lockName(trx, collectionLockName(name));
        if (await getCollectionByName(trx, name)) throw new PlatformError('conflict', taken);
        const collection = await createCollection(trx, {
          name,
          description:
            input.description === undefined ? null : refuseNulIn(input.description, 'description'),
        });
        const documents = await insertDocuments(trx, collection.id, documentRows(docs));
        return { collectionId: collection.id, name: collection.name, documents };
      }),
    taken,
    input.file,
  );
}

/** More documents for an existing collection. */
export interface ImportDocumentsInput {
  collection: CollectionRef;
  /** As {@link ImportCollectionInput.format}: given, else from the file's name or first line. */
  format?: CollectionFormat | undefined;
  text: FileText;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
}

/** What importDocuments added. */
export interface ImportDocumentsResult {
  collectionId: number;
  name: string;
  /** Documents added. */
  documents: number;
  /** Documents the collection holds now. */
  total: number;
}

/**
 * Adds documents to a collection that exists (one made without them, as `assay nuggets
 * import --create-collection` makes one, or one that grows): the whole file is parsed
 * first, then written in one transaction. conflict, naming them, when some docnos are
 * already in the collection; a failure leaves nothing. The collection's fingerprint is
 * computed again when next needed, so an index built before is not used for the new text.
 */
export async function importDocuments(
  db: Queryable,
  input: ImportDocumentsInput,
): Promise<ImportDocumentsResult> {
  const docs = await parsingAsync(async () => {
    await refuseNulYielding(input.text, input.file);
    const format = documentFormatOf(input.file, input.text, {
      given: input.format,
      option: 'format',
    });
    return parseCollectionStream(slicesYielding(input.text), input.file, format);
  });
  if (docs.length === 0)
    throw new PlatformError('invalid_input', `${input.file}: no documents to add`);
  const collection = await resolveCollection(db, input.collection);
  const taken = `documents of ${input.file} are already in collection "${collection.name}"`;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        const held = await heldDocIds(
          trx,
          collection.id,
          docs.map((d) => d.id),
        );
        if (held.size > 0) {
          const clash = docs.filter((d) => held.has(d.id)).map((d) => d.id);
          throw new PlatformError(
            'conflict',
            `${clash.length} document(s) of ${input.file} are already in collection "${collection.name}" (${clash
              .slice(0, 5)
              .map((id) => JSON.stringify(id))
              .join(', ')}${clash.length > 5 ? ', …' : ''})`,
            { docIds: clash.slice(0, 100) },
          );
        }
        const documents = await insertDocuments(trx, collection.id, documentRows(docs));
        const total = (await getCollectionSummary(trx, collection.id))?.documentCount ?? documents;
        return { collectionId: collection.id, name: collection.name, documents, total };
      }),
    taken,
    input.file,
  );
}

/** Parsed documents as rows, made one batch at a time while they are written. */
function* documentRows(docs: readonly CollectionDocument[]) {
  for (const d of docs)
    yield {
      docId: d.id,
      title: d.title ?? null,
      text: d.text,
      metadata: d.metadata as JsonObject,
    };
}

/** Topics for a collection from a TSV, JSONL, TREC or Cranfield cran.qry topic file. */
export interface ImportTopicsInput {
  collection: CollectionRef;
  /** The file's content, whole or in consecutive parts (as an upload was read). */
  text: FileText;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
  /**
   * Detected from the text when absent (`{` → jsonl, `.I` → cranfield, `<top>` → trec,
   * else tsv: topicFormatOf of @assay/trec).
   */
  format?: TopicFormat | undefined;
}

/** What importTopics stored. */
export interface ImportTopicsResult {
  collectionId: number;
  /** Topics stored. */
  topics: number;
}

/**
 * Adds topics to a collection in one transaction. JSONL topics may carry conversational
 * context: `context` (an object), `previous_turns` (strings or `{role, text}` objects) and
 * `user_background` (strings) become the topic's context. conflict when a topic id is
 * already in the collection; a failure leaves nothing.
 */
export async function importTopics(
  db: Queryable,
  input: ImportTopicsInput,
): Promise<ImportTopicsResult> {
  const rows = await parsingAsync(async () => {
    await refuseNulYielding(input.text, input.file);
    const format = topicFormatOf(input.file, input.text, { given: input.format, option: 'format' });
    // TSV and JSONL are parsed in slices; TREC SGML/XML and cran.qry files (small) in one piece.
    const topics =
      format === 'tsv' || format === 'jsonl'
        ? await parseConversationalTopicsStream(slicesYielding(input.text), input.file, format)
        : parseConversationalTopics(wholeText(input.text), input.file, format);
    return topics.map(toTopicInput);
  });
  const collection = await resolveCollection(db, input.collection);
  const taken = `topics of ${input.file} are already in collection "${collection.name}"`;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        const existing = new Set((await listTopics(trx, collection.id)).map((t) => t.topicId));
        const clash = rows.filter((r) => existing.has(r.topicId)).map((r) => r.topicId);
        if (clash.length > 0)
          throw new PlatformError(
            'conflict',
            `${clash.length} topic id(s) of ${input.file} already exist in collection "${collection.name}" (${clash
              .slice(0, 5)
              .map((id) => JSON.stringify(id))
              .join(', ')}${clash.length > 5 ? ', …' : ''})`,
            { topicIds: clash },
          );
        const written = await insertTopics(trx, collection.id, rows);
        return { collectionId: collection.id, topics: written };
      }),
    taken,
    input.file,
  );
}

/** A parsed topic as a row, its conversational context checked by @assay/trec. */
function toTopicInput({ topic: t, conversation }: ConversationalTopic): TopicInput {
  return {
    topicId: t.id,
    query: t.text,
    description: t.description ?? null,
    narrative: t.narrative ?? null,
    context: (conversation as TopicContext | undefined) ?? null,
  };
}

/** Human judgments (TREC qrels `qid iter docno grade`) to store as a label set. */
export interface ImportQrelsInput {
  collection: CollectionRef;
  /** Name of the label set (unique within the collection). */
  labelSet: string;
  /** The file's content, whole or in consecutive parts (as an upload was read). */
  text: FileText;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
  /** Replace an existing label set of this name (deleted and rewritten in one transaction). */
  replace?: boolean;
  /** Grade scale; default: the lowest and highest grade seen, widened to include 0. */
  scale?: { min: number; max: number };
  /**
   * Who made the labels: `human` (default; a `human_qrels` set) or `llm` (an `llm_judge`
   * set written elsewhere, e.g. by another judging tool), with its `judge` and `model`.
   */
  kind?: 'human' | 'llm';
  /** The judge (template or method) that wrote LLM labels; only with kind llm. */
  judge?: string;
  /** The model that wrote LLM labels; only with kind llm. */
  model?: string;
}

/** What importQrels stored. */
export interface ImportQrelsResult {
  labelSetId: number;
  name: string;
  /** Labels stored. */
  labels: number;
  /** Topics with at least one label. */
  topics: number;
  scale: { min: number; max: number };
  /** Whether an existing label set of this name was replaced. */
  replaced: boolean;
  /** The stored label set as it was when written (a later replace may remove it). */
  labelSet: LabelSetSummary;
}

/**
 * Stores qrels as a `human_qrels` label set in one transaction. conflict when the name is
 * taken and `replace` is not set (or when the existing set is not imported qrels);
 * with `replace` the old set is deleted and the new one written in the same transaction.
 */
export async function importQrels(
  db: Queryable,
  input: ImportQrelsInput,
): Promise<ImportQrelsResult> {
  const name = checkNewName(input.labelSet, 'label set name');
  const declared = input.scale;
  const scaleProblem = declared && gradeScaleProblem(declared.min, declared.max);
  if (scaleProblem) throw new PlatformError('invalid_input', scaleProblem, { field: 'scale' });
  // A declared scale is checked line by line, so the message names the first grade outside it.
  const qrels = await parsingAsync(async () => {
    await refuseNulYielding(input.text, input.file);
    return parseQrelsStream(slicesYielding(input.text), input.file, {
      storage: true,
      ...(declared ? { scale: declared } : {}),
    });
  });
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
  if (labels.length === 0)
    throw new PlatformError('invalid_input', `${input.file}: no judgments`, { file: input.file });
  // Without a declared scale: the grades seen, widened to include 0 (and at least two grades).
  const scale = declared ?? { min, max: Math.max(max, min + 1) };
  const llm = input.kind === 'llm';
  if (!llm && (input.judge !== undefined || input.model !== undefined))
    throw new PlatformError('invalid_input', 'a judge or model belongs to an LLM label set only');
  const metadata: Record<string, string> = { source: input.file };
  if (input.judge !== undefined) metadata.judge = requireName(input.judge, 'judge');
  if (input.model !== undefined) metadata.model = requireName(input.model, 'model');
  const collection = await resolveCollection(db, input.collection);
  const taken = `label set "${name}" already exists in collection "${collection.name}"`;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        // Concurrent replacements of one name take turns: the last one wins.
        await lockName(trx, labelSetLockName(collection.id, name));
        const existing = await findLabelSetByName(trx, collection.id, name);
        if (existing) {
          if (!input.replace) throw new PlatformError('conflict', taken, REPLACEABLE);
          if (!wasUploaded(existing))
            throw new PlatformError(
              'conflict',
              `label set "${name}" in collection "${collection.name}" holds ${existing.kind} labels, not imported qrels; choose another name`,
            );
          await deleteLabelSet(trx, existing.id);
        }
        const set = await createLabelSet(trx, {
          collectionId: collection.id,
          name,
          kind: llm ? 'llm_judge' : 'human_qrels',
          scaleMin: scale.min,
          scaleMax: scale.max,
          config: metadata,
        });
        const count = await insertLabels(trx, set.id, labels);
        return {
          labelSetId: set.id,
          name: set.name,
          labels: count,
          topics: qrels.size,
          scale: { min: scale.min, max: scale.max },
          replaced: existing !== undefined,
          labelSet: (await getLabelSetSummary(trx, set.id))!,
        };
      }),
    taken,
    input.file,
  );
}

/**
 * Whether a label set came from an uploaded qrels file (human, or LLM labels judged
 * elsewhere), so that an upload may replace it; judge jobs' and campaigns' sets may not.
 */
function wasUploaded(set: { kind: string; config: unknown }): boolean {
  if (set.kind === 'human_qrels') return true;
  const config = set.config as Record<string, unknown> | null;
  return set.kind === 'llm_judge' && typeof config?.source === 'string';
}

/** `value` unchanged when it holds no NUL character (which no text column stores). */
function refuseNulIn(value: string, what: string): string {
  if (value.includes('\0'))
    throw new PlatformError('invalid_input', `the ${what} contains a NUL character`);
  return value;
}

/** A trimmed, non-empty name of at most 200 characters without NUL; invalid_input otherwise. */
function requireName(value: string, what: string): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '') throw new PlatformError('invalid_input', `the ${what} must not be empty`);
  if (name.length > MAX_NAME_CHARS)
    throw new PlatformError(
      'invalid_input',
      `the ${what} is longer than ${MAX_NAME_CHARS} characters`,
    );
  if (name.includes('\0'))
    throw new PlatformError('invalid_input', `the ${what} contains a NUL character`);
  return name;
}
