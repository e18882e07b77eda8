// The header both index files start with: one declaration, the same checks and messages
// for the index saved whole and the on-disk index.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ANALYZER_VERSION,
  buildDiskIndex,
  buildIndex,
  DiskBm25Index,
  loadIndex,
  readDiskIndexHeader,
  saveIndex,
  type AnalyzerConfig,
} from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-index-header-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plain: AnalyzerConfig = { stemmer: 'none', stopwords: 'none' };
const docs = [
  { id: 'd1', text: 'wing flutter wing' },
  { id: 'd2', text: 'flutter' },
];

/** Both files of the same two documents: the index saved whole and the on-disk one. */
function bothFiles(): { whole: string; disk: string } {
  const whole = join(dir, 'whole.index');
  saveIndex(whole, buildIndex(docs, plain), { k1: 1.2, b: 0.75 }, { assay: 't' });
  const disk = join(dir, 'disk.index');
  buildDiskIndex(docs, disk, {
    analyzer: plain,
    params: { k1: 1.2, b: 0.75 },
    createdBy: { assay: 't' },
  });
  return { whole, disk };
}

/** `path`'s bytes with the u32 at `at` (8: the layout version) set to `value`, as a new file. */
function patchedU32(path: string, at: number, value: number): string {
  const bytes = Buffer.from(readFileSync(path));
  bytes.writeUInt32LE(value, at);
  const out = `${path}.v${value}`;
  writeFileSync(out, bytes);
  return out;
}

/** `path`'s bytes with its analyzer version changed to 9, as a new file. */
function otherAnalyzerVersion(path: string): string {
  const text = readFileSync(path).toString('latin1');
  const key = `"analyzerVersion":${ANALYZER_VERSION}`;
  expect(text.indexOf(key)).toBeGreaterThan(0);
  const out = `${path}.a9`;
  writeFileSync(out, Buffer.from(text.replace(key, '"analyzerVersion":9'), 'latin1'));
  return out;
}

describe('the index header', () => {
  it('records the same common fields in both files', () => {
    const { whole, disk } = bothFiles();
    // Terms: wing, flutter; postings: (wing, d1), (flutter, d1), (flutter, d2).
    const common = {
      analyzer: plain,
      analyzerVersion: ANALYZER_VERSION,
      params: { k1: 1.2, b: 0.75 },
      documents: 2,
      terms: 2,
      postings: 3,
      createdBy: { assay: 't' },
    };
    const a = loadIndex(whole).header;
    const b = readDiskIndexHeader(disk);
    expect(a).toMatchObject({ ...common, format: 1 });
    expect(b).toMatchObject({ ...common, format: 1 });
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it('refuses a file of the other kind, each naming its own', () => {
    const { whole, disk } = bothFiles();
    expect(() => loadIndex(disk)).toThrow(
      `${disk}: not an assay index (made with assay index build)`,
    );
    expect(() => DiskBm25Index.open(whole)).toThrow(
      `${whole}: not an assay on-disk index (made with buildDiskIndex)`,
    );
    const short = join(dir, 'short.index');
    writeFileSync(short, 'ASSAYBMD');
    expect(() => DiskBm25Index.open(short)).toThrow(
      `${short}: not an assay on-disk index (too short)`,
    );
    expect(() => loadIndex(short)).toThrow(
      `${short}: not an assay index (made with assay index build)`,
    );
  });

  it('refuses another layout version, saying how to rebuild', () => {
    const { whole, disk } = bothFiles();
    const w = patchedU32(whole, 8, 2);
    expect(() => loadIndex(w)).toThrow(
      `${w}: index file format 2, this assay reads format 1: rebuild it with assay index build`,
    );
    const d = patchedU32(disk, 8, 3);
    expect(() => DiskBm25Index.open(d)).toThrow(
      `${d}: on-disk index format 3, this assay reads format 1: rebuild it`,
    );
  });

  it('refuses a header longer than the file', () => {
    const { whole, disk } = bothFiles();
    for (const path of [whole, disk]) {
      const size = readFileSync(path).length;
      const long = patchedU32(path, 12, size);
      expect(() => (path === whole ? loadIndex(long) : DiskBm25Index.open(long))).toThrow(
        `${long}: truncated index header`,
      );
    }
  });

  it('refuses another analyzer version, and another analyzer when one is asked for', () => {
    const { whole, disk } = bothFiles();
    const w = otherAnalyzerVersion(whole);
    expect(() => loadIndex(w)).toThrow(
      `${w}: index made with analyzer version 9, this assay analyses text with version ${ANALYZER_VERSION}: rebuild it with assay index build`,
    );
    const d = otherAnalyzerVersion(disk);
    expect(() => DiskBm25Index.open(d)).toThrow(
      `${d}: index made with analyzer version 9, this assay analyses text with version ${ANALYZER_VERSION}: rebuild it`,
    );
    const porter: AnalyzerConfig = { stemmer: 'porter', stopwords: 'none' };
    expect(() => loadIndex(whole, { analyzer: porter })).toThrow(
      `${whole}: index analyzer is none+none-stopwords v1, not the requested porter+none-stopwords v1`,
    );
    expect(() => DiskBm25Index.open(disk, { analyzer: porter })).toThrow(
      `${disk}: index analyzer is none+none-stopwords v1, not the requested porter+none-stopwords v1`,
    );
  });
});
