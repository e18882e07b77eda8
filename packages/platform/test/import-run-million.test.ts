// A million-line run (parsing it twice takes seconds on a loaded machine: a slow test).
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { importCollection, importRun } from '../src/index.js';
import { bigRun, rejection, snapshotCounts } from './helpers.js';

const TINY = { name: 'c', format: 'tsv', file: 'docs.tsv', text: 'd1\ttext one\n' } as const;

forEachDatabase('importRun of a million lines', (t) => {
  it('keeps nothing of a million-line run with a bad line or a duplicate at line 900,000', async () => {
    await importCollection(t.db, TINY);
    await importRun(t.db, { collection: 'c', file: 'small', text: '1 Q0 d1 1 1 small\n' });
    const before = await snapshotCounts(t.db);
    const bad = bigRun(1_000_000, 'big', { line: 900_000, text: '900 Q0 doc900000 1000' });
    const badError = await rejection(
      importRun(t.db, { collection: 'c', file: 'bad.run', text: bad }),
    );
    expect(badError).toMatchObject({
      code: 'invalid_input',
      message: 'bad.run:900000: expected 6 fields (qid Q0 docno rank score tag), found 4',
    });
    // Lines 899,001 to 900,000 are topic 900's: line 900,000 repeats line 899,001's docno.
    const dup = bigRun(1_000_000, 'big', {
      line: 900_000,
      text: '900 Q0 doc899001 1000 0.5 big',
    });
    const dupError = await rejection(
      importRun(t.db, { collection: 'c', file: 'dup.run', text: dup }),
    );
    expect(dupError).toMatchObject({
      code: 'invalid_input',
      message: 'dup.run:900000: duplicate docno "doc899001" for topic "900" (first at line 899001)',
    });
    expect(await snapshotCounts(t.db)).toEqual(before);
  }, 120_000);
});
