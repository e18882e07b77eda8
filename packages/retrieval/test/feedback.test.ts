import { describe, expect, it } from 'vitest';
import {
  buildIndex,
  documentQuery,
  retrieveRun,
  rm3Query,
  rocchioQuery,
  weightedRocchioQuery,
  weightTerms,
  type AnalyzerConfig,
  type Bm25Index,
  type Hit,
  type WeightedQuery,
} from '../src/index.js';

const PLAIN: AnalyzerConfig = { stemmer: 'none', stopwords: 'none' };

/** The query as term → weight, for readable expectations. */
function named(index: Bm25Index, query: WeightedQuery): Record<string, number> {
  return Object.fromEntries([...query].map(([t, w]) => [index.data.terms[t]!, w]));
}

function hits(index: Bm25Index, scored: [string, number][]): Hit[] {
  return scored.map(([docno, score]) => ({ doc: index.data.docIds.indexOf(docno), docno, score }));
}

function expectWeights(actual: Record<string, number>, expected: Record<string, number>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [term, w] of Object.entries(expected)) expect(actual[term]).toBeCloseTo(w, 10);
}

describe('RM3', () => {
  // 20 documents. RM3 only adds terms of 2..20 letters or digits found in at most 10% of
  // the documents: "k" is too short, "common" (3 of 20) too frequent; apple and xeno (2 of
  // 20) and yak, zebra (1) qualify.
  const docs = [
    { id: 'd1', text: 'apple xeno yak k' },
    { id: 'd2', text: 'apple xeno zebra zebra common' },
    { id: 'd3', text: 'common filler' },
    { id: 'd4', text: 'common other' },
    ...Array.from({ length: 16 }, (_, i) => ({ id: `f${i}`, text: `word${i}` })),
  ];
  const index = buildIndex(docs, PLAIN);
  const query = weightTerms(index, ['apple']);

  it('weights each feedback document by its score and interpolates with the query', () => {
    // d1 (score 2): eligible tf apple 1, xeno 1, yak 1 of 3 -> 2/3 each.
    // d2 (score 1): apple 1, xeno 1, zebra 2 of 4 -> 0.25, 0.25, 0.5.
    // Model: apple 11/12, xeno 11/12, yak 2/3, zebra 1/2; fbTerms 3 keeps apple, xeno, yak
    // (sum 2.5): 11/30, 11/30, 8/30. With the query (apple 1) at weight 0.5:
    const q = rm3Query(
      index,
      query,
      hits(index, [
        ['d1', 2],
        ['d2', 1],
      ]),
      {
        fbDocs: 10,
        fbTerms: 3,
        originalQueryWeight: 0.5,
      },
    );
    expectWeights(named(index, q), {
      apple: 0.5 + 0.5 * (11 / 30),
      xeno: 0.5 * (11 / 30),
      yak: 0.5 * (8 / 30),
    });
  });

  it('uses only fbDocs documents', () => {
    const q = rm3Query(
      index,
      query,
      hits(index, [
        ['d1', 2],
        ['d2', 1],
      ]),
      {
        fbDocs: 1,
        fbTerms: 10,
        originalQueryWeight: 0.3,
      },
    );
    // d1 alone: apple, xeno, yak 2/3 each -> 1/3 each after scaling.
    expectWeights(named(index, q), { apple: 0.3 + 0.7 / 3, xeno: 0.7 / 3, yak: 0.7 / 3 });
  });
});

