import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDiskIndex, DiskBm25Index, DiskBm25Searcher } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-disk-header-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the on-disk index's header", () => {
  it('names the offsets its sections were written at, whatever the collection size', () => {
    // The header's length depends on the offsets it records; a header written from an
    // earlier layout than the one used put sections where the header does not say (one
    // to two documents failed to open as corrupt). Every size from 1 to 40 opens and finds
    // the term every document holds in every document.
    for (let n = 1; n <= 40; n++) {
      const path = join(dir, `${n}.index`);
      buildDiskIndex(
        Array.from({ length: n }, (_, i) => ({ id: `d${i + 1}`, text: `w${i} shared` })),
        path,
        { analyzer: { stemmer: 'none', stopwords: 'none' } },
      );
      const index = DiskBm25Index.open(path);
      expect(index.documentCount).toBe(n);
      expect(new DiskBm25Searcher(index).search('shared', 1000)).toHaveLength(n);
      index.close();
    }
  });
});
