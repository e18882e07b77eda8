import * as store from '@assay/db';
import type { Queryable, Topic } from '@assay/db';
import { PlatformError } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** A collection's topics in qid byte order (as trec_eval orders them). */
export async function listTopics(db: Queryable, ref: CollectionRef): Promise<Topic[]> {
  const collection = await resolveCollection(db, ref);
  return store.listTopics(db, collection.id);
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
