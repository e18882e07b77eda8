// Blindness across campaigns, and the held pairs of campaigns, at the use-case level: the
// API refuses to put someone in a blind and a non-blind campaign over the same pairs, and
// should such assignments exist anyway (made before that rule), the non-blind campaign
// still never shows her another label set's grade of a pair she labels blind.
import {
  createCampaign as insertCampaign,
  createLabelSet,
  withTransaction,
  type Queryable,
} from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  addUser,
  annotationItem,
  authenticate,
  createCampaign,
  importCollection,
  importQrels,
  importTopics,
  nextAnnotationItem,
  resolveCollection,
  type PlatformError,
} from '../src/index.js';

forEachDatabase('blindness across campaigns', (t) => {
  async function seed() {
    await importCollection(t.db, {
      name: 'c',
      format: 'tsv',
      text: 'd1\tone\nd2\ttwo\n',
      file: 'docs.tsv',
    });
    await importTopics(t.db, { collection: 'c', text: '1\tfirst\n', file: 'topics.tsv' });
    await importQrels(t.db, {
      collection: 'c',
      labelSet: 'llm',
      text: '1 0 d1 2\n1 0 d2 0\n',
      file: 'q',
    });
    const ada = await addUser(t.db, { name: 'ada', role: 'annotator' });
    return { ada, user: await authenticate(t.db, ada.token) };
  }

  /** A campaign written straight to the database, as one made before the rule could be. */
  async function storedCampaign(db: Queryable, name: string, blind: boolean, userId: number) {
    const collection = await resolveCollection(db, 'c');
    return withTransaction(db, async (trx) => {
      const set = await createLabelSet(trx, {
        collectionId: collection.id,
        name,
        kind: 'campaign',
        scaleMin: 0,
        scaleMax: 2,
      });
      return insertCampaign(trx, {
        collectionId: collection.id,
        labelSetId: set.id,
        name,
        rubric: '',
        grades: [0, 1, 2].map((g) => ({ grade: g, label: String(g) })),
        overlap: 1,
        blind,
        settings: { compareWith: [(await resolveLlm(trx)).id] },
        items: [
          { topicId: '1', docId: 'd1' },
          { topicId: '1', docId: 'd2' },
        ].slice(0, blind ? 1 : 2),
        annotators: [userId],
        assign: () => [0],
      });
    });
  }
  async function resolveLlm(db: Queryable) {
    const row = await db
      .selectFrom('label_sets')
      .select('id')
      .where('name', '=', 'llm')
      .executeTakeFirstOrThrow();
    return { id: Number(row.id) };
  }

  it('hides other label sets’ grades of a pair she also labels blind', async () => {
    const { ada, user } = await seed();
    // Blind over 1/d1; non-blind, compared with llm, over 1/d1 and 1/d2.
    await storedCampaign(t.db, 'blind', true, ada.id);
    const open = await storedCampaign(t.db, 'open', false, ada.id);
    const seen = new Map<string, unknown>();
    for (const itemId of [1, 2, 3, 4]) {
      const item = await annotationItem(t.db, open.id, itemId, user).catch(() => undefined);
      if (item) seen.set(item.item.document.id, item.reference ?? item.referenceHidden);
    }
    expect(seen.get('d1')).toBe(
      'you also label this item in a blind campaign, so other label sets’ grades stay hidden',
    );
    expect(seen.get('d2')).toEqual([{ labelSet: 'llm', grade: 0 }]);
    const first = await nextAnnotationItem(t.db, open.id, user);
    // Her first item of the open campaign is the one she labels blind: llm's 2 stays away.
    expect(first!.item.document.id).toBe('d1');
    expect(first!.reference).toBeUndefined();
    expect(JSON.stringify(first)).not.toContain('llm');
  });

  it('refuses the second campaign through the use-case, whichever comes first', async () => {
    const { user } = await seed();
    await createCampaign(t.db, {
      collection: 'c',
      name: 'open',
      items: [{ topic: '1', docno: 'd1' }],
      scale: { min: 0, max: 2 },
      annotators: [user.id],
      blind: false,
      compareWith: ['llm'],
    });
    const error = (await createCampaign(t.db, {
      collection: 'c',
      name: 'blind',
      items: [
        { topic: '1', docno: 'd1' },
        { topic: '1', docno: 'd2' },
      ],
      scale: { min: 0, max: 2 },
      annotators: [user.id],
    }).catch((e: unknown) => e)) as PlatformError;
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('ada (in campaign "open")');
    // Nothing was written: the name is free.
    const made = await createCampaign(t.db, {
      collection: 'c',
      name: 'blind',
      items: [{ topic: '1', docno: 'd2' }],
      scale: { min: 0, max: 2 },
      annotators: [user.id],
    });
    expect(made.items).toBe(1);
  });
});
