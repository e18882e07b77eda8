// Per-topic rubrics as stored resources: a rubric file (`{"qid","rubrics":[{"criterion",
// "weight","axis"}],…}`) stored under a name in a collection, with every unknown field kept.
import { createHash } from 'node:crypto';
import {
  createRubricSet,
  findRubricSet,
  getRubricSet,
  listRubricCriteria,
  listRubricSets,
  type JsonObject,
  type Queryable,
  type RubricSet,
  type StoredCriterion,
} from '@assay/db';
import { PlatformError, writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import type { Actor } from '../reports/reports.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { collectionForImport } from './nugget-banks.js';
import { parseRubrics } from './rag-files.js';

export type { RubricSet, StoredCriterion };

/** A rubric file to store. */
export interface ImportRubricSetInput {
  collection: CollectionRef;
  name: string;
  text: string;
  file?: string;
  createCollection?: boolean;
  createdBy?: Actor;
}

function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A collection's rubric set by name or id; not_found otherwise. */
export async function resolveRubricSet(
  db: Queryable,
  collectionId: number,
  ref: string | number,
): Promise<RubricSet> {
  const set =
    typeof ref === 'number' || /^[0-9]+$/.test(ref)
      ? await getRubricSet(db, Number(ref))
      : await findRubricSet(db, collectionId, ref);
  if (!set || set.collectionId !== collectionId)
    throw new PlatformError('not_found', `no rubric set ${JSON.stringify(String(ref))}`);
  return set;
}

/**
 * Stores a rubric file as a rubric set of the collection, or finds the one stored from the
 * same text under that name (`created` says which). The file is read whole first: a bad
 * line fails with `file:line`; a set of that name holding other rubrics is a conflict.
 */
export async function importRubricSet(
  db: Queryable,
  input: ImportRubricSetInput,
): Promise<RubricSet & { created: boolean }> {
  const file = input.file ?? 'rubrics.jsonl';
  const topics = parseRubrics(input.text, file);
  const name = checkNewName(input.name, 'rubric set name');
  const collection = await collectionForImport(
    db,
    input.collection,
    input.createCollection ?? false,
  );
  const hash = contentHash(input.text);
  const existing = await findRubricSet(db, collection.id, name);
  if (existing) {
    if (existing.provenance.contentHash !== hash)
      throw new PlatformError(
        'conflict',
        `rubric set ${JSON.stringify(name)} holds other rubrics than ${file}; give another name`,
      );
    return { ...existing, created: false };
  }
  const id = await writing(
    () =>
      createRubricSet(db, {
        collectionId: collection.id,
        name,
        provenance: {
          file,
          contentHash: hash,
          ...(input.createdBy ? { importedBy: input.createdBy.name } : {}),
        },
        topics: Object.fromEntries(topics.map((t) => [t.qid, t.extra])) as JsonObject,
        createdBy: input.createdBy?.id ?? null,
        criteria: topics.flatMap((t) =>
          t.criteria.map((c, position) => ({
            topicId: t.qid,
            position,
            criterion: c.criterion,
            weight: c.weight,
            axis: c.axis ?? null,
            extra: c.extra,
          })),
        ),
      }),
    `a rubric set named ${JSON.stringify(name)} exists`,
    file,
  );
  return { ...(await getRubricSet(db, id))!, created: true };
}

/** The rubric sets of a collection. */
export async function listCollectionRubricSets(
  db: Queryable,
  collection: CollectionRef,
): Promise<RubricSet[]> {
  return listRubricSets(db, (await resolveCollection(db, collection)).id);
}

/** A rubric set with its criteria (optionally one topic's). */
export async function rubricSetDetail(
  db: Queryable,
  collection: CollectionRef,
  ref: string | number,
  options: { topic?: string } = {},
): Promise<RubricSet & { criteriaList: StoredCriterion[] }> {
  const c = await resolveCollection(db, collection);
  const set = await resolveRubricSet(db, c.id, ref);
  return {
    ...set,
    criteriaList: await listRubricCriteria(
      db,
      set.id,
      options.topic === undefined ? {} : { topicId: options.topic },
    ),
  };
}
