import { listRunTrace, type JsonObject, type Queryable } from '@assay/db';
import { LARGE_PAGE, pageOf, seekPage, type Page, type PageOptions } from '../core/paging.js';
import { resolveCollection, resolveRun, type CollectionRef, type ItemRef } from '../core/resolve.js';

/** Page sizes of a run's trace: the default and the largest a request may ask for. */
export const RUN_TRACE_PAGE = LARGE_PAGE;

/**
 * The trace stored with a run made by a method with models (every generated text, in the
 * order produced), a page at a time, optionally one topic's. A run made otherwise has an
 * empty trace. `after` is the `next` cursor of the previous page.
 */
export async function runTrace(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
  options: PageOptions & { topic?: string } = {},
): Promise<Page<JsonObject>> {
  const page = seekPage(options, RUN_TRACE_PAGE, ['int']);
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const rows = await listRunTrace(db, run.id, {
    limit: page.limit + 1,
    ...(page.after === undefined ? {} : { after: page.after[0] as number }),
    ...(options.topic === undefined ? {} : { topicId: options.topic }),
  });
  return pageOf(
    rows,
    page,
    (r) => [r.position],
    (r) => r.entry,
  );
}
