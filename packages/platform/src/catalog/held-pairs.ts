// Pools, judge jobs and campaigns take only the (topic, document) pairs a collection holds:
// a pair whose topic or document is not stored has no query or no passage to judge. What
// they leave out is counted and named, in one wording for the CLI, the API and the pages.
import { getCollectionSummary, heldDocIds, heldTopicIds, type Queryable } from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { inSlices } from '../core/work-slices.js';

/** How many names of topics or documents a message or a response lists. */
const NAMED = 10;

/** What was left out because the collection does not hold it. */
export interface LeftOutPairs {
  /** Topics not in the collection: how many, and the first few. */
  topics: { count: number; first: string[] };
  /** Documents not in the collection (of the pairs whose topic it holds): how many, the first few. */
  documents: { count: number; first: string[] };
  /** Pairs left out (for either reason). */
  pairs: number;
  /** The same in words (null when nothing was left out). */
  message: string | null;
}

/** Nothing left out. */
export const NOTHING_LEFT_OUT: LeftOutPairs = {
  topics: { count: 0, first: [] },
  documents: { count: 0, first: [] },
  pairs: 0,
  message: null,
};

/** A pair as pools and campaigns carry it. */
interface Pair {
  topicId: string;
  docId: string;
}

/** How to read the topic and the document of the items pairs are taken from (pool items, pairs). */
export interface PairKeys<T> {
  topic(item: T): string;
  doc(item: T): string;
}

const PAIR_KEYS: PairKeys<Pair> = { topic: (p) => p.topicId, doc: (p) => p.docId };

/** Items looked at per step: a million-item pool is checked a slice at a time. */
const ITEMS_PER_STEP = 4096;

/**
 * Which of the items' pairs the collection holds (topic and document stored). Unless
 * `strict`, a collection that stores no topics (or no documents) at all holds every one:
 * it is kept for evaluation, and its queries or texts live elsewhere.
 */
async function heldSets<T>(
  db: Queryable,
  collectionId: number,
  items: readonly T[],
  keys: PairKeys<T>,
  strict: boolean,
): Promise<{ topics: Set<string>; docs: Set<string> }> {
  const stored = strict ? undefined : await getCollectionSummary(db, collectionId);
  const named = await inSlices(distinctSteps(items, keys.topic));
  const topics = stored?.topicCount === 0 ? named : await heldTopicIds(db, collectionId, named);
  const wanted = await inSlices(
    distinctSteps(items, keys.doc, (item) => topics.has(keys.topic(item))),
  );
  const docs = stored?.documentCount === 0 ? wanted : await heldDocIds(db, collectionId, wanted);
  return { topics, docs };
}

/** The distinct `key`s of the items that `keep` (default: all), a step per few thousand items. */
function* distinctSteps<T>(
  items: readonly T[],
  key: (item: T) => string,
  keep?: (item: T) => boolean,
): Generator<void, Set<string>, void> {
  const out = new Set<string>();
  for (let from = 0; from < items.length; from += ITEMS_PER_STEP) {
    addKeys(items, key, keep, out, from, Math.min(items.length, from + ITEMS_PER_STEP));
    yield;
  }
  return out;
}

// Hot loops stay out of generator functions, which V8 optimises less well.
function addKeys<T>(
  items: readonly T[],
  key: (item: T) => string,
  keep: ((item: T) => boolean) | undefined,
  out: Set<string>,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const item = items[i]!;
    if (keep === undefined || keep(item)) out.add(key(item));
  }
}

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

const named = (names: readonly string[], total: number) =>
  `${names.join(', ')}${total > names.length ? ` and ${(total - names.length).toLocaleString('en-US')} more` : ''}`;

/** "3 topics of the runs are not in the collection (a, b, c)", and the same of documents. */
function unknownParts(
  topics: readonly string[],
  docs: readonly string[],
  source: string,
): string[] {
  const parts: string[] = [];
  if (topics.length > 0)
    parts.push(
      `${count(topics.length, `topic ${source} is`, `topics ${source} are`)} not in the collection (${named(topics.slice(0, NAMED), topics.length)})`,
    );
  if (docs.length > 0)
    parts.push(
      `${count(docs.length, `document ${source} is`, `documents ${source} are`)} not in the collection (${named(docs.slice(0, NAMED), docs.length)})`,
    );
  return parts;
}

