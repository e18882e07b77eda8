import { listRunTrace, type JsonObject, type Queryable } from '@assay/db';
import { PlatformError } from './errors.js';
import { resolveCollection, resolveRun, type CollectionRef, type ItemRef } from './resolve.js';

/** Page sizes of a run's trace: the default and the largest a request may ask for. */
export const RUN_TRACE_PAGE = { default: 1000, max: 10_000 } as const;

/** A page of a run's trace and the cursor of the next page (null on the last one). */
export interface RunTracePage {
  entries: JsonObject[];
  next: string | null;
}

/**
 * The trace stored with a run made by a method with models (every generated text, in the
 * order produced), a page at a time, optionally one topic's. A run made otherwise has an
 * empty trace. `after` is the `next` cursor of the previous page.
 */
export async function runTrace(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
  options: { topic?: string; limit?: number; after?: string } = {},
): Promise<RunTracePage> {
  const limit = options.limit ?? RUN_TRACE_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > RUN_TRACE_PAGE.max)
    throw new PlatformError(
      'invalid_input',
      `limit must be an integer from 1 to ${RUN_TRACE_PAGE.max}, not ${limit}`,
    );
  let after: number | undefined;
  if (options.after !== undefined) {
    if (!/^\d{1,9}$/.test(options.after))
      throw new PlatformError(
        'invalid_input',
        'after must be the `next` cursor of a previous page of this trace',
      );
    after = Number(options.after);
  }
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const rows = await listRunTrace(db, run.id, {
    limit,
    ...(after === undefined ? {} : { after }),
    ...(options.topic === undefined ? {} : { topicId: options.topic }),
  });
  const last = rows.at(-1);
  return {
    entries: rows.map((r) => r.entry),
    next: rows.length === limit && last ? String(last.position) : null,
  };
}
