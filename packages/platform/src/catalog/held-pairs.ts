// Pools, judge jobs and campaigns take only the (topic, document) pairs a collection holds:
// a pair whose topic or document is not stored has no query or no passage to judge. What
// they leave out is counted and named, in one wording for the CLI, the API and the pages.
import { getCollectionSummary, heldDocIds, heldTopicIds, type Queryable } from '@assay/db';
import { PlatformError } from '../core/errors.js';

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

/**
 * Which of the pairs the collection holds (topic and document stored). Unless `strict`, a
 * collection that stores no topics (or no documents) at all holds every one: it is kept for
 * evaluation, and its queries or texts live elsewhere.
 */
async function heldSets(
  db: Queryable,
  collectionId: number,
  pairs: readonly Pair[],
  strict: boolean,
): Promise<{ topics: Set<string>; docs: Set<string> }> {
  const stored = strict ? undefined : await getCollectionSummary(db, collectionId);
  const topics =
    stored?.topicCount === 0
      ? new Set(pairs.map((p) => p.topicId))
      : await heldTopicIds(
          db,
          collectionId,
          pairs.map((p) => p.topicId),
        );
  const wanted = pairs.filter((p) => topics.has(p.topicId)).map((p) => p.docId);
  const docs =
    stored?.documentCount === 0 ? new Set(wanted) : await heldDocIds(db, collectionId, wanted);
  return { topics, docs };
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

/** The pairs the collection holds, in order, and the distinct topics and documents it does not. */
async function partition<T extends Pair>(
  db: Queryable,
  collectionId: number,
  pairs: readonly T[],
  strict: boolean,
): Promise<{ kept: T[]; missingTopics: string[]; missingDocs: string[] }> {
  const held = await heldSets(db, collectionId, pairs, strict);
  const kept: T[] = [];
  const missingTopics = new Set<string>();
  const missingDocs = new Set<string>();
  for (const p of pairs) {
    if (!held.topics.has(p.topicId)) missingTopics.add(p.topicId);
    else if (!held.docs.has(p.docId)) missingDocs.add(p.docId);
    else kept.push(p);
  }
  return {
    kept,
    missingTopics: [...missingTopics],
    missingDocs: [...missingDocs],
  };
}

/**
 * The pairs the collection holds, in their order, and what was left out (`source` says
 * whose topics they are in the message: "of the runs", "asked for"). `strict` (what people
 * label needs a query and a passage): a collection without documents holds no pair;
 * otherwise it holds every docno (see heldSets).
 */
export async function keepHeldPairs<T extends Pair>(
  db: Queryable,
  collectionId: number,
  pairs: readonly T[],
  source: string,
  strict: boolean,
): Promise<{ kept: T[]; leftOut: LeftOutPairs; missingTopics: ReadonlySet<string> }> {
  const { kept, missingTopics, missingDocs } = await partition(db, collectionId, pairs, strict);
  const leftOut = pairs.length - kept.length;
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
  const { kept, missingTopics, missingDocs } = await partition(db, collection.id, pairs, true);
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
