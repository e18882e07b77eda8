import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import {
  Bm25Searcher,
  buildDiskIndex,
  buildIndex,
  DEFAULT_ANALYZER,
  DiskBm25Index,
  DiskBm25Searcher,
  DiskIndexBuilder,
  IndexFileError,
  type AnalyzerConfig,
  type IndexableDocument,
} from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-disk-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plain: AnalyzerConfig = { stemmer: 'none', stopwords: 'none' };

describe('the on-disk BM25 index', () => {
  it('keeps no spill file where a killed build could leave it, and still merges its runs', () => {
    const folder = mkdtempSync(join(dir, 'spills-'));
    const builder = new DiskIndexBuilder(join(folder, 'x.index'), {
      analyzer: plain,
      memoryBudget: 16 * 16,
    });
    for (let d = 0; builder.runCount < 3; d++)
      builder.add({ id: `d${d}`, text: `w${d} w${d + 1} w${d + 2} w${d + 3} w${d + 4} w${d + 5}` });
    // The runs spilled so far are files without a name: the system frees them when the
    // builder's process ends, however it ends.
    expect(readdirSync(folder)).toEqual([]);
    const summary = builder.finish();
    expect(summary).toMatchObject({ documents: builder.size, runs: 4 });
    expect(readdirSync(folder)).toEqual(['x.index']);
    const index = DiskBm25Index.open(join(folder, 'x.index'));
    expect(index.documentCount).toBe(builder.size);
    index.close();
  });

  it('scores a query as BM25 computed by hand', () => {
    const path = join(dir, 'hand.index');
    const summary = buildDiskIndex(
      [
        { id: 'd1', text: 'apple banana apple' },
        { id: 'd2', text: 'banana cherry' },
        { id: 'd3', text: 'cherry cherry cherry date' },
      ],
      path,
      { analyzer: plain },
    );
    expect(summary).toMatchObject({ documents: 3, terms: 4, postings: 6, runs: 1 });
    const index = DiskBm25Index.open(path);
    // N = 3, average length (3 + 2 + 4) / 3 = 3, k1 = 0.9, b = 0.4.
    const idfApple = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)); // df 1
    const idfCherry = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)); // df 2
    const norm = (dl: number) => 0.9 * (1 - 0.4 + (0.4 * dl) / 3);
    const d1 = (idfApple * 2) / (2 + norm(3));
    const d2 = (idfCherry * 1) / (1 + norm(2));
    const d3 = (idfCherry * 3) / (3 + norm(4));
    expect(d1 > d3 && d3 > d2).toBe(true);
    for (const pruning of [false, true]) {
      const hits = new DiskBm25Searcher(index, { k1: 0.9, b: 0.4 }, pruning).search(
        'apple cherry',
        10,
      );
      expect(hits.map((h) => h.docno)).toEqual(['d1', 'd3', 'd2']);
      expect(hits[0]!.score).toBeCloseTo(d1, 12);
      expect(hits[1]!.score).toBeCloseTo(d3, 12);
      expect(hits[2]!.score).toBeCloseTo(d2, 12);
    }
    expect(index.termNumber('banana')).toBe(1); // apple, banana, cherry, date
    expect(index.termNumber('elderberry')).toBe(-1);
    expect(index.df(index.termNumber('cherry'))).toBe(2);
    index.close();
  });

  describe('on a seeded random collection of 20,000 documents', () => {
    let seed = 20_240_601;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x`);
    // Roughly Zipfian: rank r drawn with probability about 1/r.
    const draw = () => words[Math.min(2999, Math.floor(Math.exp(random() * Math.log(3000))) - 1)]!;
    const docs: IndexableDocument[] = Array.from({ length: 20_000 }, (_, d) => ({
      // Docnos not in index order, so ties are broken by docno, not by position.
      id: `doc${(d * 7919) % 20_000}`,
      ...(d % 5 === 0 ? { title: draw() } : {}),
      text: Array.from({ length: 1 + Math.floor(random() * 60) }, draw).join(' '),
    }));
    const queries = Array.from({ length: 40 }, () =>
      Array.from({ length: 2 + Math.floor(random() * 5) }, draw).join(' '),
    );
    const memory = buildIndex(docs, DEFAULT_ANALYZER);
    const path = join(dir, 'random.index');
    // A budget of 40,000 postings (16 bytes each) spills several runs.
    const summary = buildDiskIndex(docs, path, { memoryBudget: 16 * 40_000, tempDir: dir });
    const disk = DiskBm25Index.open(path, { analyzer: DEFAULT_ANALYZER, cacheBytes: 100_000 });

    it('spills sorted runs and merges them into one file, leaving no temporaries', () => {
      expect(summary.runs).toBeGreaterThan(5);
      expect(summary.documents).toBe(20_000);
      expect(summary.postings).toBe(memory.postingCount);
      expect(summary.terms).toBe(memory.data.terms.length);
      expect(summary.fingerprint).toBe(memory.data.fingerprint);
      expect(readdirSync(dir).filter((f) => f.startsWith('.assay-index-run'))).toEqual([]);
    });

    it('gives the in-memory top 100 (docnos and scores), with MaxScore and without', () => {
      for (const params of [
        { k1: 0.9, b: 0.4 },
        { k1: 1.2, b: 0.75 },
      ]) {
        const expected = new Bm25Searcher(memory, params, false);
        for (const pruning of [false, true]) {
          const searcher = new DiskBm25Searcher(disk, params, pruning);
          for (const query of queries) {
            const want = expected.search(query, 100).map(({ docno, score }) => ({ docno, score }));
            const got = searcher.search(query, 100).map(({ docno, score }) => ({ docno, score }));
            expect(want.length).toBeGreaterThan(0);
            expect(got).toEqual(want);
          }
        }
      }
    });

    it('reads documents by number as the in-memory index numbers them', () => {
      const hits = new DiskBm25Searcher(disk).search(queries[0]!, 5);
      const same = new Bm25Searcher(memory).search(queries[0]!, 5);
      expect(hits.map((h) => h.doc)).toEqual(same.map((h) => h.doc));
      expect(disk.memoryBytes).toBeLessThan(2_000_000);
    });
  });

  it('refuses a truncated or foreign file with a clear error', () => {
    const path = join(dir, 'small.index');
    buildDiskIndex(
      [
        { id: 'a', text: 'one two three' },
        { id: 'b', text: 'two three four' },
      ],
      path,
    );
    const bytes = readFileSync(path);
    const truncated = join(dir, 'truncated.index');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 10));
    expect(() => DiskBm25Index.open(truncated)).toThrow(IndexFileError);
    expect(() => DiskBm25Index.open(truncated)).toThrow(/truncated index file/);
    const headerOnly = join(dir, 'header-only.index');
    writeFileSync(headerOnly, bytes.subarray(0, 20));
    expect(() => DiskBm25Index.open(headerOnly)).toThrow(/truncated index header/);
    const foreign = join(dir, 'foreign.index');
    writeFileSync(foreign, 'docno\ttext\nd1\thello\n');
    expect(() => DiskBm25Index.open(foreign)).toThrow(/not an assay on-disk index/);
    const corrupt = Buffer.from(bytes);
    const table = corrupt.indexOf('"termDf"');
    expect(table).toBeGreaterThan(0);
    // Scribble over the term table's dfs (after the header): the sections no longer agree.
    const header = JSON.parse(corrupt.toString('utf8', 16, 16 + corrupt.readUInt32LE(12))) as {
      sections: { termDf: { offset: number } };
    };
    corrupt.writeUInt32LE(999, header.sections.termDf.offset);
    const scribbled = join(dir, 'corrupt.index');
    writeFileSync(scribbled, corrupt);
    expect(() => DiskBm25Index.open(scribbled)).toThrow(/corrupt index/);
    expect(() => DiskBm25Index.open(path, { analyzer: plain })).toThrow(/index analyzer is/);
    expect(() => DiskBm25Index.open(join(dir, 'missing.index'))).toThrow(/cannot read index/);
  });
});
