// An annotator's save whose answer was lost on the way is sent again, with the same grade:
// the second save adds no label revision, adds no time and leaves the campaign's label as
// it was, and answers as the first did. Two identical saves sent at once count once too.
import { getCampaignAssignment, listCampaignItems, listLabels, type User } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase, queryRows } from '@assay/test-support/database';
import {
  addUser,
  createCampaign,
  importCollection,
  importTopics,
  resolveUser,
  saveAnnotationLabel,
  undoAnnotationLabel,
} from '../src/index.js';

forEachDatabase('a label save sent again', (t) => {
  /** A campaign of items 1/x and 1/y given to ann and bob (scale 0-3). */
  async function setUp() {
    await importCollection(t.db, {
      name: 'c',
      format: 'tsv',
      text: 'x\tone\ny\ttwo\n',
      file: 'docs.tsv',
    });
    await importTopics(t.db, { collection: 'c', format: 'tsv', text: '1\tquery\n', file: 't' });
    const people: Record<string, User> = {};
    for (const name of ['ann', 'bob']) {
      await addUser(t.db, { name, role: 'annotator' });
      people[name] = await resolveUser(t.db, name);
    }
    const campaign = await createCampaign(t.db, {
      collection: 'c',
      name: 'k',
      items: ['x', 'y'].map((docno) => ({ topic: '1', docno })),
      scale: { min: 0, max: 3 },
      annotators: ['ann', 'bob'],
      overlap: 2,
    });
    const items: Record<string, number> = {};
    for (const item of await listCampaignItems(t.db, campaign.id)) items[item.docId] = item.id;
    const save = (who: string, docno: string, grade: number, seconds = 0) =>
      saveAnnotationLabel(t.db, campaign.id, people[who]!, { item: items[docno]!, grade, seconds });
    /** Who gave which grade to x, oldest revision first. */
    const revisions = async () =>
      (
        await queryRows<{ user_id: number; grade: number | null; rationale: string | null }>(
          t.db,
          "select user_id, grade, rationale from label_revisions where doc_id = 'x' order by id",
        )
      ).map((r) => [Number(r.user_id) === people.ann!.id ? 'ann' : 'bob', r.grade, r.rationale]);
    const label = async () =>
      (await listLabels(t.db, campaign.labelSet.id)).find((l) => l.docId === 'x');
    const assignment = (who: string) => getCampaignAssignment(t.db, items.x!, people[who]!.id);
    return { campaign, people, items, save, revisions, label, assignment };
  }

  it('adds no revision, no time and no label write, and answers as the first save did', async () => {
    const { save, revisions, label, assignment, items } = await setUp();
    const first = await save('ann', 'x', 2, 30);
    expect(first).toEqual({ item: items.x, grade: 2, progress: { done: 1, total: 2 } });
    const labelled = await label();
    expect(labelled).toMatchObject({ grade: 2, producedBy: 'annotator' });

    expect(await save('ann', 'x', 2, 30)).toEqual(first);
    expect(await revisions()).toEqual([['ann', 2, null]]);
    expect(await assignment('ann')).toMatchObject({ grade: 2, seconds: 30 });
    expect(await label()).toEqual(labelled);

    // Another grade is a change, and its retry is not.
    expect(await save('ann', 'x', 3, 5)).toEqual({ ...first, grade: 3 });
    expect(await save('ann', 'x', 3, 5)).toEqual({ ...first, grade: 3 });
    // bob's first grade of the same item is his own change.
    await save('bob', 'x', 3);
    expect(await revisions()).toEqual([
      ['ann', 2, null],
      ['ann', 3, null],
      ['bob', 3, null],
    ]);
    expect(await assignment('ann')).toMatchObject({ grade: 3, seconds: 35 });
    expect(await label()).toMatchObject({ grade: 3, producedBy: 'majority' });
  });

  it('undoes past a retried save in one step', async () => {
    const { campaign, people, items, save, revisions } = await setUp();
    await save('ann', 'x', 1);
    await save('ann', 'x', 2);
    await save('ann', 'x', 2);
    expect(await undoAnnotationLabel(t.db, campaign.id, people.ann!, items.x!)).toMatchObject({
      grade: 1,
    });
    // The grade the undo restored, saved again, is no change either.
    await save('ann', 'x', 1);
    expect(await revisions()).toEqual([
      ['ann', 1, null],
      ['ann', 2, null],
      ['ann', 1, 'undo'],
    ]);
  });

  it('counts two identical saves sent at once as one', async () => {
    const { save, revisions, assignment } = await setUp();
    const answers = await Promise.all([save('ann', 'x', 2, 10), save('ann', 'x', 2, 10)]);
    expect(answers[0]).toEqual(answers[1]);
    expect(await revisions()).toEqual([['ann', 2, null]]);
    expect(await assignment('ann')).toMatchObject({ grade: 2, seconds: 10 });
  });
});
