import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ANALYZER_VERSION,
  Bm25Searcher,
  buildIndex,
  DEFAULT_ANALYZER,
  deserializeIndex,
  IndexFileError,
  loadIndex,
  saveIndex,
  serializeIndex,
} from '../src/index.js';

const docs = [
  { id: 'd1', title: 'Supersonic flow', text: 'Shock waves over a wing at Mach 2.' },
  { id: 'd2', text: 'Boundary layers and heat transfer in hypersonic flows.' },
  { id: 'd3', text: 'Wing flutter: the wing bends and twists.' },
];
const dir = mkdtempSync(join(tmpdir(), 'assay-index-'));

describe('saving and loading an index', () => {
  const index = buildIndex(docs, DEFAULT_ANALYZER);

  it('loads back the same index: arrays, vocabulary, fingerprint and rankings', () => {
    const path = join(dir, 'cran.index');
    const bytes = saveIndex(path, index, { k1: 0.9, b: 0.4 }, { assay: 'test' });
    expect(readFileSync(path).length).toBe(bytes);
    const { index: loaded, header } = loadIndex(path, { analyzer: DEFAULT_ANALYZER });
    expect(header).toMatchObject({
      analyzer: DEFAULT_ANALYZER,
      analyzerVersion: ANALYZER_VERSION,
      params: { k1: 0.9, b: 0.4 },
      documents: 3,
      createdBy: { assay: 'test' },
    });
    expect(loaded.data.fingerprint).toBe(index.data.fingerprint);
    expect(loaded.data.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(loaded.data.terms).toEqual(index.data.terms);
    expect(loaded.data.docIds).toEqual(['d1', 'd2', 'd3']);
    for (const key of [
      'docLengths',
      'termOffsets',
      'postingDocs',
      'postingTfs',
      'docTerms',
    ] as const)
      expect([...loaded.data[key]]).toEqual([...index.data[key]]);
    const query = 'wing flows';
    expect(new Bm25Searcher(loaded).search(query, 10)).toEqual(
      new Bm25Searcher(index).search(query, 10),
    );
  });

  it('gives another fingerprint to another collection', () => {
    const other = buildIndex(
      [...docs.slice(0, 2), { id: 'd3', text: 'Wing flutter.' }],
      DEFAULT_ANALYZER,
    );
    expect(other.data.fingerprint).not.toBe(index.data.fingerprint);
  });

  it('fingerprints the documents whatever order they were indexed in', () => {
    const a = { id: 'b2', title: 'T', text: 'second' };
    const b = { id: 'a1', text: 'first' };
    const one = buildIndex([a, b], DEFAULT_ANALYZER).data.fingerprint;
    expect(buildIndex([b, a], DEFAULT_ANALYZER).data.fingerprint).toBe(one);
    // SHA-256 over each document's SHA-256 of `id NUL title NUL text`, in docno byte order.
    const digest = (text: string) => createHash('sha256').update(text).digest();
    const expected = createHash('sha256')
      .update(digest('a1\u0000\u0000first'))
      .update(digest('b2\u0000T\u0000second'))
      .digest('hex');
    expect(one).toBe(`sha256:${expected}`);
    expect(buildIndex([{ ...b, title: '' }, a], DEFAULT_ANALYZER).data.fingerprint).toBe(one);
  });

  it('refuses an index made with another analyzer version', () => {
    const bytes = serializeIndex(index, { k1: 0.9, b: 0.4 });
    const text = bytes.toString('latin1');
    const at = text.indexOf(`"analyzerVersion":${ANALYZER_VERSION}`);
    expect(at).toBeGreaterThan(0);
    const patched = Buffer.from(bytes);
    patched.write(`"analyzerVersion":9`, at, 'latin1');
    const path = join(dir, 'old.index');
    writeFileSync(path, patched);
    expect(() => loadIndex(path)).toThrow(IndexFileError);
    expect(() => loadIndex(path)).toThrow(/analyzer version 9.*rebuild/);
  });

  it('refuses an index whose analyzer differs from the one asked for', () => {
    const bytes = serializeIndex(index, { k1: 0.9, b: 0.4 });
    expect(() =>
      deserializeIndex(bytes, 'x.index', { analyzer: { stemmer: 'none', stopwords: 'english' } }),
    ).toThrow(/x\.index: index analyzer is porter\+english-stopwords v1, not the requested none/);
  });

  it('refuses a file that is not an index, a truncated one, and a missing one', () => {
    expect(() => deserializeIndex(Buffer.from('1 Q0 d1 1 1 run\n'), 'run.txt')).toThrow(
      'run.txt: not an assay index',
    );
    const bytes = serializeIndex(index, { k1: 0.9, b: 0.4 });
    expect(() => deserializeIndex(bytes.subarray(0, bytes.length - 16), 'cut')).toThrow(
      'cut: truncated index file',
    );
    expect(() => loadIndex(join(dir, 'missing.index'))).toThrow(
      /missing\.index: cannot read index/,
    );
  });

  it('reads from unaligned bytes too', () => {
    const bytes = serializeIndex(index, { k1: 0.9, b: 0.4 });
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const { index: loaded } = deserializeIndex(shifted.subarray(1));
    expect(new Bm25Searcher(loaded).search('wing', 3)).toEqual(
      new Bm25Searcher(index).search('wing', 3),
    );
  });
});
