import { sql } from 'kysely';
import { bulkInsert, type Queryable } from '../bulk.js';
import type { CampaignGrade, JsonObject, Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';
import { upsertCampaignLabel } from './label-writer.js';
import { insertRevisedLabels } from './label-revisions.js';

/** An annotation campaign: a sample of items labelled by people into one label set. */
export interface Campaign {
  id: number;
  collectionId: number;
  labelSetId: number;
  name: string;
  rubric: string;
  grades: CampaignGrade[];
  overlap: number;
  blind: boolean;
  /** What annotators see instead of the name (null: the name). */
  title: string | null;
  /** Source, sampling, judge template, compared label sets. */
  settings: JsonObject;
  createdAt: Date;
}

/** Fields of a new campaign; its label set exists already. */
export interface NewCampaign {
  collectionId: number;
  labelSetId: number;
  name: string;
  rubric: string;
  grades: CampaignGrade[];
  overlap: number;
  blind: boolean;
  title?: string | null;
  settings?: JsonObject;
}

/** An item of a campaign. */
export interface CampaignItem {
  id: number;
  campaignId: number;
  topicId: string;
  docId: string;
  position: number;
  adjudicatedGrade: number | null;
  adjudicatedBy: number | null;
}

/** An item given to one annotator, with what they did with it. */
export interface CampaignAssignment {
  campaignId: number;
  itemId: number;
  userId: number;
  position: number;
  grade: number | null;
  skipped: boolean;
  seconds: number;
}

/** How far one annotator is in a campaign. */
export interface AnnotatorProgress {
  userId: number;
  name: string;
  done: number;
  skipped: number;
  total: number;
  seconds: number;
}

/** One annotator's current grade of one item. */
export interface AnnotatorGrade {
  itemId: number;
  userId: number;
  topicId: string;
  docId: string;
  grade: number;
}

export function toCampaign(row: Row<'campaigns'>): Campaign {
  return {
    id: row.id,
    collectionId: row.collection_id,
    labelSetId: row.label_set_id,
    name: row.name,
    rubric: row.rubric,
    grades: row.grades,
    overlap: row.overlap,
    blind: row.blind,
    title: row.title,
    settings: row.settings,
    createdAt: row.created_at,
  };
}

function toItem(row: Row<'campaign_items'>): CampaignItem {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    topicId: row.topic_id,
    docId: row.doc_id,
    position: row.position,
    adjudicatedGrade: row.adjudicated_grade,
    adjudicatedBy: row.adjudicated_by,
  };
}

function toAssignment(row: Row<'campaign_assignments'>): CampaignAssignment {
  return {
    campaignId: row.campaign_id,
    itemId: row.item_id,
    userId: row.user_id,
    position: row.position,
    grade: row.grade,
    skipped: row.skipped,
    seconds: row.seconds,
  };
}

/**
 * Creates a campaign with its items (in the given order) and assignments: item i goes to
 * the annotators at positions `assign(i)` of `annotators`. Call inside a transaction.
 */
