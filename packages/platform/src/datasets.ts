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
import { parseCollection, TrecFormatError } from '@assay/trec';
import { PlatformError, parsing } from './errors.js';

/** A dataset shipped in `datasets/<name>/manifest.json`. */
export interface DatasetManifest {
  name: string;
  description: string;
  files: { documents: string; topics: string; qrels: string };
  labelSet: string;
  scale: { min: number; max: number };
  gradeMapping: Record<string, number>;
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
    .map(
      (name) =>
        JSON.parse(
          readFileSync(join(datasetsDir, name, 'manifest.json'), 'utf8'),
        ) as DatasetManifest,
    );
}

/** Queries of the Cranfield `cran.qry` layout, numbered by position (as cranqrel numbers them). */
export function parseCranfieldQueries(
  text: string,
  file: string,
): Array<{ position: string; original: string; text: string }> {
  const queries: Array<{ position: string; original: string; text: string }> = [];
  let current: { original: string; parts: string[] } | undefined;
  const finish = () => {
    if (current)
      queries.push({
        position: String(queries.length + 1),
        original: current.original,
        text: current.parts.join(' ').replace(/\s+/g, ' ').trim(),
      });
  };
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const id = /^\.I\s+(\S+)/.exec(line);
    if (id) {
      finish();
      current = { original: id[1]!, parts: [] };
    } else if (/^\.W\s*$/.test(line)) {
      if (!current) throw new TrecFormatError(file, i + 1, '.W before the first .I');
    } else if (line.trim() !== '') {
      if (!current) throw new TrecFormatError(file, i + 1, 'text before the first .I');
      current.parts.push(line);
    }
  });
  finish();
  return queries;
}

/** Cranfield judgments (`query document code`), grades mapped through the manifest. */
export function parseCranfieldQrels(text: string, file: string, mapping: Record<string, number>) {
  const labels: Array<{ topicId: string; docId: string; grade: number }> = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const fields = line.split(/\s+/);
    if (fields.length !== 3)
      throw new TrecFormatError(
        file,
        i + 1,
        `expected 3 fields (query document code), found ${fields.length}`,
      );
    const [topicId, docId, code] = fields as [string, string, string];
    const grade = mapping[code];
    if (grade === undefined)
      throw new TrecFormatError(file, i + 1, `unknown relevance code ${JSON.stringify(code)}`);
    const key = `${topicId}\t${docId}`;
    if (seen.has(key))
      throw new TrecFormatError(
        file,
        i + 1,
        `duplicate judgment for query ${topicId} document ${docId}`,
      );
    seen.add(key);
    labels.push({ topicId, docId, grade });
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
) {
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
  const labels = parsing(() => parseCranfieldQrels(qrelsText, qrelsFile, manifest.gradeMapping));
  if (await getCollectionByName(db, name))
    throw new PlatformError('conflict', `dataset "${name}" is already loaded`);
  return withTransaction(db, async (trx) => {
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
    return { collectionId: collection.id, documents, topics, labels: judgments };
  });
}
