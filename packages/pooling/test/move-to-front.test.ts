import { describe, expect, it } from 'vitest';
import {
  buildDepthPool,
  judgeFromQrels,
  moveToFrontOrder,
  staticMoveToFrontOrder,
  type MoveToFront,
} from '../src/index.js';
import { runs } from './fixtures.js';
import { parseQrels, parseRun } from './trec-text.js';

// One topic, three runs (scores strictly decreasing, so file order is trec_eval order):
//   A: a1 a2 a3     B: b1 a1 b3     C: c1 c2 c3
const mtfRuns = [
  parseRun('1 Q0 a1 1 3 A\n1 Q0 a2 2 2 A\n1 Q0 a3 3 1 A'),
  parseRun('1 Q0 b1 1 3 B\n1 Q0 a1 2 2 B\n1 Q0 b3 3 1 B'),
  parseRun('1 Q0 c1 1 3 C\n1 Q0 c2 2 2 C\n1 Q0 c3 3 1 C'),
];
const relevant = new Set(['a1', 'a2', 'b3', 'c2']);

/** Drives the process to the end with the given assessor; returns `docno run rank` lines. */
function drive(process: MoveToFront, assessor: (docno: string) => boolean): string[] {
  const asked: string[] = [];
  for (const request of process) {
    asked.push(`${request.docno} ${request.run} ${request.rank}`);
    process.record(assessor(request.docno));
  }
  return asked;
}

describe('move-to-front', () => {
  it('follows relevance feedback (hand-traced)', () => {
    // Priorities start at A=0 B=0 C=0; ties go to the earlier run.
    //  1. A's turn: a1 relevant   → A keeps the turn
    //  2. A: a2 relevant          → A keeps the turn
    //  3. A: a3 not relevant      → A=-1, turn passes to the highest priority: B (0)
    //  4. B: b1 not relevant      → B=-1; C (0) is highest
    //  5. C: c1 not relevant      → C=-1; all at -1, A is exhausted, so B
    //  6. B: a1 was offered, skip; b3 relevant → B keeps the turn
    //     B is exhausted; C (-1) is the only run left
    //  7. C: c2 relevant          → C keeps the turn
    //  8. C: c3 not relevant      → C=-2; every run is exhausted
    const asked = drive(moveToFrontOrder(mtfRuns), (d) => relevant.has(d));
    expect(asked).toEqual([
      'a1 A 1',
      'a2 A 2',
      'a3 A 3',
      'b1 B 1',
      'c1 C 1',
      'b3 B 3',
      'c2 C 2',
      'c3 C 3',
    ]);
  });

  it('without relevant documents is the static order: runs take turns', () => {
    const asked = drive(moveToFrontOrder(mtfRuns), () => false);
    expect(asked).toEqual([
      'a1 A 1',
      'b1 B 1',
      'c1 C 1',
      'a2 A 2',
      'b3 B 3',
      'c2 C 2',
      'a3 A 3',
      'c3 C 3',
    ]);
    // The adaptive order finds two relevant documents in its first three judgments; this one finds one.
    expect(
      staticMoveToFrontOrder([
        ['a', 'b'],
        ['a', 'c'],
      ]),
    ).toEqual(['a', 'c', 'b']);
  });

  it('consumes known labels as free feedback', () => {
    // a1 is known relevant: A keeps its turn without asking, so a2 is asked first.
    const known = judgeFromQrels([parseQrels('1 0 a1 2\n1 0 c1 -1')]);
    const process = moveToFrontOrder(mtfRuns, known);
    const asked = drive(process, (d) => relevant.has(d));
    expect(asked).toEqual(['a2 A 2', 'a3 A 3', 'b1 B 1', 'c1 C 1', 'b3 B 3', 'c2 C 2', 'c3 C 3']);
    expect(process.requested).toBe(7);
    // A known non-relevant first document demotes A at once.
    const demoted = drive(
      moveToFrontOrder(mtfRuns, judgeFromQrels([parseQrels('1 0 a1 0')])),
      (d) => relevant.has(d),
    );
    expect(demoted[0]).toBe('b1 B 1');
  });

  it('judgeFromQrels maps grades to relevance at a level', () => {
    const judge = judgeFromQrels(
      [parseQrels('1 0 x 1\n1 0 y 2\n1 0 z -1'), parseQrels('1 0 z 0')],
      2,
    );
    expect([
      judge('1', 'x'),
      judge('1', 'y'),
      judge('1', 'z'),
      judge('1', 'w'),
      judge('9', 'x'),
    ]).toEqual([false, true, false, undefined, undefined]);
  });

  it('interleaves topics and matches the static pool order when nothing is relevant', () => {
    const asked: string[] = [];
    const process = moveToFrontOrder(runs, undefined, { depth: 3 });
    expect(process.topics).toEqual(['1', '2']);
    for (const request of process) {
      asked.push(`${request.topic}/${request.docno}`);
      process.record(false);
    }
    const pool = buildDepthPool(runs, { depth: 3, order: 'move-to-front' });
    expect(asked).toEqual(pool.items.map((i) => `${i.topic}/${i.docno}`));
  });

  it('demands a judgment before the next request', () => {
    const process = moveToFrontOrder(mtfRuns);
    expect(() => process.record(true)).toThrow('no document pending');
    expect(process.next().done).toBe(false);
    expect(() => process.next()).toThrow('record() the judgment');
    process.record(true);
    expect(process.next().value).toEqual({ topic: '1', docno: 'a2', run: 'A', rank: 2 });
  });
});