export async function createCampaign(
  db: Queryable,
  input: NewCampaign & {
    items: ReadonlyArray<{ topicId: string; docId: string }>;
    annotators: readonly number[];
    assign: (itemIndex: number) => readonly number[];
  },
): Promise<Campaign> {
  const row = await db
    .insertInto('campaigns')
    .values({
      collection_id: input.collectionId,
      label_set_id: input.labelSetId,
      name: input.name,
      rubric: input.rubric,
      grades: sql<CampaignGrade[]>`${JSON.stringify(input.grades)}::text::jsonb`,
      overlap: input.overlap,
      blind: input.blind,
      title: input.title ?? null,
      settings: input.settings ?? {},
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const items = input.items.map((item, position) => ({ ...item, position }));
  await bulkInsert(db, {
    table: 'campaign_items',
    constant: { campaign_id: row.id },
    columns: [
      { name: 'topic_id', type: 'text', value: (i: (typeof items)[number]) => i.topicId },
      { name: 'doc_id', type: 'text', value: (i) => i.docId },
      { name: 'position', type: 'int4', value: (i) => i.position },
    ],
    rows: items,
  });
  const stored = await db
    .selectFrom('campaign_items')
    .select(['id', 'position'])
    .where('campaign_id', '=', row.id)
    .orderBy('position')
    .execute();
  const assignments: Array<{ itemId: number; userId: number; position: number }> = [];
  for (const item of stored) {
    for (const a of input.assign(item.position)) {
      assignments.push({ itemId: item.id, userId: input.annotators[a]!, position: item.position });
    }
  }
  await bulkInsert(db, {
    table: 'campaign_assignments',
    constant: { campaign_id: row.id },
    columns: [
      { name: 'item_id', type: 'int8', value: (a: (typeof assignments)[number]) => a.itemId },
      { name: 'user_id', type: 'int8', value: (a) => a.userId },
      { name: 'position', type: 'int4', value: (a) => a.position },
    ],
    rows: assignments,
  });
  return toCampaign(row);
}

/** The campaign with this id, if any. */
export async function getCampaign(db: Queryable, id: number): Promise<Campaign | undefined> {
  const row = await db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toCampaign(row);
}

/** The campaign that writes this label set, if any. */
export async function findCampaignByLabelSet(
  db: Queryable,
  labelSetId: number,
): Promise<Campaign | undefined> {
  const row = await db
    .selectFrom('campaigns')
    .selectAll()
    .where('label_set_id', '=', labelSetId)
    .executeTakeFirst();
  return row && toCampaign(row);
}

/**
 * Campaigns of a collection (or of every collection), newest first (id descending); given a
 * page, those after its key (id) and at most limit + 1 of them.
 */
export async function listCampaigns(
  db: Queryable,
  collectionId?: number,
  page?: Seek,
): Promise<Campaign[]> {
  let query = db.selectFrom('campaigns').selectAll();
  if (collectionId !== undefined) query = query.where('collection_id', '=', collectionId);
  return (await seek(query, [sql.ref('id')], page, 'desc').execute()).map(toCampaign);
}

/**
 * Campaigns in which a user has assignments, newest first (id descending); given a page,
 * those after its key (id) and at most limit + 1 of them.
 */
export async function listAnnotatorCampaigns(
  db: Queryable,
  userId: number,
  page?: Seek,
): Promise<Campaign[]> {
  const query = db
    .selectFrom('campaigns as c')
    .selectAll('c')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('campaign_assignments as a')
          .select('a.item_id')
          .whereRef('a.campaign_id', '=', 'c.id')
          .where('a.user_id', '=', userId),
      ),
    );
  const rows = await seek(query, [sql.ref('c.id')], page, 'desc').execute();
  return rows.map(toCampaign);
}

/**
 * Where a campaign and another campaign of its collection with the other blindness share an
 * annotator and at least one (topic, document): each such annotator and campaign (at most
 * `limit`, default 10).
 */
export async function blindnessConflicts(
  db: Queryable,
  campaignId: number,
  limit = 10,
): Promise<Array<{ userId: number; userName: string; campaignId: number; campaignName: string }>> {
  const rows = await sql<{
    user_id: number;
    user_name: string;
    campaign_id: number;
    campaign_name: string;
  }>`
    select distinct u.id as user_id, u.name as user_name, o.id as campaign_id, o.name as campaign_name
    from campaigns c
    join campaign_items i on i.campaign_id = c.id
    join campaigns o on o.collection_id = c.collection_id and o.id <> c.id and o.blind <> c.blind
    join campaign_items oi on oi.campaign_id = o.id and oi.topic_id = i.topic_id and oi.doc_id = i.doc_id
    join campaign_assignments oa on oa.item_id = oi.id
    join users u on u.id = oa.user_id
    where c.id = ${campaignId}
      and exists (select 1 from campaign_assignments a where a.campaign_id = c.id and a.user_id = oa.user_id)
    order by o.id, u.id
    limit ${limit}`.execute(db);
  return rows.rows.map((r) => ({
    userId: Number(r.user_id),
    userName: r.user_name,
    campaignId: Number(r.campaign_id),
    campaignName: r.campaign_name,
  }));
}

/**
 * Whether a user has an assignment in a blind campaign of the collection on this
 * (topic, document): while so, no other label set's grade of it may reach them.
 */
