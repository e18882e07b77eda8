import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, UndoHistory, type HistoryStore } from '../src/lib/undo-history.js';

function memoryStore(
  initial: Record<string, string> = {},
): HistoryStore & { data: Record<string, string> } {
  const data = { ...initial };
  return {
    data,
    getItem: (key) => data[key] ?? null,
    setItem: (key, value) => void (data[key] = value),
  };
}

describe('the undo history', () => {
  it('keeps the items labelled, newest last, per campaign', () => {
    const store = memoryStore();
    const three = new UndoHistory(store, 3);
    expect(three.items()).toEqual([]);
    three.push(11);
    three.push(12);
    new UndoHistory(store, 4).push(40);
    expect(three.items()).toEqual([11, 12]);
    expect(store.data).toEqual({ 'assay.history.3': '[11,12]', 'assay.history.4': '[40]' });
    // What a reload reads back.
    expect(new UndoHistory(store, 3).items()).toEqual([11, 12]);
  });

  it('is set to the items left after an undo', () => {
    const store = memoryStore({ 'assay.history.3': '[1,2,3]' });
    const history = new UndoHistory(store, 3);
    const items = history.items();
    expect(items.pop()).toBe(3);
    history.set(items);
    expect(history.items()).toEqual([1, 2]);
  });

  it(`keeps the newest ${HISTORY_LIMIT} items`, () => {
    const store = memoryStore();
    const history = new UndoHistory(store, 1);
    history.set(Array.from({ length: 250 }, (_, i) => i + 1));
    history.push(251);
    const items = history.items();
    expect(HISTORY_LIMIT).toBe(200);
    expect(items.length).toBe(200);
    expect(items[0]).toBe(52);
    expect(items.at(-1)).toBe(251);
  });

  it('reads what is not a list of items as an empty history', () => {
    for (const kept of ['not json', '{"a":1}', '"12"', 'null'])
      expect(new UndoHistory(memoryStore({ 'assay.history.1': kept }), 1).items(), kept).toEqual(
        [],
      );
    expect(new UndoHistory(memoryStore({ 'assay.history.1': '[1,"x",2.5,3]' }), 1).items()).toEqual(
      [1, 3],
    );
  });
});
