import { describe, expect, it } from 'vitest';
import { compact, duration, formatCost, ProgressReporter } from '../src/shell/progress.js';

/** A reporter on a hand-driven clock (milliseconds) that keeps what it writes. */
function reporter(options: { tty: boolean; total?: number; logEverySeconds?: number }) {
  const written: string[] = [];
  let clock = 0;
  const r = new ProgressReporter({
    label: 'judging',
    write: (text) => written.push(text),
    now: () => clock,
    ...options,
  });
  return { r, written, at: (ms: number) => (clock = ms) };
}

const state = { done: 0, doneThisRun: 0, failed: 0, tokens: 0, costUsd: 0 };

describe('ProgressReporter', () => {
  it('shows done/total, percent, rate, ETA, tokens and cost', () => {
    const { r, at } = reporter({ tty: false, total: 200 });
    at(2_000);
    r.update({ done: 30, doneThisRun: 10, failed: 0, tokens: 2_000, costUsd: 0.1 });
    at(10_000);
    r.update({ done: 70, doneThisRun: 50, failed: 2, tokens: 12_345, costUsd: 0.5 });
    // The rate window starts at the first finished items: 40 more in 8 s is 5.0 items/s;
    // 130 left take 26 s; 12,345 tokens read as 12.3k.
    expect(r.line()).toBe(
      'judging  70/200  35%  2 failed  5.0 items/s  ETA 0:26  tokens 12.3k  $0.5000',
    );
  });

  it('draws a bar in place on a terminal, estimating before five items, and ends the line', () => {
    const { r, written, at } = reporter({ tty: true, total: 4 });
    at(1000);
    r.update({ ...state, done: 1, doneThisRun: 1 });
    at(2000);
    r.finish();
    // 1 of 4 fills 6 of 24 cells; one finished item gives no rate yet, and a finished
    // run without a rate shows none. No call was paid: no dollar figure.
    expect(written).toEqual([
      '\r\x1b[Kjudging  [######------------------]  1/4  25%  estimating rate and ETA  tokens 0  nothing paid',
      '\r\x1b[Kjudging  [######------------------]  1/4  25%  tokens 0  nothing paid',
      '\n',
    ]);
  });

  it('prints plain lines no more often than asked when not a terminal', () => {
    const { r, written, at } = reporter({ tty: false, logEverySeconds: 5 });
    for (const ms of [0, 1000, 4999, 5000, 9000, 10_000]) {
      at(ms);
      r.update({ ...state, done: ms / 1000, doneThisRun: ms / 1000 });
    }
    // Lines at 0 s, 5 s and 10 s only; an open-ended run shows "N done" and no ETA.
    expect(written.map((line) => line.split('  ')[1])).toEqual(['0 done', '5 done', '10 done']);
    expect(written.every((line) => line.endsWith('\n') && !line.includes('ETA'))).toBe(true);
  });
});

describe('formatCost', () => {
  it('prints a dollar figure only for priced calls that were paid', () => {
    expect(formatCost(0.01234, 0, 3)).toBe('$0.0123');
    // A model priced at 0 (a local endpoint in prices.json): paid, and free.
    expect(formatCost(0, 0, 3)).toBe('$0.0000');
    expect(formatCost(0, 3, 3)).toBe('cost unknown');
    expect(formatCost(0.5, 2, 5)).toBe('$0.5000 + unknown');
    // Nothing paid (a resumed run, an endpoint that never answered), priced or not.
    expect(formatCost(0, 0, 0)).toBe('nothing paid');
  });
});

describe('duration and compact', () => {
  it('write seconds as m:ss or h:mm:ss and counts with k and M', () => {
    expect([duration(41), duration(723), duration(7500)]).toEqual(['0:41', '12:03', '2:05:00']);
    expect([compact(950), compact(12_345), compact(4_561_000)]).toEqual(['950', '12.3k', '4.56M']);
  });
});
