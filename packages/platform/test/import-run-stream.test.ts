// A run is parsed while it is written: what a parse of the whole file decided still holds
// when a topic's lines are not consecutive, when the last line is bad, and for its name.
import { getRunEntries } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { importCollection, importRun } from '../src/index.js';
import { rejection, snapshotCounts } from './helpers.js';

const TINY = { name: 'c', format: 'tsv', file: 'docs.tsv', text: 'd1\ttext one\n' } as const;

forEachDatabase('importRun while parsing', (t) => {
  it('refuses a docno repeated within a topic whose lines are apart, naming both lines', async () => {
    await importCollection(t.db, TINY);
    const before = await snapshotCounts(t.db);
    // Topic 1's d2 is on lines 1 and 4, with topic 2 between them.
    const text = '1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n2 Q0 d1 1 1 r\n1 Q0 d2 3 0.5 r\n';
    const error = await rejection(importRun(t.db, { collection: 'c', file: 'a.run', text }));
    expect(error).toMatchObject({
      code: 'invalid_input',
      message: 'a.run:4: duplicate docno "d2" for topic "1" (first at line 1)',
    });
    // The repeat on line 4 comes before the bad line 5: it is the error reported.
    const worse = await rejection(
      importRun(t.db, { collection: 'c', file: 'b.run', text: text + '3 Q0 d1 x 1 r\n' }),
    );
    expect(worse.message).toBe('b.run:4: duplicate docno "d2" for topic "1" (first at line 1)');
    expect(await snapshotCounts(t.db)).toEqual(before);
  });

  it('stores a topic whose lines are apart whole, with its ranks, and counts it once', async () => {
    await importCollection(t.db, TINY);
    const r = await importRun(t.db, {
      collection: 'c',
      file: 'a.run',
      text: '1 Q0 d2 1 2 first\n2 Q0 d1 1 1 first\n# comment\n1 Q0 d1 2 1 last\n\n',
    });
    expect(r).toMatchObject({ name: 'last', entries: 3, topics: 2 });
    expect(r.run).toMatchObject({ tag: 'last', entryCount: 3, topicCount: 2 });
    expect((await getRunEntries(t.db, r.runId)).get('1')).toEqual([
      { topicId: '1', docId: 'd2', rank: 1, score: 2 },
      { topicId: '1', docId: 'd1', rank: 2, score: 1 },
    ]);
  });

  it('reports a bad line before an unknown collection or a taken name', async () => {
    await importCollection(t.db, TINY);
    await importRun(t.db, { collection: 'c', file: 'a.run', text: '1 Q0 d1 1 1 r\n' });
    const bad = '1 Q0 d1 one 1 r\n1 Q0 d2 2 1 r\n';
    const unknown = await rejection(importRun(t.db, { collection: 'nope', file: 'b', text: bad }));
    expect(unknown.message).toBe('b:1: rank "one" is not an integer');
    const taken = await rejection(importRun(t.db, { collection: 'c', file: 'b', text: bad }));
    expect(taken.message).toBe('b:1: rank "one" is not an integer');
  });

  it('names a run after its last line even when a later line is only a comment', async () => {
    await importCollection(t.db, TINY);
    const r = await importRun(t.db, {
      collection: 'c',
      file: 'a.run',
      text: '\uFEFF1 Q0 d1 1 1 one\r\n1 Q0 d2 2 1 two\r\n#x y z\r\n',
    });
    expect(r.name).toBe('two');
  });
});
