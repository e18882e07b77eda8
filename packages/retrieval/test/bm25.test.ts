import { describe, expect, it } from 'vitest';
import {
  analyzeQuery,
  Bm25Searcher,
  buildIndex,
  createAnalyzer,
  retrieveRun,
  type AnalyzerConfig,
} from '../src/index.js';

const PLAIN: AnalyzerConfig = { stemmer: 'none', stopwords: 'none' };

describe('analysis', () => {
  it('lowercases Unicode text, drops English stopwords and Porter-stems', () => {
    const a = createAnalyzer();
    expect(a.analyze('The Flows of RUNNING engines')).toEqual(['flow', 'run', 'engin']);
  });

  it('splits on anything but letters and digits and lowercases beyond ASCII', () => {
    const a = createAnalyzer(PLAIN);
    expect(a.analyze('ÉTÉ, Ça-va; x² Straße')).toEqual(['été', 'ça', 'va', 'x2', 'straße']);
  });

  it('takes an explicit stopword list', () => {
    const a = createAnalyzer({ stemmer: 'none', stopwords: ['Wing'] });
    expect(a.analyze('wing and tail')).toEqual(['and', 'tail']);
  });
});

describe('BM25 on a tiny corpus', () => {
  // N = 3, avgdl = 3. df(a) = df(b) = df(c) = 2, df(d) = 1.
  // idf(df=2) = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln(1.6); idf(df=1) = ln(1 + 2.5/1.5) = ln(8/3).
  // k1·(1 − b + b·dl/avgdl) with k1 = 0.9, b = 0.4: d1 (dl 2) 0.78, d2 (dl 3) 0.9, d3 (dl 4) 1.02.
  const index = buildIndex(
    [
      { id: 'd1', text: 'a b' },
      { id: 'd2', text: 'a a c' },
      { id: 'd3', title: 'b c', text: 'c d' },
    ],
    PLAIN,
  );
  const searcher = new Bm25Searcher(index);

  it('scores one term as Lucene does', () => {
    const hits = searcher.search('a', 10);
    expect(hits.map((h) => h.docno)).toEqual(['d2', 'd1']);
    expect(hits[0]!.score).toBeCloseTo((Math.log(1.6) * 2) / (2 + 0.9), 12); // 0.324141
    expect(hits[1]!.score).toBeCloseTo((Math.log(1.6) * 1) / (1 + 0.78), 12); // 0.264047
  });

  it('sums terms, counts repeated query terms, and indexes the title with the text', () => {
    const hits = searcher.search('c d d', 10);
    // d3 (title "b c" + text "c d"): tf(c) = 2, tf(d) = 1; d2: tf(c) = 1.
    const d3 = (Math.log(1.6) * 2) / (2 + 1.02) + 2 * ((Math.log(8 / 3) * 1) / (1 + 1.02));
    const d2 = (Math.log(1.6) * 1) / (1 + 0.9);
    expect(hits.map((h) => h.docno)).toEqual(['d3', 'd2']);
    expect(hits[0]!.score).toBeCloseTo(d3, 12);
    expect(hits[1]!.score).toBeCloseTo(d2, 12);
  });

  it('takes other k1 and b', () => {
    const hits = new Bm25Searcher(index, { k1: 1.2, b: 0.75 }).search('a', 1);
    // d2: dl = avgdl, so the length factor is k1 = 1.2.
    expect(hits[0]!.score).toBeCloseTo((Math.log(1.6) * 2) / (2 + 1.2), 12);
  });

  it('ignores unknown query terms and returns nothing for a query without known terms', () => {
    expect(analyzeQuery(index, 'zzz a').size).toBe(1);
    expect(searcher.search('zzz', 10)).toEqual([]);
  });
});

