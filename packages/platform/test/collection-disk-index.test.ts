import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocumentsFingerprint, insertDocuments } from '@assay/db';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  buildCollectionDiskIndex,
  collectionIndexFile,
  getCollectionDiskIndexState,
  startCollectionDiskIndexBuild,
  storedCollectionDiskIndex,
  type CollectionDiskIndexState,
} from '../src/retrieval/disk-index.js';
import { importCollection, resolveCollection } from '../src/index.js';
import { rejection } from './helpers.js';

forEachDatabase("a stored collection's on-disk index", (t) => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assay-disk-index-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const demo = async () => {
    await importCollection(t.db, {
      name: 'demo',
      format: 'tsv',
      file: 'd.tsv',
      text: 'd1\twing flutter\nd2\tshock waves\n',
    });
    return resolveCollection(t.db, 'demo');
  };

  it('records the fingerprint of the documents it read, and refuses the index once documents are added', async () => {
    const collection = await demo();
    // Nothing recorded before anything needed it.
    expect((await getDocumentsFingerprint(t.db, collection.id))?.fingerprint).toBeNull();
    const built = await buildCollectionDiskIndex(t.db, dataDir, { collection: 'demo' });
    expect(built.documents).toBe(2);
    // Recorded with the index: the next check compares it without reading the documents.
    expect((await getDocumentsFingerprint(t.db, collection.id))?.fingerprint).toBe(
      built.fingerprint,
    );
    const lease = await storedCollectionDiskIndex(t.db, dataDir, collection);
    expect(lease?.index.header.fingerprint).toBe(built.fingerprint);
    expect(lease?.index.documentCount).toBe(2);
    lease?.release();

    // A document added after the build: the index no longer matches the collection.
    await insertDocuments(t.db, collection.id, [{ docId: 'd3', text: 'heat transfer' }]);
    expect((await getDocumentsFingerprint(t.db, collection.id))?.fingerprint).toBeNull();
    const stale = await rejection(storedCollectionDiskIndex(t.db, dataDir, collection));
    expect(stale.code).toBe('conflict');
    expect(stale.message).toContain('was built from other documents');
    // Computed from the three documents and recorded: a different fingerprint than the build's.
    const recorded = (await getDocumentsFingerprint(t.db, collection.id))?.fingerprint;
    expect(recorded).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recorded).not.toBe(built.fingerprint);

    // Rebuilt: three documents, used again.
    const rebuilt = await buildCollectionDiskIndex(t.db, dataDir, { collection: 'demo' });
    expect(rebuilt).toMatchObject({ documents: 3, replaced: true, fingerprint: recorded });
    const again = await storedCollectionDiskIndex(t.db, dataDir, collection);
    expect(again?.index.documentCount).toBe(3);
    again?.release();
  });

  /** Polls the index's state until no build runs. */
  async function settled(): Promise<CollectionDiskIndexState> {
    for (;;) {
      const state = await getCollectionDiskIndexState(t.db, dataDir, 'demo');
      if (state.state !== 'building') return state;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('builds in the background: absent, building, then ready and fresh until documents are added', async () => {
    const collection = await demo();
    expect(await getCollectionDiskIndexState(t.db, dataDir, 'demo')).toEqual({
      state: 'absent',
      collection: 'demo',
    });
    const started = await startCollectionDiskIndexBuild(t.db, dataDir, { collection: 'demo' });
    expect(started).toMatchObject({ state: 'building', collection: 'demo', documentsRead: 0 });
    const ready = await settled();
    const file = collectionIndexFile(dataDir, collection);
    // Two documents; four terms: wing, flutter, shock, wave(s).
    expect(ready).toMatchObject({
      state: 'ready',
      file,
      documents: 2,
      terms: 4,
      bytes: statSync(file).size,
      fresh: true,
    });

    await insertDocuments(t.db, collection.id, [{ docId: 'd3', text: 'heat transfer' }]);
    expect(await getCollectionDiskIndexState(t.db, dataDir, 'demo')).toMatchObject({
      state: 'ready',
      documents: 2,
      fresh: false,
    });
  });

  it('starts one build of two asked for at the same time; the other is a conflict', async () => {
    await demo();
    const both = await Promise.allSettled([
      startCollectionDiskIndexBuild(t.db, dataDir, { collection: 'demo' }),
      startCollectionDiskIndexBuild(t.db, dataDir, { collection: 'demo' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'conflict' });
    expect((refused.reason as Error).message).toMatch(
      /^the on-disk index of collection "demo" is being built \(started at /,
    );
    expect(await settled()).toMatchObject({ state: 'ready', documents: 2 });
  });

  it('tells a failed build with its reason, and a build that succeeds after it', async () => {
    await demo();
    // A file where the indexes folder goes: the build cannot write there.
    writeFileSync(join(dataDir, 'indexes'), 'not a folder');
    await startCollectionDiskIndexBuild(t.db, dataDir, { collection: 'demo' });
    const failed = await settled();
    expect(failed).toMatchObject({ state: 'failed', collection: 'demo' });
    expect((failed as { reason: string }).reason).toMatch(/EEXIST|ENOTDIR/);
    rmSync(join(dataDir, 'indexes'));
    await startCollectionDiskIndexBuild(t.db, dataDir, { collection: 'demo' });
    expect(await settled()).toMatchObject({ state: 'ready', documents: 2, fresh: true });
  });

  it('keeps a replaced index open until the retrievals using it release it', async () => {
    const collection = await demo();
    await buildCollectionDiskIndex(t.db, dataDir, { collection: 'demo' });
    const first = (await storedCollectionDiskIndex(t.db, dataDir, collection))!;
    const second = (await storedCollectionDiskIndex(t.db, dataDir, collection))!;
    // Two retrievals share one open index.
    expect(second.index).toBe(first.index);
    second.release();

    await buildCollectionDiskIndex(t.db, dataDir, { collection: 'demo' });
    const fresh = (await storedCollectionDiskIndex(t.db, dataDir, collection))!;
    expect(fresh.index).not.toBe(first.index);
    // Still in use by the first retrieval: open, and it still reads postings.
    expect(first.index.closed).toBe(false);
    expect(first.index.termNumber('flutter')).toBeGreaterThanOrEqual(0);
    first.release();
    expect(first.index.closed).toBe(true);
    // Releasing twice does not count twice.
    first.release();
    expect(fresh.index.closed).toBe(false);
    fresh.release();
    // The current index stays open for the next retrieval.
    expect(fresh.index.closed).toBe(false);

    // Replaced while nobody used it: closed when the new one is opened.
    await buildCollectionDiskIndex(t.db, dataDir, { collection: 'demo' });
    const newest = (await storedCollectionDiskIndex(t.db, dataDir, collection))!;
    expect(fresh.index.closed).toBe(true);
    expect(newest.index.closed).toBe(false);
    newest.release();
  });
});
