import {
  createCollection,
  createLabelSet,
  createRun,
  insertLabels,
  withTransaction,
} from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  getCollectionSummary,
  getLabelSetSummary,
  getRunSummary,
  importCollection,
  importQrels,
  importRun,
  resolveCollection,
  resolveLabelSet,
  resolveRun,
} from '../src/index.js';
import { rejection } from './helpers.js';

const RUN = '1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n';
const QRELS = '1 0 a 1\n1 0 b 0\n';

// The one naming rule: a numeric reference is the id when such a row exists (in the
// collection, for runs and label sets), else the name; anything else is the name. New
// names may not be all digits; a database written before that rule may hold such names,
// which the tests below store directly, as such a database holds them.
forEachDatabase('the naming rule', (t) => {
  const collection = async (name: string) => {
    if (!/^[0-9]+$/.test(name))
      return importCollection(t.db, { name, format: 'tsv', file: 'd', text: 'a\tx\n' });
    const made = await createCollection(t.db, { name });
    return { collectionId: made.id };
  };
  const run = async (c: string, name: string) => {
    if (!/^[0-9]+$/.test(name))
      return importRun(t.db, { collection: c, name, file: `${name}.run`, text: RUN });
    const collectionId = (await resolveCollection(t.db, c)).id;
    const made = await createRun(t.db, {
      collectionId,
      name,
      tag: 'tag',
      entries: [
        { topicId: '1', docId: 'a', rank: 1, score: 3 },
        { topicId: '1', docId: 'b', rank: 2, score: 2 },
      ],
    });
    return { runId: made.id };
  };
  const legacyLabelSet = (collectionId: number, name: string) =>
    withTransaction(t.db, async (trx) => {
      const set = await createLabelSet(trx, {
        collectionId,
        name,
        kind: 'human_qrels',
        scaleMin: 0,
        scaleMax: 1,
        config: {},
      });
      await insertLabels(trx, set.id, [
        { topicId: '1', docId: 'a', grade: 1 },
        { topicId: '1', docId: 'b', grade: 0 },
      ]);
    });

  it('finds a run by its id before a run named like that id, and by name otherwise', async () => {
    await collection('c');
    await collection('other');
    const first = await run('c', 'first');
    const elsewhere = await run('other', 'elsewhere');
    // A run named like the id of "first": that reference means "first" (the id wins).
    await run('c', String(first.runId));
    const numeric = await run('c', '987654321');
    const c = await resolveCollection(t.db, 'c');

    expect((await resolveRun(t.db, c, String(first.runId))).name).toBe('first');
    expect((await resolveRun(t.db, c, first.runId)).name).toBe('first');
    expect((await resolveRun(t.db, c, 'first')).id).toBe(first.runId);
    // No run has id 987654321: the name answers; the summary counts that run's entries.
    expect((await resolveRun(t.db, c, '987654321')).id).toBe(numeric.runId);
    expect(await getRunSummary(t.db, 'c', '987654321')).toMatchObject({
      id: numeric.runId,
      entryCount: 2,
      topicCount: 1,
    });
    // The id of a run of another collection is not this collection's run.
    const error = await rejection(resolveRun(t.db, c, String(elsewhere.runId)));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`no run "${elsewhere.runId}" in collection "c"`);
  });

  it('applies the same rule to label sets and collections', async () => {
    const made = await collection('c');
    const nist = await importQrels(t.db, {
      collection: 'c',
      labelSet: 'nist',
      file: 'q',
      text: QRELS,
    });
    await legacyLabelSet(made.collectionId, String(nist.labelSetId));
    await legacyLabelSet(made.collectionId, '31337');
    const c = await resolveCollection(t.db, made.collectionId);
    expect(c.name).toBe('c');
    expect(await getCollectionSummary(t.db, String(made.collectionId))).toMatchObject({
      name: 'c',
      documentCount: 1,
      topicCount: 0,
    });

    expect((await resolveLabelSet(t.db, c, String(nist.labelSetId))).name).toBe('nist');
    expect((await resolveLabelSet(t.db, c, '31337')).name).toBe('31337');
    expect(await getLabelSetSummary(t.db, 'c', '31337')).toMatchObject({
      name: '31337',
      labelCount: 2,
      topicCount: 1,
    });

    // A collection named like another's id loses to that id; by a non-numeric name it is found.
    await collection(String(made.collectionId));
    expect((await resolveCollection(t.db, String(made.collectionId))).name).toBe('c');
    const other = await collection('424242');
    expect((await resolveCollection(t.db, '424242')).id).toBe(other.collectionId);
    expect((await rejection(resolveCollection(t.db, 'nope'))).code).toBe('not_found');
  });

  it('refuses new names that are all digits, naming the field and the rule', async () => {
    const rule = 'a name may not be all digits (a number in a path or argument means an id)';
    // Names are trimmed first, so " 42 " is the name "42".
    const refused = await rejection(
      importCollection(t.db, { name: ' 42 ', format: 'tsv', file: 'd', text: 'a\tx\n' }),
    );
    expect(refused).toMatchObject({
      code: 'invalid_input',
      message: `collection name "42": ${rule}`,
    });
    await collection('c');
    expect(
      await rejection(importRun(t.db, { collection: 'c', name: '7', file: 'r', text: RUN })),
    ).toMatchObject({ code: 'invalid_input', message: `run name "7": ${rule}` });
    // A run named after its tag: an all-digit tag needs a name of the user's choosing.
    const digitTag = '1 Q0 a 1 3.0 2024\n';
    expect(
      await rejection(importRun(t.db, { collection: 'c', file: 'r', text: digitTag })),
    ).toMatchObject({
      code: 'invalid_input',
      message:
        'run tag "2024" is all digits and cannot name the run (a number means an id); give the run a name',
    });
    expect(
      (await importRun(t.db, { collection: 'c', name: 'run-2024', file: 'r', text: digitTag }))
        .name,
    ).toBe('run-2024');
    expect(
      await rejection(
        importQrels(t.db, { collection: 'c', labelSet: '0', file: 'q', text: QRELS }),
      ),
    ).toMatchObject({ code: 'invalid_input', message: `label set name "0": ${rule}` });
    // Digits among other characters are a name like any other.
    expect((await collection('2024-trec')).collectionId).toBeGreaterThan(0);
  });
});
