import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createCollection,
  createLabelSet,
  getCollectionByName,
  insertDocuments,
  insertLabels,
  insertTopics,
  withTransaction,
  type JsonObject,
  type Queryable,
} from '@assay/db';
import { parseCollection, parseCranfieldQueries, TrecFormatError } from '@assay/trec';
import { z } from 'zod';
import { PlatformError, parsing, writing } from '../core/errors.js';

/** A dataset shipped in `datasets/<name>/manifest.json`. */
export interface DatasetManifest {
  /** The dataset's name, also the name of the collection it loads into. */
  name: string;
  description: string;
  /** File names inside `datasets/<name>/`. */
  files: { documents: string; topics: string; qrels: string };
  /** Name of the label set the judgments are stored as. */
  labelSet: string;
  /** Grade scale of that label set. */
  scale: { min: number; max: number };
  /** How the topic ids are derived (prose, for people). */
  topicIds?: string;
  /** Source relevance code → assay grade. */
  gradeMapping: Record<string, number>;
}

/** What loadDataset stored. */
export interface LoadDatasetResult {
  collectionId: number;
  name: string;
  documents: number;
  topics: number;
  labelSet: string;
  labels: number;
}

/** The `datasets/` folder of this checkout (found by walking up from this module). */
export function defaultDatasetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'datasets');
    if (existsSync(join(candidate, 'cranfield', 'manifest.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new PlatformError(
        'not_found',
        'cannot find the datasets/ folder of this assay checkout',
      );
    dir = parent;
  }
}

/** The shipped datasets, by name. */
export function listDatasets(datasetsDir = defaultDatasetsDir()): DatasetManifest[] {
  return readdirSync(datasetsDir)
    .filter((name) => existsSync(join(datasetsDir, name, 'manifest.json')))
    .sort()
    .map((name) => readManifest(join(datasetsDir, name, 'manifest.json')));
}

const Manifest = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  description: z.string(),
  files: z.object({ documents: z.string(), topics: z.string(), qrels: z.string() }),
  labelSet: z.string().min(1),
  scale: z.object({ min: z.int(), max: z.int() }),
  topicIds: z.string().optional(),
  gradeMapping: z.record(z.string(), z.int()),
});

/** A manifest file, checked; a malformed one names the file and the field. */
function readManifest(path: string): DatasetManifest {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PlatformError('invalid_input', `${path}: ${(error as Error).message}`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlatformError('invalid_input', `${path}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

// cran.qry is read by the one topics reader of @assay/trec; the loader keeps each query's
// `.I` number beside its position.
export { parseCranfieldQueries, type CranfieldQuery } from '@assay/trec';

/** A Cranfield judgment with its code already mapped to an assay grade. */
export interface CranfieldLabel {
  topicId: string;
  docId: string;
  grade: number;
}

/**
 * Cranfield judgments (`query document code`, whitespace-separated, trailing space
 * allowed), each code mapped to a grade through `mapping`. With `known`, a query or
 * document that is not among the loaded ones is an error naming the line.
 */
export function parseCranfieldQrels(
  text: string,
  file: string,
  mapping: Record<string, number>,
  known: { topicIds?: ReadonlySet<string>; docIds?: ReadonlySet<string> } = {},
): CranfieldLabel[] {
  const labels: CranfieldLabel[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const fail = (reason: string): never => {
      throw new TrecFormatError(file, i + 1, reason);
    };
    const fields = line.split(/\s+/);
    if (fields.length !== 3)
      fail(`expected 3 fields (query document code), found ${fields.length}`);
    const [topicId, docId, code] = fields as [string, string, string];
    if (!Object.hasOwn(mapping, code)) fail(`unknown relevance code ${JSON.stringify(code)}`);
    if (known.topicIds && !known.topicIds.has(topicId))
      fail(`query ${topicId} is not a query position of the topic file`);
    if (known.docIds && !known.docIds.has(docId))
      fail(`document ${docId} is not in the collection`);
    const key = `${topicId}\t${docId}`;
    if (seen.has(key)) fail(`duplicate judgment for query ${topicId} document ${docId}`);
    seen.add(key);
    labels.push({ topicId, docId, grade: mapping[code]! });
  });
  return labels;
}

/**
 * Loads a shipped dataset (collection, topics and judgments) in one transaction; conflict
 * when a collection of that name exists.
 */
export async function loadDataset(
  db: Queryable,
  name: string,
  options: { datasetsDir?: string } = {},
): Promise<LoadDatasetResult> {
  const dir = options.datasetsDir ?? defaultDatasetsDir();
  const manifest = listDatasets(dir).find((m) => m.name === name);
  if (!manifest)
    throw new PlatformError(
      'not_found',
      `no dataset "${name}" (available: ${listDatasets(dir)
        .map((m) => m.name)
        .join(', ')})`,
    );
  if (manifest.name !== 'cranfield')
    throw new PlatformError('invalid_input', `dataset "${name}" has no loader`);
  const read = (f: string) =>
    [readFileSync(join(dir, name, f), 'utf8'), join(dir, name, f)] as const;
  const [docsText, docsFile] = read(manifest.files.documents);
  const [topicsText, topicsFile] = read(manifest.files.topics);
  const [qrelsText, qrelsFile] = read(manifest.files.qrels);
  const docs = parsing(() => parseCollection(docsText, docsFile, 'cranfield'));
  const queries = parsing(() => parseCranfieldQueries(topicsText, topicsFile));
  const labels = parsing(() =>
    parseCranfieldQrels(qrelsText, qrelsFile, manifest.gradeMapping, {
      topicIds: new Set(queries.map((q) => q.position)),
      docIds: new Set(docs.map((d) => d.id)),
    }),
  );
  const taken = `dataset "${name}" is already loaded (collection "${name}" exists)`;
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        if (await getCollectionByName(trx, name)) throw new PlatformError('conflict', taken);
        const collection = await createCollection(trx, { name, description: manifest.description });
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
        const topics = await insertTopics(
          trx,
          collection.id,
          queries.map((q) => ({
            topicId: q.position,
            query: q.text,
            description: `cran.qry .I ${q.original}`,
          })),
        );
        const set = await createLabelSet(trx, {
          collectionId: collection.id,
          name: manifest.labelSet,
          kind: 'human_qrels',
          scaleMin: manifest.scale.min,
          scaleMax: manifest.scale.max,
          config: {
            source: `datasets/${name}/${manifest.files.qrels}`,
            gradeMapping: manifest.gradeMapping,
          },
        });
        const judgments = await insertLabels(trx, set.id, labels);
        return {
          collectionId: collection.id,
          name: collection.name,
          documents,
          topics,
          labelSet: set.name,
          labels: judgments,
        };
      }),
    taken,
  );
}
