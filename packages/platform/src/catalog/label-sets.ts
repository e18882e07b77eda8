import * as store from '@assay/db';
import type { Label, LabelSetSummary, Queryable } from '@assay/db';
import { writeInCollection } from './collection-writes.js';
import { PlatformError } from '../core/errors.js';
import { campaignsLockName, labelSetLockName } from '../core/name-locks.js';
import { resolveCollection, resolveLabelSet, type CollectionRef, type ItemRef } from '../core/resolve.js';
import { LARGE_PAGE, pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** A collection's label sets by name, with label and topic counts. */
export async function listLabelSets(db: Queryable, ref: CollectionRef): Promise<LabelSetSummary[]> {
  const collection = await resolveCollection(db, ref);
  return store.listLabelSets(db, collection.id);
}

/** A page of {@link listLabelSets} (by name, then id). */
export async function listLabelSetsPage(
  db: Queryable,
  ref: CollectionRef,
  options: PageOptions = {},
): Promise<Page<LabelSetSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['text', 'int']);
  const collection = await resolveCollection(db, ref);
  const rows = await store.listLabelSets(db, collection.id, page);
  return pageOf(
    rows,
    page,
    (s) => [s.name, s.id],
    (s) => s,
  );
}

/** A label set (by the naming rule) with its label and topic counts; not_found if absent. */
export async function getLabelSetSummary(
  db: Queryable,
  collectionRef: CollectionRef,
  labelSetRef: ItemRef,
): Promise<LabelSetSummary> {
  const collection = await resolveCollection(db, collectionRef);
  const set = await resolveLabelSet(db, collection, labelSetRef);
  const summary = await store.getLabelSetSummary(db, set.id);
  if (!summary) throw new PlatformError('not_found', `no label set ${JSON.stringify(labelSetRef)}`);
  return summary;
}

/** The labels of a set by topic and docno (byte order); optionally one topic. */
export async function listLabels(
  db: Queryable,
  collectionRef: CollectionRef,
  labelSetRef: ItemRef,
  options: { topic?: string } = {},
): Promise<Label[]> {
  const collection = await resolveCollection(db, collectionRef);
  const set = await resolveLabelSet(db, collection, labelSetRef);
  return store.listLabels(
    db,
    set.id,
    options.topic === undefined ? {} : { topicId: options.topic },
  );
}

/** A page of {@link listLabels} (topic, then docno, in byte order). */
export async function listLabelsPage(
  db: Queryable,
  collectionRef: CollectionRef,
  labelSetRef: ItemRef,
  options: PageOptions & { topic?: string } = {},
): Promise<Page<Label>> {
  const page = seekPage(options, LARGE_PAGE, ['text', 'text']);
  const collection = await resolveCollection(db, collectionRef);
  const set = await resolveLabelSet(db, collection, labelSetRef);
  const rows = await store.listLabels(db, set.id, {
    page,
    ...(options.topic === undefined ? {} : { topicId: options.topic }),
  });
  return pageOf(
    rows,
    page,
    (l) => [l.topicId, l.docId],
    (l) => l,
  );
}

/**
 * Deletes a label set and its labels. A label set a campaign uses (the campaign's own,
 * which goes with it, or one it compares with or sampled by) is kept, conflict naming the
 * campaigns, unless `force` is set.
 */
export async function deleteLabelSet(
  db: Queryable,
  collectionRef: CollectionRef,
  labelSetRef: ItemRef,
  options: { force?: boolean } = {},
): Promise<void> {
  const collection = await resolveCollection(db, collectionRef);
  await writeInCollection(db, collection, async (trx) => {
    const set = await resolveLabelSet(trx, collection, labelSetRef);
    // An upload replacing it at the same moment goes first or after, never halfway.
    await store.lockName(trx, labelSetLockName(collection.id, set.name));
    // A campaign made at the same moment is made first or after.
    await store.lockName(trx, campaignsLockName(collection.id));
    const users = await store.campaignsUsingLabelSet(trx, set.id);
    if (users.length > 0 && !options.force) {
      const how = users.map((c) =>
        c.use === 'writes'
          ? `campaign "${c.name}" writes it (the campaign and its labels would go too)`
          : `campaign "${c.name}" compares with it or sampled by it`,
      );
      throw new PlatformError(
        'conflict',
        `label set "${set.name}" is used by ${users.length === 1 ? 'a campaign' : `${users.length} campaigns`}: ${how.join('; ')}; delete with force to delete it anyway`,
        { campaigns: users.map((c) => ({ id: c.id, name: c.name, use: c.use })) },
      );
    }
    if (!(await store.deleteLabelSet(trx, set.id)))
      throw new PlatformError('not_found', `no label set ${JSON.stringify(labelSetRef)}`);
  });
}
/** A label set as TREC qrels text (`topic 0 docno grade`), topics and docnos in byte order. */
export async function exportLabelsAsQrels(db: Queryable, labelSetId: number): Promise<string> {
  let text = '';
  for (const label of await store.listLabels(db, labelSetId))
    text += `${label.topicId} 0 ${label.docId} ${label.grade}\n`;
  return text;
}

/**
 * A label set (by the naming rule) as TREC qrels text, as {@link exportLabelsAsQrels}
 * writes it; not_found if the collection or label set is absent.
 */
export async function exportLabelSet(
  db: Queryable,
  collectionRef: CollectionRef,
  labelSetRef: ItemRef,
): Promise<{ name: string; text: string; labels: number }> {
  const collection = await resolveCollection(db, collectionRef);
  const set = await resolveLabelSet(db, collection, labelSetRef);
  const text = await exportLabelsAsQrels(db, set.id);
  return { name: set.name, text, labels: text === '' ? 0 : text.split('\n').length - 1 };
}
