import * as store from '@assay/db';
import { withTransaction, type CollectionSummary, type Queryable } from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** Every collection by name, with its document and topic counts. */
export function listCollections(db: Queryable): Promise<CollectionSummary[]> {
  return store.listCollections(db);
}

/** A page of {@link listCollections} (by name, then id). */
export async function listCollectionsPage(
  db: Queryable,
  options: PageOptions = {},
): Promise<Page<CollectionSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['text', 'int']);
  const rows = await store.listCollections(db, page);
  return pageOf(
    rows,
    page,
    (c) => [c.name, c.id],
    (c) => c,
  );
}

/** What a collection delete removed besides documents and topics. */
export interface DeletedCollection {
  id: number;
  name: string;
  runs: number;
  labelSets: number;
  reports: number;
  /** Slugs of the published leaderboards that went with their reports. */
  leaderboards: string[];
}

/**
 * Deletes a collection with its documents, topics, runs, label sets, jobs, campaigns and
 * reports, in one transaction, and says what went. A collection whose reports are
 * published as leaderboards is kept (conflict naming them) unless `force` is set, when
 * the leaderboards go too. not_found if absent.
 */
export async function deleteCollection(
  db: Queryable,
  ref: CollectionRef,
  options: { force?: boolean } = {},
): Promise<DeletedCollection> {
  return withTransaction(db, async (trx) => {
    const collection = await resolveCollection(trx, ref);
    const contents = await store.lockCollectionContents(trx, collection.id);
    if (!contents) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
    if (contents.leaderboards.length > 0 && !options.force)
      throw new PlatformError(
        'conflict',
        `collection "${collection.name}" has published leaderboards (${contents.leaderboards.join(', ')}); unpublish them first, or delete with force to remove them too`,
        { leaderboards: contents.leaderboards },
      );
    await store.deleteCollection(trx, collection.id);
    return { id: collection.id, name: collection.name, ...contents };
  });
}

/** A collection (by the naming rule) with its document and topic counts; not_found if absent. */
export async function getCollectionSummary(
  db: Queryable,
  ref: CollectionRef,
): Promise<CollectionSummary> {
  const collection = await resolveCollection(db, ref);
  const summary = await store.getCollectionSummary(db, collection.id);
  if (!summary) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
  return summary;
}
