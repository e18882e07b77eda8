import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { importCollection, importTopics } from '../src/index.js';
import { keepHeldPairs, type PairKeys } from '../src/catalog/held-pairs.js';
import { resolveCollection } from '../src/core/resolve.js';

// A million-item pool is checked against the topics and documents its collection holds a
// slice at a time: the event loop keeps turning meanwhile (measured by a turn scheduled
// again and again), and the pairs kept and left out are those a plain loop finds.

const TOPICS = 100;
const DOCS_PER_TOPIC = 10_000;

/** A million pairs: topics 1–100 × documents d0–d9999. */
function millionPairs(): Array<{ topicId: string; docId: string }> {
  const pairs: Array<{ topicId: string; docId: string }> = [];
  for (let d = 0; d < DOCS_PER_TOPIC; d++)
    for (let q = 1; q <= TOPICS; q++) pairs.push({ topicId: String(q), docId: `d${d}` });
  return pairs;
}

const KEYS: PairKeys<{ topicId: string; docId: string }> = {
  topic: (p) => p.topicId,
  doc: (p) => p.docId,
};

/** Runs `work`, turning the event loop meanwhile: how long it took and the longest wait for a turn. */
async function timed<T>(work: () => Promise<T>) {
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
  const value = await work();
  const took = performance.now() - started;
  turning = false;
  // The wait from the last turn to the end of the work counts too.
  gaps.push(performance.now() - last);
  return { value, took, turns: gaps.length, longest: Math.max(...gaps) };
}

forEachDatabase('the pairs a collection holds', (t) => {
  it('are those with a stored topic and document, and what is left out is named', async () => {
    const docs = Array.from({ length: 2_000 }, (_, k) => `d${k}\tpassage ${k}\n`).join('');
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'docs.tsv', text: docs });
    const topics = Array.from({ length: 90 }, (_, k) => `${k + 1}\tquery ${k + 1}\n`).join('');
    await importTopics(t.db, { collection: 'c', format: 'tsv', file: 't.tsv', text: topics });
    const collection = await resolveCollection(t.db, 'c');
    // Topics 91–100 and documents d2000 on are not stored.
    const pairs = millionPairs();
    const held = await keepHeldPairs(t.db, collection.id, pairs, KEYS, 'of the runs', false);
    const expected = pairs.filter(
      (p) => Number(p.topicId) <= 90 && Number(p.docId.slice(1)) < 2_000,
    );
    expect(held.kept).toEqual(expected);
    expect(held.leftOut).toMatchObject({
      topics: { count: 10, first: Array.from({ length: 10 }, (_, k) => String(91 + k)) },
      documents: { count: 8_000 },
      pairs: pairs.length - expected.length,
    });
    expect([...held.missingTopics].sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, k) => String(91 + k)),
    );
  }, 120_000);

  it('of a million are sorted out a slice at a time', async () => {
    // A collection that stores no topics or documents holds every pair: no query comes
    // between the steps, so in one piece the longest wait would be about the whole time.
    await importCollection(t.db, { name: 'open', format: 'tsv', file: 'docs.tsv', text: '' });
    const collection = await resolveCollection(t.db, 'open');
    const pairs = millionPairs();
    // The best of three tries: a busy machine may hold up any one of them.
    const tries = [];
    for (let k = 0; k < 3; k++) {
      const run = await timed(() =>
        keepHeldPairs(t.db, collection.id, pairs, KEYS, 'of the runs', false),
      );
      expect(run.value.kept).toHaveLength(pairs.length);
      tries.push(run);
      console.info(
        `[${t.kind}] ${pairs.length} pairs sorted in ${run.took.toFixed(0)} ms; ${run.turns} turns meanwhile, longest wait ${run.longest.toFixed(0)} ms`,
      );
      if (run.longest < run.took / 2) break;
    }
    const best = tries.reduce((a, b) => (b.longest / b.took < a.longest / a.took ? b : a));
    // Sorting a million pairs takes tens of milliseconds on a quiet machine; a garbage
    // collection of the million items can take a slice's place, so the bound is half.
    expect(best.turns).toBeGreaterThan(3);
    expect(best.longest).toBeLessThan(best.took / 2);
  }, 120_000);
});