/** The items whose pair the collection holds, in order, and the distinct topics and documents it does not. */
async function partition<T>(
  db: Queryable,
  collectionId: number,
  items: readonly T[],
  keys: PairKeys<T>,
  strict: boolean,
): Promise<{ kept: T[]; missingTopics: string[]; missingDocs: string[] }> {
  const held = await heldSets(db, collectionId, items, keys, strict);
  const split: Split<T> = { kept: [], missingTopics: new Set(), missingDocs: new Set() };
  await inSlices(partitionSteps(items, keys, held, split));
  return {
    kept: split.kept,
    missingTopics: [...split.missingTopics],
    missingDocs: [...split.missingDocs],
  };
}

/** The items kept and the topics and documents missing, as {@link partition} gathers them. */
interface Split<T> {
  kept: T[];
  missingTopics: Set<string>;
  missingDocs: Set<string>;
}

/** {@link partition} over the items a step per few thousand items. */
function* partitionSteps<T>(
  items: readonly T[],
  keys: PairKeys<T>,
  held: { topics: Set<string>; docs: Set<string> },
  split: Split<T>,
): Generator<void, void, void> {
  for (let from = 0; from < items.length; from += ITEMS_PER_STEP) {
    partitionRange(items, keys, held, split, from, Math.min(items.length, from + ITEMS_PER_STEP));
    yield;
  }
}

function partitionRange<T>(
  items: readonly T[],
  keys: PairKeys<T>,
  held: { topics: Set<string>; docs: Set<string> },
  split: Split<T>,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const item = items[i]!;
    const topic = keys.topic(item);
    if (!held.topics.has(topic)) split.missingTopics.add(topic);
    else {
      const doc = keys.doc(item);
      if (!held.docs.has(doc)) split.missingDocs.add(doc);
      else split.kept.push(item);
    }
  }
}

/**
 * The items whose pair (topic and document, read by `keys`) the collection holds, in their
 * order, and what was left out (`source` says whose topics they are in the message: "of
 * the runs", "asked for"). `strict` (what people label needs a query and a passage): a
 * collection without documents holds no pair; otherwise it holds every docno (see
 * heldSets). Looked at a slice at a time, so a server keeps answering others meanwhile.
 */
export async function keepHeldPairs<T>(
  db: Queryable,
  collectionId: number,
  items: readonly T[],
  keys: PairKeys<T>,
  source: string,
  strict: boolean,
): Promise<{ kept: T[]; leftOut: LeftOutPairs; missingTopics: ReadonlySet<string> }> {
  const { kept, missingTopics, missingDocs } = await partition(
    db,
    collectionId,
    items,
    keys,
    strict,
  );
  const leftOut = items.length - kept.length;
  const parts = unknownParts(missingTopics, missingDocs, source);
  if (leftOut > 0) parts.push(`${count(leftOut, 'pair', 'pairs')} left out`);
  return {
    kept,
    missingTopics: new Set(missingTopics),
    leftOut: {
      topics: { count: missingTopics.length, first: missingTopics.slice(0, NAMED) },
      documents: { count: missingDocs.length, first: missingDocs.slice(0, NAMED) },
      pairs: leftOut,
      message: parts.length > 0 ? parts.join('; ') : null,
    },
  };
}

/**
 * invalid_input (422) naming the listed items' topics and documents the collection does
 * not hold (the first few, and how many).
 */
export async function requireHeldPairs(
  db: Queryable,
  collection: { id: number; name: string },
  pairs: readonly Pair[],
): Promise<void> {
  const { kept, missingTopics, missingDocs } = await partition(
    db,
    collection.id,
    pairs,
    PAIR_KEYS,
    true,
  );
  const unknown = pairs.length - kept.length;
  if (unknown === 0) return;
  throw new PlatformError(
    'invalid_input',
    `${count(unknown, 'listed item names', 'listed items name')} a topic or document that collection "${collection.name}" does not hold: ${unknownParts(missingTopics, missingDocs, 'listed').join('; ')}`,
    {
      items: unknown,
      unknownTopics: missingTopics.slice(0, NAMED),
      unknownTopicCount: missingTopics.length,
      unknownDocuments: missingDocs.slice(0, NAMED),
      unknownDocumentCount: missingDocs.length,
    },
  );
}