export async function hasBlindAssignmentOn(
  db: Queryable,
  userId: number,
  collectionId: number,
  topicId: string,
  docId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('campaign_assignments as a')
    .innerJoin('campaign_items as i', 'i.id', 'a.item_id')
    .innerJoin('campaigns as c', 'c.id', 'a.campaign_id')
    .select('a.item_id')
    .where('a.user_id', '=', userId)
    .where('c.blind', '=', true)
    .where('c.collection_id', '=', collectionId)
    .where('i.topic_id', '=', topicId)
    .where('i.doc_id', '=', docId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The campaigns that use a label set: the one writing it (`writes`: it goes with the set)
 * and those comparing with it or sampling by it (`reads`).
 */
export async function campaignsUsingLabelSet(
  db: Queryable,
  labelSetId: number,
): Promise<Array<{ id: number; name: string; use: 'writes' | 'reads' }>> {
  const rows = await sql<{ id: number; name: string; writes: boolean }>`
    select id, name, label_set_id = ${labelSetId} as writes
    from campaigns
    where label_set_id = ${labelSetId}
       or coalesce(settings -> 'compareWith', '[]'::jsonb) @> to_jsonb(${labelSetId}::bigint)
       or settings -> 'sampling' -> 'labelSet' = to_jsonb(${labelSetId}::bigint)
       or coalesce(settings -> 'sampling' -> 'labelSets', '[]'::jsonb) @> to_jsonb(${labelSetId}::bigint)
    order by id`.execute(db);
  return rows.rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    use: r.writes ? 'writes' : 'reads',
  }));
}

/** Each annotator's progress in a campaign, by name. */
export async function campaignProgress(
  db: Queryable,
  campaignId: number,
  userId?: number,
): Promise<AnnotatorProgress[]> {
  let query = db
    .selectFrom('campaign_assignments as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select([
      'a.user_id',
      'u.name',
      sql<number>`count(*)`.as('total'),
      sql<number>`count(a.grade)`.as('done'),
      sql<number>`count(*) filter (where a.skipped and a.grade is null)`.as('skipped'),
      sql<number>`coalesce(sum(a.seconds), 0)`.as('seconds'),
    ])
    .where('a.campaign_id', '=', campaignId)
    .groupBy(['a.user_id', 'u.name'])
    .orderBy('u.name');
  if (userId !== undefined) query = query.where('a.user_id', '=', userId);
  return (await query.execute()).map((r) => ({
    userId: r.user_id,
    name: r.name,
    done: Number(r.done),
    skipped: Number(r.skipped),
    total: Number(r.total),
    seconds: Number(r.seconds),
  }));
}

/**
 * An annotator's next item: the first unlabelled, unskipped one in their order; when only
 * skipped ones are left, the first of those. Undefined when everything is labelled.
 */
export async function nextCampaignItem(
  db: Queryable,
  campaignId: number,
  userId: number,
): Promise<CampaignItem | undefined> {
  const [first] = await nextCampaignItems(db, campaignId, userId, 1);
  return first;
}

/**
 * An annotator's next `limit` items in the order they are served: unlabelled, unskipped
 * ones in their order, then the skipped ones in theirs. Empty when everything is labelled.
 */
export async function nextCampaignItems(
  db: Queryable,
  campaignId: number,
  userId: number,
  limit: number,
): Promise<CampaignItem[]> {
  const rows = await db
    .selectFrom('campaign_assignments as a')
    .innerJoin('campaign_items as i', 'i.id', 'a.item_id')
    .selectAll('i')
    .where('a.campaign_id', '=', campaignId)
    .where('a.user_id', '=', userId)
    .where('a.grade', 'is', null)
    .orderBy('a.skipped')
    .orderBy('a.position')
    .limit(limit)
    .execute();
  return rows.map(toItem);
}

