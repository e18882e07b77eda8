// The campaign label of an item is the adjudicated grade, else the most frequent grade of
// its annotators with ties to the lower grade. Saving, undoing and adjudicating each
// update it; the expected grades and producers below are counted by hand.
import { listCampaignItems, listLabels, userProducer, type User } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  addUser,
  adjudicateItem,
  createCampaign,
  importCollection,
  importTopics,
  resolveUser,
  saveAnnotationLabel,
  undoAnnotationLabel,
} from '../src/index.js';

forEachDatabase('the campaign majority rule in save, undo and adjudication', (t) => {
  /** A campaign of items 1/x, 1/y, 1/z given to all of ann, bob, cat and dan (scale 0-3). */
  async function setUp() {
    await importCollection(t.db, {
      name: 'c',
      format: 'tsv',
      text: 'x\tone\ny\ttwo\nz\tthree\n',
      file: 'docs.tsv',
    });
    await importTopics(t.db, { collection: 'c', format: 'tsv', text: '1\tquery\n', file: 't' });
    const people: Record<string, User> = {};
    for (const name of ['ann', 'bob', 'cat', 'dan', 'root']) {
      await addUser(t.db, { name, role: name === 'root' ? 'admin' : 'annotator' });
      people[name] = await resolveUser(t.db, name);
    }
    const campaign = await createCampaign(t.db, {
      collection: 'c',
      name: 'k',
      items: ['x', 'y', 'z'].map((docno) => ({ topic: '1', docno })),
      scale: { min: 0, max: 3 },
      annotators: ['ann', 'bob', 'cat', 'dan'],
      overlap: 4,
    });
    const items: Record<string, number> = {};
    for (const item of await listCampaignItems(t.db, campaign.id)) items[item.docId] = item.id;
    /** The campaign's label of a document now: [grade, producer], or null when it has none. */
    const labelOf = async (docno: string) => {
      const label = (await listLabels(t.db, campaign.labelSet.id)).find((l) => l.docId === docno);
      return label ? [label.grade, label.producedBy] : null;
    };
    const save = (who: string, docno: string, grade: number) =>
      saveAnnotationLabel(t.db, campaign.id, people[who]!, { item: items[docno]!, grade });
    const undo = (who: string, docno: string) =>
      undoAnnotationLabel(t.db, campaign.id, people[who]!, items[docno]!);
    const adjudicate = (docno: string, grade: number | null) =>
      adjudicateItem(t.db, campaign.id, people.root!, { item: items[docno]!, grade });
    return { people, labelOf, save, undo, adjudicate };
  }

  it('saves: the most frequent grade, ties to the lower one', async () => {
    const { labelOf, save } = await setUp();
    await save('ann', 'x', 2); // {2}
    expect(await labelOf('x')).toEqual([2, 'annotator']);
    await save('bob', 'x', 1); // {2, 1}: a tie
    expect(await labelOf('x')).toEqual([1, 'majority']);
    await save('cat', 'x', 2); // {2, 1, 2}
    expect(await labelOf('x')).toEqual([2, 'majority']);
    await save('dan', 'x', 1); // {2, 1, 2, 1}: a tie
    expect(await labelOf('x')).toEqual([1, 'majority']);
    await save('bob', 'x', 2); // {2, 2, 2, 1}: bob changes his grade
    expect(await labelOf('x')).toEqual([2, 'majority']);

    await save('ann', 'y', 3);
    await save('bob', 'y', 1);
    await save('cat', 'y', 2); // {3, 1, 2}: a three-way tie
    expect(await labelOf('y')).toEqual([1, 'majority']);
    await save('dan', 'y', 3); // {3, 1, 2, 3}
    expect(await labelOf('y')).toEqual([3, 'majority']);
  });

  it('undoes: the grades left decide, and no grade left removes the label', async () => {
    const { labelOf, save, undo } = await setUp();
    await save('ann', 'x', 2);
    await save('bob', 'x', 1);
    await save('cat', 'x', 2);
    await save('dan', 'x', 3); // {2, 1, 2, 3}
    expect(await labelOf('x')).toEqual([2, 'majority']);
    await undo('cat', 'x'); // {2, 1, 3}: a three-way tie
    expect(await labelOf('x')).toEqual([1, 'majority']);
    await undo('bob', 'x'); // {2, 3}: a tie
    expect(await labelOf('x')).toEqual([2, 'majority']);
    await undo('ann', 'x'); // {3}
    expect(await labelOf('x')).toEqual([3, 'annotator']);
    expect(await undo('dan', 'x')).toMatchObject({ grade: null }); // {}
    expect(await labelOf('x')).toBeNull();

    // An undo that restores an earlier grade: bob 0 then 3, undone back to 0.
    await save('ann', 'y', 3);
    await save('bob', 'y', 0);
    await save('bob', 'y', 3); // {3, 3}
    expect(await labelOf('y')).toEqual([3, 'majority']);
    expect(await undo('bob', 'y')).toMatchObject({ grade: 0 }); // {3, 0}: a tie
    expect(await labelOf('y')).toEqual([0, 'majority']);
  });

  it('adjudicates: the decided grade wins, saves keep it, null hands back to the majority', async () => {
    const { people, labelOf, save, undo, adjudicate } = await setUp();
    const admin = userProducer(people.root!.id);
    await save('ann', 'x', 0);
    await save('bob', 'x', 3);
    await save('cat', 'x', 3); // {0, 3, 3}
    expect(await labelOf('x')).toEqual([3, 'majority']);
    expect(await adjudicate('x', 1)).toEqual({ item: expect.any(Number), grade: 1 });
    expect(await labelOf('x')).toEqual([1, admin]);
    await save('dan', 'x', 3); // {0, 3, 3, 3}, still decided
    expect(await labelOf('x')).toEqual([1, admin]);
    await undo('dan', 'x');
    expect(await labelOf('x')).toEqual([1, admin]);
    expect(await adjudicate('x', null)).toMatchObject({ grade: 3 }); // {0, 3, 3}
    expect(await labelOf('x')).toEqual([3, 'majority']);

    await save('ann', 'y', 2);
    await save('bob', 'y', 0); // {2, 0}: a tie
    expect(await labelOf('y')).toEqual([0, 'majority']);
    await adjudicate('y', 2);
    expect(await labelOf('y')).toEqual([2, admin]);
    expect(await adjudicate('y', null)).toMatchObject({ grade: 0 });
    expect(await labelOf('y')).toEqual([0, 'majority']);

    // An item nobody labelled: the decision is its label, until it is taken back.
    expect(await adjudicate('z', 3)).toMatchObject({ grade: 3 });
    expect(await labelOf('z')).toEqual([3, admin]);
    await save('cat', 'z', 0); // {0}, still decided
    expect(await labelOf('z')).toEqual([3, admin]);
    expect(await adjudicate('z', null)).toMatchObject({ grade: 0 });
    expect(await labelOf('z')).toEqual([0, 'annotator']);
    await undo('cat', 'z');
    expect(await labelOf('z')).toBeNull();
    await adjudicate('z', 2);
    expect(await adjudicate('z', null)).toEqual({ item: expect.any(Number), grade: null });
    expect(await labelOf('z')).toBeNull();
  });
});
