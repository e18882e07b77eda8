import * as store from '@assay/db';
import type { Queryable, Topic } from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { LARGE_PAGE, pageOf, seekPage, type Page, type PageOptions } from '../core/paging.js';

/** A collection's topics in qid byte order (as trec_eval orders them). */
export async function listTopics(db: Queryable, ref: CollectionRef): Promise<Topic[]> {
  const collection = await resolveCollection(db, ref);
  return store.listTopics(db, collection.id);
}

/** A page of {@link listTopics} (qid byte order). */
export async function listTopicsPage(
  db: Queryable,
  ref: CollectionRef,
  options: PageOptions = {},
): Promise<Page<Topic>> {
  const page = seekPage(options, LARGE_PAGE, ['text']);
  const collection = await resolveCollection(db, ref);
  const rows = await store.listTopics(db, collection.id, page);
  return pageOf(
    rows,
    page,
    (t) => [t.topicId],
    (t) => t,
  );
}

/** One topic of a collection by qid; not_found if the collection or topic is absent. */
export async function getTopic(db: Queryable, ref: CollectionRef, topicId: string): Promise<Topic> {
  const collection = await resolveCollection(db, ref);
  const topic = await store.getTopic(db, collection.id, topicId);
  if (!topic)
    throw new PlatformError(
      'not_found',
      `no topic ${JSON.stringify(topicId)} in collection "${collection.name}"`,
    );
  return topic;
}
