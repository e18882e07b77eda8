// Campaigns as objects: closing and reopening, annotators joining and leaving (their labels
// stay), deletion that names what it deletes, and the tie wording of the adjudication list.
// Every expected count below is counted by hand from the set-up.
import { listLabels, type User } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  addCampaignAnnotators,
  addUser,
  adjudicationItem,
  campaignDeletionPreview,
  campaignSummary,
  closeCampaign,
  createCampaign,
  deleteCampaign,
  importCollection,
  importTopics,
  listCampaignDisagreements,
  listMyCampaignsPage,
  nextAnnotationItem,
  PlatformError,
  removeCampaignAnnotator,
  reopenCampaign,
  resolveUser,
  saveAnnotationLabel,
  skipAnnotationItem,
  undoAnnotationLabel,
} from '../src/index.js';

forEachDatabase('campaigns as objects', (t) => {
  /** Campaign k: items 1/x, 1/y, 1/z, each to both ann and bob (scale 0-3). */
  async function setUp() {
    await importCollection(t.db, {
      name: 'c',
      format: 'tsv',
      text: 'x\tpassage x\ny\tpassage y\nz\tpassage z\n',
      file: 'docs.tsv',
    });
    await importTopics(t.db, { collection: 'c', format: 'tsv', text: '1\tthe query\n', file: 't' });
    const people: Record<string, User> = {};
    for (const name of ['ann', 'bob', 'cat', 'root']) {
      await addUser(t.db, { name, role: name === 'root' ? 'admin' : 'annotator' });
      people[name] = await resolveUser(t.db, name);
    }
    const campaign = await createCampaign(t.db, {
      collection: 'c',
      name: 'k',
      items: ['x', 'y', 'z'].map((docno) => ({ topic: '1', docno })),
      scale: { min: 0, max: 3 },
      annotators: ['ann', 'bob'],
      overlap: 2,
    });
    const next = async (who: string) =>
      (await nextAnnotationItem(t.db, campaign.id, people[who]!))!;
    const save = async (who: string, grade: number) => {
      const item = await next(who);
      return saveAnnotationLabel(t.db, campaign.id, people[who]!, { item: item.item.id, grade });
    };
    return { campaign, people, next, save };
  }

  async function refusal(p: Promise<unknown>): Promise<PlatformError> {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }

  it('closes: every way of labelling is a conflict "campaign closed", labels are kept; reopening lets them label again', async () => {
    const { campaign, people, next, save } = await setUp();
    await save('ann', 2); // x
    const item = await next('ann'); // y
    const closed = await closeCampaign(t.db, campaign.id, people.root!);
    expect(closed.closed).toMatchObject({ by: people.root!.id });

    const saving = await refusal(
      saveAnnotationLabel(t.db, campaign.id, people.ann!, { item: item.item.id, grade: 1 }),
    );
    expect(saving.code).toBe('conflict');
    expect(saving.message).toMatch(/^campaign closed/);
    expect((await refusal(nextAnnotationItem(t.db, campaign.id, people.ann!))).message).toMatch(
      /^campaign closed/,
    );
    expect(
      (await refusal(skipAnnotationItem(t.db, campaign.id, people.ann!, item.item.id))).code,
    ).toBe('conflict');
    const x = (await listLabels(t.db, campaign.labelSet.id)).find((l) => l.docId === 'x');
    expect(
      (await refusal(undoAnnotationLabel(t.db, campaign.id, people.ann!, item.item.id - 1))).code,
    ).toBe('conflict');
    // ann's label of x is still there, and the annotator's list says the campaign is closed.
    expect(x?.grade).toBe(2);
    const mine = await listMyCampaignsPage(t.db, people.ann!);
    expect(mine.items).toEqual([expect.objectContaining({ id: campaign.id, closed: true })]);

    const reopened = await reopenCampaign(t.db, campaign.id);
    expect(reopened.closed).toBeNull();
    expect(await save('ann', 1)).toMatchObject({ grade: 1, progress: { done: 2, total: 3 } });
  });

  it('removes an annotator keeping her labels, refuses her labels after, and adds people to her items', async () => {
    const { campaign, people, next, save } = await setUp();
    await save('bob', 3); // x
    await save('bob', 1); // y
    const removed = await removeCampaignAnnotator(t.db, campaign.id, 'bob');
    // bob labelled 2 of his 3 items: 2 kept, 1 (z) taken back.
    expect(removed).toMatchObject({ kept: 2, released: 1 });
    expect(removed.message).toBe(
      'bob was removed: the 2 labels bob gave are kept; 1 unlabelled item was taken back',
    );
    expect(removed.campaign.removedAnnotators).toEqual([{ id: people.bob!.id, name: 'bob' }]);
    expect(removed.campaign.annotators.find((a) => a.name === 'bob')).toMatchObject({
      done: 2,
      total: 2,
    });
    const again = await refusal(nextAnnotationItem(t.db, campaign.id, people.bob!));
    expect(again.message).toMatch(/^you were removed from this campaign/);

    // cat gets the one item short of its two annotators (z); with allItems, dan would get all 3.
    const added = await addCampaignAnnotators(t.db, campaign.id, { annotators: ['cat'] });
    expect(added.added).toEqual([{ userId: people.cat!.id, name: 'cat', items: 1 }]);
    expect((await next('cat')).item.document.id).toBe('z');
    await addUser(t.db, { name: 'dan', role: 'annotator' });
    const all = await addCampaignAnnotators(t.db, campaign.id, {
      annotators: ['dan'],
      allItems: true,
    });
    expect(all.added[0]!.items).toBe(3);
    // Bringing bob back gives him z again (it has ann, cat and dan: 3 ≥ overlap 2, so none
    // with plain adding; with allItems he gets the one he lacks).
    const back = await addCampaignAnnotators(t.db, campaign.id, {
      annotators: ['bob'],
      allItems: true,
    });
    expect(back.added[0]!.items).toBe(1);
    expect(back.campaign.removedAnnotators).toEqual([]);
    expect((await next('bob')).item.document.id).toBe('z');
  });

  it('deletes naming its items, labels and label set; 409 while another campaign compares with it', async () => {
    const { campaign, save } = await setUp();
    await save('ann', 2);
    await save('bob', 2);
    await save('bob', 0);
    const preview = await campaignDeletionPreview(t.db, campaign.id);
    expect(preview).toMatchObject({ items: 3, labels: 3, labelSet: { name: 'k' }, usedBy: [] });
    expect(preview.message).toBe('campaign "k": 3 items, 3 labels and the label set "k"');

    const other = await createCampaign(t.db, {
      collection: 'c',
      name: 'other',
      items: [{ topic: '1', docno: 'x' }],
      scale: { min: 0, max: 3 },
      annotators: ['cat'],
      compareWith: ['k'],
    });
    const refused = await refusal(deleteCampaign(t.db, campaign.id));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('campaign "other"');
    expect((await campaignSummary(t.db, campaign.id)).items).toBe(3);

    const deleted = await deleteCampaign(t.db, campaign.id, { force: true });
    expect(deleted.message).toBe('deleted campaign "k": 3 items, 3 labels and the label set "k"');
    expect((await refusal(campaignSummary(t.db, campaign.id))).code).toBe('not_found');
    expect((await campaignSummary(t.db, other.id)).items).toBe(1);
  });

  it('calls two annotators grading 1 and 2 a tie, three grading 1, 1, 2 a majority', async () => {
    const { campaign, people, save } = await setUp();
    await save('ann', 1);
    await save('bob', 2); // x: {1, 2}
    await save('ann', 3);
    await save('bob', 3); // y: {3, 3} agreed
    const list = await listCampaignDisagreements(t.db, campaign.id);
    expect(list.map((d) => [d.docId, d.status, d.label])).toEqual([['x', 'tie', 1]]);
    const x = await adjudicationItem(t.db, campaign.id, list[0]!.item);
    expect(x).toMatchObject({
      status: 'tie',
      label: 1,
      topic: { id: '1', query: 'the query' },
      document: { id: 'x', text: 'passage x' },
      grades: [
        { annotator: 'ann', grade: 1 },
        { annotator: 'bob', grade: 2 },
      ],
    });
    expect((await adjudicationItem(t.db, campaign.id, list[0]!.item + 1)).status).toBe('agreed');

    await addCampaignAnnotators(t.db, campaign.id, { annotators: ['cat'], allItems: true });
    await saveAnnotationLabel(t.db, campaign.id, people.cat!, { item: list[0]!.item, grade: 1 });
    const after = await listCampaignDisagreements(t.db, campaign.id);
    expect(after.map((d) => [d.docId, d.status, d.label])).toEqual([['x', 'majority', 1]]);
  });
});
