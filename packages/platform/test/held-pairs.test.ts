import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { importCollection, importTopics } from '../src/index.js';
import { keepHeldPairs } from '../src/catalog/held-pairs.js';
import { resolveCollection } from '../src/core/resolve.js';

// A million-item pool is checked against the topics and documents its collection holds a
// slice at a time: the event loop keeps turning meanwhile (measured by a turn scheduled
// again and again), and the pairs kept and left out are those a plain loop finds.

const TOPICS = 100;
const DOCS_PER_TOPIC = 10_000;

forEachDatabase('the pairs a collection holds', (t) => {
  it('are sorted out of a million a slice at a time', async () => {
    const docs = Array.from({ length: 2_000 }, (_, k) => `d${k}\tpassage ${k}\n`).join('');
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'docs.tsv', text: docs });
    const topics = Array.from({ length: 90 }, (_, k) => `${k + 1}\tquery ${k + 1}\n`).join('');
    await importTopics(t.db, { collection: 'c', format: 'tsv', file: 't.tsv', text: topics });
    const collection = await resolveCollection(t.db, 'c');
    // Topics 1–100 (91–100 not stored) × documents d0–d9999 (d2000 on not stored).
    const pairs: Array<{ topicId: string; docId: string }> = [];
    for (let d = 0; d < DOCS_PER_TOPIC; d++)
      for (let q = 1; q <= TOPICS; q++) pairs.push({ topicId: String(q), docId: `d${d}` });

    const gaps: number[] = [];
    let last = performance.now();
    let turning = true;
    const turn = () => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const started = performance.now();
    const held = await keepHeldPairs(
      t.db,
      collection.id,
      pairs,
      { topic: (p) => p.topicId, doc: (p) => p.docId },
      'of the runs',
      false,
    );
    const took = performance.now() - started;
    turning = false;

    const expected = pairs.filter(
      (p) => Number(p.topicId) <= 90 && Number(p.docId.slice(1)) < 2_000,
    );
    expect(held.kept).toEqual(expected);
    expect(held.leftOut).toMatchObject({
      topics: {
        count: 10,
        first: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].map((n) =>
          String(Number(n) + 90),
        ),
      },
      documents: { count: 8_000 },
      pairs: pairs.length - expected.length,
    });
    expect([...held.missingTopics].sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, k) => String(91 + k)),
    );
    const longest = Math.max(...gaps);
    console.info(
      `[${t.kind}] ${pairs.length} pairs sorted in ${took.toFixed(0)} ms; ${gaps.length} turns meanwhile, longest wait ${longest.toFixed(0)} ms`,
    );
    // In one piece the longest wait would be about the whole time.
    expect(gaps.length).toBeGreaterThan(10);
    expect(longest).toBeLessThan(took / 4);
  }, 120_000);
});