describe('Rocchio over unit tf-idf vectors', () => {
  // N = 4. idf = ln(1 + (N − df + 0.5)/(df + 0.5)): df 2 -> ln 2 (apple, banana),
  // df 1 -> ln(10/3) (cherry, date, egg).
  const L = Math.log(2);
  const M = Math.log(10 / 3);
  const index = buildIndex(
    [
      { id: 'd0', text: 'apple banana' },
      { id: 'd1', text: 'apple cherry cherry' },
      { id: 'd2', text: 'banana date' },
      { id: 'd3', text: 'egg' },
    ],
    PLAIN,
  );
  const query = weightTerms(index, ['apple']); // unit vector: apple 1
  // Unit document vectors: d0 apple, banana 1/√2; d1 apple L/n1, cherry 2M/n1;
  // d2 banana L/n2, date M/n2; d3 egg 1.
  const n1 = Math.sqrt(L * L + 4 * M * M);
  const n2 = Math.sqrt(L * L + M * M);
  const first = () =>
    hits(index, [
      ['d0', 4],
      ['d1', 3],
      ['d2', 2],
      ['d3', 1],
    ]);

  it('classic: q + β·mean of the top fbDocs documents', () => {
    const q = rocchioQuery(index, query, first(), {
      fbDocs: 2,
      fbTerms: 10,
      alpha: 1,
      beta: 0.75,
      gamma: 0,
      fbNegDocs: 10,
    });
    expectWeights(named(index, q), {
      apple: 1 + 0.75 * ((Math.SQRT1_2 + L / n1) / 2),
      banana: 0.75 * (Math.SQRT1_2 / 2),
      cherry: 0.75 * ((2 * M) / n1 / 2),
    });
  });

  it('classic: keeps the query terms and the fbTerms best others; negatives with gamma', () => {
    const q = rocchioQuery(index, query, first(), {
      fbDocs: 2,
      fbTerms: 1,
      alpha: 1,
      beta: 0.75,
      gamma: 0.5,
      fbNegDocs: 1,
    });
    // Negative: d3 (the last one), egg only, so no positive term changes; of banana
    // (0.2652) and cherry (0.75·M/n1 = 0.3604) only cherry is kept.
    expectWeights(named(index, q), {
      apple: 1 + 0.75 * ((Math.SQRT1_2 + L / n1) / 2),
      cherry: 0.75 * ((2 * M) / n1 / 2),
    });
  });

  it('weighted (LLMForum-RAG): cosine re-ranking, s-weighted positives, (1−s)-weighted negatives', () => {
    // Cosines to the query: d0 1/√2, d1 L/n1 (0.2766), d2 0, d3 0. One positive: d0.
    // Negatives d1, d2, d3 with weights 1 − L/n1, 1, 1 (sum S).
    const s1 = L / n1;
    const S = 1 - s1 + 1 + 1;
    const q = weightedRocchioQuery(index, query, first(), {
      depth: 50,
      positives: 1,
      fbTerms: 10,
      alpha: 1,
      beta: 1,
      gamma: 1,
    });
    // q' = q + d0 − neg; cherry, date and egg come out negative and are dropped.
    expectWeights(named(index, q), {
      apple: 1 + Math.SQRT1_2 - ((1 - s1) * (L / n1)) / S,
      banana: Math.SQRT1_2 - L / n2 / S,
    });
  });

  it('weighted: re-ranks by cosine, not by the first ranking', () => {
    // First ranking puts d3 (cosine 0) first; with one positive the positive is still d0.
    const reordered = hits(index, [
      ['d3', 9],
      ['d2', 8],
      ['d1', 7],
      ['d0', 6],
    ]);
    const options = { depth: 50, positives: 1, fbTerms: 10, alpha: 1, beta: 1, gamma: 1 };
    expect(named(index, weightedRocchioQuery(index, query, reordered, options))).toEqual(
      named(index, weightedRocchioQuery(index, query, first(), options)),
    );
  });

  it('query-by-document takes the terms of highest tf-idf weight', () => {
    // d1: cherry 2M = 2.41 beats apple L = 0.69.
    expect(Object.keys(named(index, documentQuery(index, 1, 1)))).toEqual(['cherry']);
  });
});

describe('methods over a run', () => {
  const index = buildIndex(
    [
      { id: 'd0', text: 'apple banana' },
      { id: 'd1', text: 'apple cherry cherry' },
      { id: 'd2', text: 'banana date' },
      { id: 'd3', text: 'egg' },
    ],
    PLAIN,
  );
  it.each(['bm25', 'rm3', 'rocchio', 'rocchio-weighted', 'qbd'] as const)(
    '%s ranks the documents about the query first and records its settings',
    (method) => {
      const { run, parameters } = retrieveRun(index, [{ id: '7', text: 'apple' }], {
        method,
        k: 10,
      });
      const docs = run.topics.get('7')!.map((e) => e.docno);
      expect(docs.slice(0, 2).sort()).toEqual(['d0', 'd1']);
      expect(run.topics.get('7')!.map((e) => e.rank)).toEqual(docs.map((_, i) => i + 1));
      expect(parameters.method).toBe(method);
    },
  );
});
