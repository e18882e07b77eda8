import { expect, it } from 'vitest';
import { forEachDatabase } from '../../db/test/helpers.js';
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
// collection, for runs and label sets), else the name; anything else is the name.
forEachDatabase('the naming rule', (t) => {
  const collection = (name: string) =>
    importCollection(t.db, { name, format: 'tsv', file: 'd', text: 'a\tx\n' });
  const run = (c: string, name: string) =>
    importRun(t.db, { collection: c, name, file: `${name}.run`, text: RUN });

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
    await importQrels(t.db, {
      collection: 'c',
      labelSet: String(nist.labelSetId),
      file: 'q',
      text: QRELS,
    });
    await importQrels(t.db, { collection: 'c', labelSet: '31337', file: 'q', text: QRELS });
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
});
