import {
  getCollection,
  findLabelSetByName,
  findRunByName,
  getLabelSet,
  getRun,
  listLabelSets,
  listRuns,
  type Collection,
  type LabelSetSummary,
  type Queryable,
  type RunSummary,
} from '@assay/db';
import { resolveCollection } from '@assay/platform';
import { ApiError } from './errors.js';

/** A path segment naming a collection, run or label set: all digits is an id, else a name. */
export function pathRef(value: string): string | number {
  return /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
}

/**
 * The collection a path names; not_found otherwise. A numeric segment is tried as an id
 * first and then as a name, so a collection called "2024" stays reachable.
 */
export async function collectionFromPath(db: Queryable, value: string): Promise<Collection> {
  const ref = pathRef(value);
  const byId = typeof ref === 'number' ? await getCollection(db, ref) : undefined;
  return byId ?? resolveCollection(db, value);
}

/**
 * A run of a collection by id or name, with its counts. A numeric segment is tried as an
 * id first and then as a name, so a run called "42" stays reachable.
 */
export async function resolveRun(
  db: Queryable,
  collection: Collection,
  value: string,
): Promise<RunSummary> {
  const ref = pathRef(value);
  let run = typeof ref === 'number' ? await getRun(db, ref) : undefined;
  if (!run || run.collectionId !== collection.id)
    run = await findRunByName(db, collection.id, value);
  if (!run)
    throw new ApiError(
      'not_found',
      `no run ${JSON.stringify(value)} in collection "${collection.name}"`,
    );
  const summary = (await listRuns(db, collection.id)).find((r) => r.id === run.id);
  if (!summary) throw new ApiError('not_found', `no run ${JSON.stringify(value)}`);
  return summary;
}

/** A label set of a collection by id or name, with its counts (ids tried first, as runs). */
export async function resolveLabelSet(
  db: Queryable,
  collection: Collection,
  value: string,
): Promise<LabelSetSummary> {
  const ref = pathRef(value);
  let set = typeof ref === 'number' ? await getLabelSet(db, ref) : undefined;
  if (!set || set.collectionId !== collection.id)
    set = await findLabelSetByName(db, collection.id, value);
  if (!set)
    throw new ApiError(
      'not_found',
      `no label set ${JSON.stringify(value)} in collection "${collection.name}"`,
    );
  const summary = (await listLabelSets(db, collection.id)).find((s) => s.id === set.id);
  if (!summary) throw new ApiError('not_found', `no label set ${JSON.stringify(value)}`);
  return summary;
}
