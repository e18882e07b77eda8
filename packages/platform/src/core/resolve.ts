import {
  findCollection,
  findLabelSet,
  findRun,
  getLabelSet,
  type Collection,
  type IdOrName,
  type LabelSet,
  type Queryable,
  type Run,
} from '@assay/db';
import { PlatformError } from './errors.js';

/** A collection named by its name (string) or its id (number, or a string of digits). */
export type CollectionRef = string | number;

/** A run or label set named by its name, or by its id (number, or a string of digits). */
export type ItemRef = string | number;

/**
 * The one naming rule of assay, for collections, runs and label sets alike: a reference
 * that is numeric (a number, or a string of digits) means the row with that id when one
 * exists, and otherwise the row with that name; any other reference is a name. So `3`
 * finds the run with id 3, and a run called "2024" stays reachable as long as no run of
 * the collection has id 2024.
 */
export function refToIdOrName(ref: string | number): IdOrName {
  const name = String(ref);
  if (typeof ref === 'number') return Number.isSafeInteger(ref) ? { id: ref, name } : { name };
  return /^\d{1,15}$/.test(ref) ? { id: Number(ref), name } : { name };
}

/** A collection by id or name (see refToIdOrName), in one query; not_found otherwise. */
export async function resolveCollection(db: Queryable, ref: CollectionRef): Promise<Collection> {
  const found = await findCollection(db, refToIdOrName(ref));
  if (!found) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
  return found;
}

/** A run of the collection by id or name (see refToIdOrName), in one query; not_found otherwise. */
export async function resolveRun(
  db: Queryable,
  collection: Collection,
  ref: ItemRef,
): Promise<Run> {
  const found = await findRun(db, collection.id, refToIdOrName(ref));
  if (!found)
    throw new PlatformError(
      'not_found',
      `no run ${JSON.stringify(ref)} in collection "${collection.name}"`,
    );
  return found;
}

/** A label set of the collection by id or name (see refToIdOrName), in one query; not_found otherwise. */
export async function resolveLabelSet(
  db: Queryable,
  collection: Collection,
  ref: ItemRef,
): Promise<LabelSet> {
  const found = await findLabelSet(db, collection.id, refToIdOrName(ref));
  if (!found)
    throw new PlatformError(
      'not_found',
      `no label set ${JSON.stringify(ref)} in collection "${collection.name}"`,
    );
  return found;
}

/**
 * The error for a label set found with no labels: not_found when it was deleted meanwhile
 * (with its collection, or by itself, while it was being read), else invalid_input.
 */
export async function noLabelsError(db: Queryable, set: LabelSet): Promise<PlatformError> {
  if (!(await getLabelSet(db, set.id)))
    return new PlatformError('not_found', `no label set "${set.name}" (it was deleted)`);
  return new PlatformError('invalid_input', `label set "${set.name}" has no labels`);
}