/** A campaign's item by id, if it belongs to the campaign. */
export async function getCampaignItem(
  db: Queryable,
  campaignId: number,
  itemId: number,
  options: { forUpdate?: boolean } = {},
): Promise<CampaignItem | undefined> {
  let query = db
    .selectFrom('campaign_items')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('id', '=', itemId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toItem(row);
}

/** A campaign's items in their order. */
export async function listCampaignItems(
  db: Queryable,
  campaignId: number,
): Promise<CampaignItem[]> {
  const rows = await db
    .selectFrom('campaign_items')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .orderBy('position')
    .execute();
  return rows.map(toItem);
}

/** One annotator's assignment of an item, if the item is theirs. */
export async function getCampaignAssignment(
  db: Queryable,
  itemId: number,
  userId: number,
): Promise<CampaignAssignment | undefined> {
  const row = await db
    .selectFrom('campaign_assignments')
    .selectAll()
    .where('item_id', '=', itemId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && toAssignment(row);
}

/** Sets what an annotator did with an item (grade, skip flag, time spent added). */
export async function updateCampaignAssignment(
  db: Queryable,
  itemId: number,
  userId: number,
  change: { grade?: number | null; skipped?: boolean; addSeconds?: number },
): Promise<void> {
  await db
    .updateTable('campaign_assignments')
    .set({
      ...(change.grade === undefined ? {} : { grade: change.grade }),
      ...(change.skipped === undefined ? {} : { skipped: change.skipped }),
      ...(change.addSeconds ? { seconds: sql<number>`seconds + ${change.addSeconds}` } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('item_id', '=', itemId)
    .where('user_id', '=', userId)
    .execute();
}

/** Every annotator's current grades in a campaign (labelled assignments only). */
export async function listAnnotatorGrades(
  db: Queryable,
  campaignId: number,
): Promise<AnnotatorGrade[]> {
  const rows = await db
    .selectFrom('campaign_assignments as a')
    .innerJoin('campaign_items as i', 'i.id', 'a.item_id')
    .select(['a.item_id', 'a.user_id', 'i.topic_id', 'i.doc_id', 'a.grade'])
    .where('a.campaign_id', '=', campaignId)
    .where('a.grade', 'is not', null)
    .orderBy('i.position')
    .orderBy('a.user_id')
    .execute();
  return rows.map((r) => ({
    itemId: r.item_id,
    userId: r.user_id,
    topicId: r.topic_id,
    docId: r.doc_id,
    grade: r.grade as number,
  }));
}

/** Records (or clears, with null) an admin's decision on an item. */
export async function adjudicateCampaignItem(
  db: Queryable,
  itemId: number,
  grade: number | null,
  userId: number | null,
): Promise<void> {
  await db
    .updateTable('campaign_items')
    .set({ adjudicated_grade: grade, adjudicated_by: grade === null ? null : userId })
    .where('id', '=', itemId)
    .execute();
}

/** One annotator's revisions of one item, oldest first (grade and rationale). */
export async function listUserItemRevisions(
  db: Queryable,
  input: { labelSetId: number; topicId: string; docId: string; userId: number },
): Promise<Array<{ grade: number | null; rationale: string | null }>> {
  return db
    .selectFrom('label_revisions')
    .select(['grade', 'rationale'])
    .where('label_set_id', '=', input.labelSetId)
    .where('topic_id', '=', input.topicId)
    .where('doc_id', '=', input.docId)
    .where('user_id', '=', input.userId)
    .orderBy('id')
    .execute();
}

/** What {@link saveAssignmentGrade} stored: the item and the annotator's progress after it. */
export interface SavedAssignmentGrade {
  itemId: number;
  done: number;
  total: number;
}

/**
 * Saves an annotator's grade of one of their items in one statement: checks the item is
 * in the campaign and assigned to them, appends the revision, updates their assignment
 * (grade, skip flag cleared, seconds added) and upserts the campaign's label of the item
 * (the adjudicated grade, else the majority of the annotators' grades, ties to the lower
 * grade: the rule of label-writer.ts, here over the ballot with the new grade), and counts
 * their progress. A save of the grade the annotator's label already has (a save sent again
 * because its answer was lost) writes nothing and answers as the first one did. Undefined when the campaign, the item or the
 * assignment does not exist, the grade is not on the campaign's scale, the campaign is
 * closed (`settings.closedAt`) or the annotator was removed from it
 * (`settings.removedAnnotators`): nothing is written then.
 *
 * The item row and then all its assignment rows are locked (in that order, as every other
 * writer of an item does): a save of the same item by another annotator waits, and the
 * locked rows are read as last committed, so the majority always counts every vote.
 *
 * The label set's row is not touched: a campaign's label set never stores its counts (they
 * are counted on read, see migration 0009), so concurrent saves do not queue behind it.
 */
export async function saveAssignmentGrade(
  db: Queryable,
  input: { campaignId: number; itemId: number; userId: number; grade: number; seconds: number },
): Promise<SavedAssignmentGrade | undefined> {
  const { campaignId, itemId, userId, grade, seconds } = input;
  const result = await sql<{ item_id: number; done: number; total: number }>`
    with campaign as (
      select c.id, c.label_set_id from campaigns c
      where c.id = ${campaignId}
        -- a closed campaign, or an annotator removed from it, takes no label
        and c.settings ->> 'closedAt' is null
        and not coalesce(c.settings -> 'removedAnnotators', '[]'::jsonb) @> to_jsonb(${userId}::bigint)
        and exists (
          select 1 from jsonb_array_elements(c.grades) g
          where (g ->> 'grade')::int = ${grade}::int
        )
    ),
    item as (
      select i.id, i.topic_id, i.doc_id, i.adjudicated_grade, i.adjudicated_by,
             (select label_set_id from campaign) as label_set_id
      from campaign_items i
      where i.id = ${itemId} and i.campaign_id = (select id from campaign)
        and exists (
          select 1 from campaign_assignments a where a.item_id = i.id and a.user_id = ${userId}
        )
      for update
    ),
    votes as (
      select a.user_id, a.grade from campaign_assignments a
      where a.item_id = (select id from item)
      order by a.user_id
      for update
    ),
    tally as (
      select count(*)::int as locked,
             -- the annotator's label already has this grade: the save is sent again (its
             -- answer was lost), and changes nothing
             coalesce(bool_or(v.user_id = ${userId} and v.grade = ${grade}::int), false) as repeated
      from votes v
    ),
    change as (
      select 1 from tally where locked > 0 and not repeated
    ),
    revised as (
      select item.label_set_id, item.topic_id, item.doc_id, ${grade}::int as grade,
             ${userId}::bigint as user_id
      from item where exists (select 1 from change)
    ),
    revision as (${insertRevisedLabels()}),
    assignment as (
      update campaign_assignments a
      set grade = ${grade}::int, skipped = false, seconds = a.seconds + ${seconds}::float8,
          updated_at = now()
      where a.item_id = (select id from item) and a.user_id = ${userId}
        and exists (select 1 from change)
      returning a.item_id
    ),
    ballot as (
      select case when v.user_id = ${userId} then ${grade}::int else v.grade end as grade
      from votes v
    ),
    label as (${upsertCampaignLabel(sql`exists (select 1 from change)`)}),
    progress as (
      select count(*)::int as total,
             count(a.grade) filter (where a.item_id <> ${itemId})::int as others
      from campaign_assignments a
      where a.campaign_id = ${campaignId} and a.user_id = ${userId}
    )
    select (select id from item) as item_id, progress.others + 1 as done, progress.total
    from progress
    where (select locked from tally) > 0
      and ((select repeated from tally)
           or ((select count(*) from assignment) = 1 and (select count(*) from revision) = 1
               and (select count(*) from label) = 1))
  `.execute(db);
  const row = result.rows[0];
  return row && { itemId: Number(row.item_id), done: Number(row.done), total: Number(row.total) };
}

// --- Campaigns as objects: closing, annotators joining and leaving, deletion ---------------

/**
 * Sets keys of a campaign's settings and removes others in one statement (other keys are
 * left as they are, so two changes of different keys never undo each other).
 */
export async function patchCampaignSettings(
  db: Queryable,
  campaignId: number,
  patch: { set?: JsonObject; remove?: readonly string[] },
): Promise<Campaign | undefined> {
  let settings = sql<JsonObject>`settings || ${JSON.stringify(patch.set ?? {})}::text::jsonb`;
  for (const key of patch.remove ?? []) settings = sql<JsonObject>`(${settings}) - ${key}::text`;
  const row = await db
    .updateTable('campaigns')
    .set({ settings })
    .where('id', '=', campaignId)
    .returningAll()
    .executeTakeFirst();
  return row && toCampaign(row);
}

/** Deletes an annotator's unlabelled assignments in a campaign; how many went. */
export async function deleteUnlabelledAssignments(
  db: Queryable,
  campaignId: number,
  userId: number,
): Promise<number> {
  const result = await db
    .deleteFrom('campaign_assignments')
    .where('campaign_id', '=', campaignId)
    .where('user_id', '=', userId)
    .where('grade', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Gives a user the campaign's items they do not have yet: with `all`, every such item;
 * otherwise only those with fewer than `overlap` annotators. How many were given.
 */
export async function addCampaignAssignments(
  db: Queryable,
  campaignId: number,
  userId: number,
  options: { overlap: number; all: boolean },
): Promise<number> {
  const result = await sql`
    insert into campaign_assignments (campaign_id, item_id, user_id, position)
    select i.campaign_id, i.id, ${userId}::bigint, i.position
    from campaign_items i
    where i.campaign_id = ${campaignId}
      and not exists (
        select 1 from campaign_assignments a where a.item_id = i.id and a.user_id = ${userId}
      )
      and (${options.all}::boolean
           or (select count(*) from campaign_assignments a where a.item_id = i.id) < ${options.overlap}::int)
    order by i.position`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * How many labels the campaign's annotators (or one of them) have given: current grades,
 * one per person and item.
 */
export async function countCampaignLabels(
  db: Queryable,
  campaignId: number,
  userId?: number,
): Promise<number> {
  let query = db
    .selectFrom('campaign_assignments')
    .select(sql<number>`count(*)`.as('n'))
    .where('campaign_id', '=', campaignId)
    .where('grade', 'is not', null);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
// --- end of campaigns as objects -------------------------------------------------------------
