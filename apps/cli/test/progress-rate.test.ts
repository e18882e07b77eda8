import { describe, expect, it } from 'vitest';
import { ProgressReporter } from '../src/shell/progress.js';
import { RateWindow } from '../src/shell/rate-window.js';

describe('RateWindow', () => {
  it('has no rate before minItems items are finished', () => {
    const window = new RateWindow({ minItems: 5 });
    for (let count = 1; count <= 4; count++) window.add(count * 1000, count);
    expect(window.rate(4000)).toBeUndefined();
    window.add(5000, 5);
    // From the first finished item (1 s, 1 item) to 5 s: 4 items in 4 s.
    expect(window.rate(5000)).toBe(1);
  });

  it('leaves out the wait for the first answer', () => {
    const window = new RateWindow({ minItems: 3 });
    // First answer after 10 s of start-up, then one item every 0.5 s.
    window.add(10_000, 1);
    window.add(10_500, 2);
    window.add(11_000, 3);
    expect(window.rate(11_000)).toBe(2);
  });

  it('follows a change of pace once the old readings leave the window', () => {
    const window = new RateWindow({ windowSeconds: 10, minItems: 2 });
    // 1 item/s for 20 s, then 4 items/s for 20 s.
    let count = 0;
    for (let t = 1; t <= 20; t++) window.add(t * 1000, ++count);
    expect(window.rate(20_000)).toBe(1);
    for (let t = 20.25; t <= 40; t += 0.25) window.add(t * 1000, ++count);
    // The window covers 30 s..40 s (one reading at its start is kept): 40 items in 10 s.
    expect(window.rate(40_000)).toBe(4);
  });

  it('falls as time passes with nothing finished (a stalled run)', () => {
    const window = new RateWindow({ windowSeconds: 60, minItems: 2 });
    window.add(0, 1);
    window.add(10_000, 11);
    expect(window.rate(10_000)).toBe(1);
    expect(window.rate(20_000)).toBe(0.5);
  });
});

describe('ProgressReporter', () => {
  function reporter() {
    let now = 0;
    const lines: string[] = [];
    const progress = new ProgressReporter({
      label: 'judging',
      total: 100,
      write: (text) => lines.push(text),
      tty: false,
      logEverySeconds: 0,
      now: () => now,
    });
    return { progress, lines, at: (ms: number) => (now = ms) };
  }
  const state = (done: number) => ({ done, doneThisRun: done, failed: 0, tokens: 0, costUsd: 0 });

  it('says "estimating" for the first items, then the windowed rate and ETA', () => {
    const { progress, lines, at } = reporter();
    at(19_000);
    progress.update(state(1));
    expect(lines.at(-1)).toBe(
      'judging  1/100  1%  estimating rate and ETA  tokens 0  nothing paid\n',
    );
    // Then 2 items per second: 9 items in 4 s after the first.
    for (let i = 2; i <= 10; i++) {
      at(19_000 + (i - 1) * 500);
      progress.update(state(i));
    }
    // 90 items left at 2 items/s: 45 s.
    expect(lines.at(-1)).toBe(
      'judging  10/100  10%  2.0 items/s  ETA 0:45  tokens 0  nothing paid\n',
    );
  });
});