describe('ties', () => {
  // Equal documents score equally; trec_eval then ranks by docno descending (byte order):
  // "9" > "100" > "10" > "1".
  const index = buildIndex(
    ['10', '9', '1', '100'].map((id) => ({ id, text: 'wing' })),
    PLAIN,
  );

  it('orders equal scores by docno descending, as trec_eval does', () => {
    const searcher = new Bm25Searcher(index);
    expect(searcher.search('wing', 10).map((h) => h.docno)).toEqual(['9', '100', '10', '1']);
  });

  it('keeps the k documents trec_eval would rank first', () => {
    const searcher = new Bm25Searcher(index);
    expect(searcher.search('wing', 2).map((h) => h.docno)).toEqual(['9', '100']);
    expect(searcher.search('wing', 3).map((h) => h.docno)).toEqual(['9', '100', '10']);
  });

  it('writes ranks 1..n in that order in a run', () => {
    const { run, parameters } = retrieveRun(index, [{ id: 'q1', text: 'wing' }], {
      method: 'bm25',
      k: 3,
    });
    expect(run.topics.get('q1')!.map((e) => [e.docno, e.rank])).toEqual([
      ['9', 1],
      ['100', 2],
      ['10', 3],
    ]);
    expect(parameters).toMatchObject({ method: 'bm25', k1: 0.9, b: 0.4, k: 3 });
  });
});

describe('top-k against a full sort', () => {
  it('returns the same documents as sorting every score (seeded random corpus)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = ['lift', 'drag', 'wing', 'flow', 'shock', 'heat'];
    const docs = Array.from({ length: 300 }, (_, i) => ({
      id: `doc${i}`,
      text: Array.from(
        { length: 1 + Math.floor(random() * 8) },
        () => words[Math.floor(random() * 6)],
      ).join(' '),
    }));
    const index = buildIndex(docs, PLAIN);
    const searcher = new Bm25Searcher(index);
    const all = searcher.search('lift wing', 1000);
    const sorted = all
      .slice()
      .sort((x, y) => y.score - x.score || (x.docno < y.docno ? 1 : x.docno > y.docno ? -1 : 0));
    expect(all.map((h) => h.docno)).toEqual(sorted.map((h) => h.docno));
    expect(searcher.search('lift wing', 25).map((h) => h.docno)).toEqual(
      sorted.slice(0, 25).map((h) => h.docno),
    );
  });
});

describe('MaxScore pruning', () => {
  it('returns exactly what scoring every document returns (seeded random corpus and queries)', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Skewed word frequencies (word i drawn with probability ~ 1/(i+1)), lengths 1..40,
    // and docnos whose byte order differs from the index order.
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    const draw = () => words[Math.min(59, Math.floor(1 / (random() + 1 / 61)) - 1)]!;
    const docs = Array.from({ length: 2000 }, (_, i) => ({
      id: String((i * 7919) % 2003),
      text: Array.from({ length: 1 + Math.floor(random() * 40) }, draw).join(' '),
    }));
    const index = buildIndex(docs, PLAIN);
    const pruned = new Bm25Searcher(index, { k1: 0.9, b: 0.4 }, true);
    const full = new Bm25Searcher(index, { k1: 0.9, b: 0.4 }, false);
    let compared = 0;
    for (let q = 0; q < 200; q++) {
      const query = new Map<number, number>();
      const length = 2 + Math.floor(random() * 8);
      for (let j = 0; j < length; j++) {
        const t = index.termIds.get(draw());
        // Weighted terms too, as feedback queries have them.
        if (t !== undefined) query.set(t, q % 2 === 0 ? (query.get(t) ?? 0) + 1 : random() + 0.01);
      }
      for (const k of [1, 10, 100, 3000]) {
        expect(pruned.searchWeighted(query, k)).toEqual(full.searchWeighted(query, k));
        compared++;
      }
    }
    expect(compared).toBe(800);
    // A k far beyond the collection: no buffer of k entries is allocated.
    const query = new Map([
      [index.termIds.get('w0')!, 1],
      [index.termIds.get('w1')!, 1],
    ]);
    expect(pruned.searchWeighted(query, 2 ** 31)).toEqual(full.searchWeighted(query, 2 ** 31));
  });
});
