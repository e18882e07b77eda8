import { describe, expect, it } from 'vitest';
import { inputLocked, ItemClock, LookAhead, ProgressCount } from '../src/lib/look-ahead.js';

const item = (id: number) => ({ item: { id } });
const ids = (look: LookAhead<{ item: { id: number } }>) => {
  const out = [];
  for (let next = look.take(); next; next = look.take()) out.push(next.item.id);
  return out;
};

describe('look-ahead', () => {
  it('hands out the fetched items in order, without the one on screen', () => {
    const look = new LookAhead<{ item: { id: number } }>();
    expect(look.replace([1, 2, 3, 4].map(item), 1)).toBe(3);
    expect(ids(look)).toEqual([2, 3, 4]);
  });

  it('never hands out an item graded here again, even from a fetch made before its label was sent', () => {
    const look = new LookAhead<{ item: { id: number } }>();
    look.replace([1, 2, 3].map(item), undefined);
    expect(look.take()?.item.id).toBe(1);
    look.graded(1);
    // An answer that still lists 1 (its label was on its way) and 2, now on screen.
    expect(look.replace([1, 2, 3, 4].map(item), 2)).toBe(2);
    expect(ids(look)).toEqual([3, 4]);
    // Undone: it may come back.
    look.ungraded(1);
    look.replace([1, 5].map(item), undefined);
    expect(ids(look)).toEqual([1, 5]);
  });

  it('drops items a later fetch no longer lists (labelled elsewhere, or no longer assigned)', () => {
    const look = new LookAhead<{ item: { id: number } }>();
    look.replace([1, 2, 3].map(item), undefined);
    look.replace([1, 3].map(item), undefined);
    expect(ids(look)).toEqual([1, 3]);
  });

  it('puts the item on screen back in front when an earlier one comes back', () => {
    const look = new LookAhead<{ item: { id: number } }>();
    look.replace([3, 4].map(item), 2);
    look.putBack(item(2));
    expect(ids(look)).toEqual([2, 3, 4]);
  });
});

describe('progress between two answers of the server', () => {
  it('adds the grades given since the count was taken', () => {
    const count = new ProgressCount();
    count.graded(); // given before any count, and sent before it: counted by the server
    count.counted({ done: 5, total: 10 }, count.asking(0));
    expect(count.now).toEqual({ done: 5, total: 10 });
    count.graded();
    count.graded();
    expect(count.now).toEqual({ done: 7, total: 10 });
    // The server counted 6, while one of the two was still on its way: 7.
    count.counted({ done: 6, total: 10 }, count.asking(1));
    expect(count.now).toEqual({ done: 7, total: 10 });
  });

  it('counts a grade given while the count was on its way', () => {
    const count = new ProgressCount();
    count.counted({ done: 4, total: 12 }, count.asking(0));
    // Asked with nothing unsent: the answer will include the 4 labels already sent.
    const included = count.asking(0);
    count.graded(); // the fifth grade, given while the request is out
    expect(count.now).toEqual({ done: 5, total: 12 });
    // The server counted 4: the fifth was not in its answer, so 5 it stays.
    count.counted({ done: 4, total: 12 }, included);
    expect(count.now).toEqual({ done: 5, total: 12 });
  });

  it('never counts past the total', () => {
    const count = new ProgressCount();
    count.counted({ done: 2, total: 2 }, count.asking(0));
    count.graded();
    expect(count.now).toEqual({ done: 2, total: 2 });
  });
});

describe('item clock', () => {
  it('leaves out the time the page could not take a grade', () => {
    let now = 0;
    const clock = new ItemClock(() => now);
    now = 4_000;
    clock.pause(); // offline after 4 s
    now = 64_000;
    expect(clock.seconds()).toBe(4);
    clock.resume(); // back a minute later
    now = 66_500;
    expect(clock.seconds()).toBe(6.5);
    clock.restart();
    now = 67_000;
    expect(clock.seconds()).toBe(0.5);
  });

  it('counts a new item shown while paused from when the pause ends', () => {
    let now = 0;
    const clock = new ItemClock(() => now);
    clock.pause();
    now = 1_000;
    clock.restart();
    now = 9_000;
    clock.resume();
    now = 12_000;
    expect(clock.seconds()).toBe(3);
  });
});

describe('input lock', () => {
  it('ignores keys until the lock is over, and says so', () => {
    expect(inputLocked('2', 1000, 250, 1120)).toBe(
      'Key 2 ignored: this item appeared 120 ms ago; keys count from 250 ms after a new item appears, so no grade goes to an item you have not seen.',
    );
    expect(inputLocked('2', 1000, 250, 1250)).toBeUndefined();
    expect(inputLocked('2', 1000, 0, 1001)).toBeUndefined();
  });
});
