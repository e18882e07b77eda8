import { RateWindow } from './rate-window.js';

/** Counters a progress line shows. */
export interface ProgressState {
  /** Items finished so far (all runs), out of `total`. */
  done: number;
  /** Items finished by this run (for the rate and ETA). */
  doneThisRun: number;
  failed: number;
  tokens: number;
  /** USD of the priced calls. */
  costUsd: number;
  /** Calls paid to a model with no price: the cost shows as unknown, never as $0. */
  unpricedCalls?: number;
  /** Calls paid so far (answered); before the first the cost reads `nothing paid`. */
  paidCalls?: number;
}

/** Options of {@link ProgressReporter}. */
export interface ProgressOptions {
  label: string;
  /** Items in all; undefined for an open-ended worker. */
  total?: number;
  write: (text: string) => void;
  /** Redraw one line in place (a terminal) or print plain lines now and then (a log). */
  tty: boolean;
  /** Seconds between plain lines when not a terminal (default 5). */
  logEverySeconds?: number;
  /** What the rate counts (`docs` shows `docs/s`; default `items`). */
  unit?: string;
  /** Show tokens and cost (default true; off for work without LLM calls). */
  showCost?: boolean;
  /** Seconds of recent progress the rate and ETA are computed over (default 30). */
  rateWindowSeconds?: number;
  now?: () => number;
}

/**
 * A progress display on stderr: on a terminal, one bar redrawn in place (done/total,
 * items/s, ETA, tokens, cost); otherwise a plain line every few seconds and at the end,
 * so logs stay readable. The rate and ETA come from the last half minute of progress
 * (see {@link RateWindow}); before a few items are finished they read "estimating".
 */
export class ProgressReporter {
  private readonly rates: RateWindow;
  private lastDraw = -Infinity;
  private state: ProgressState = { done: 0, doneThisRun: 0, failed: 0, tokens: 0, costUsd: 0 };
  private drawn = false;
  private finished = false;
  private readonly now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? (() => performance.now());
    const windowSeconds = options.rateWindowSeconds ?? 30;
    this.rates = new RateWindow({ windowSeconds });
  }

  /** Takes new counters and redraws when due. */
  update(state: ProgressState): void {
    this.state = state;
    const now = this.now();
    this.rates.add(now, state.doneThisRun);
    const every = this.options.tty ? 100 : (this.options.logEverySeconds ?? 5) * 1000;
    if (now - this.lastDraw < every) return;
    this.lastDraw = now;
    this.draw();
  }

  /** Draws the final state and ends the line. */
  finish(): void {
    this.finished = true;
    this.draw();
    if (this.options.tty && this.drawn) this.options.write('\n');
  }

  /** The progress line for the current counters. */
  line(): string {
    const { done, failed, tokens, costUsd } = this.state;
    const total = this.options.total;
    const rate = this.rates.rate(this.now());
    const parts = [this.options.label];
    if (total !== undefined) {
      const fraction = total === 0 ? 1 : Math.min(1, done / total);
      if (this.options.tty) {
        const width = 24;
        const filled = Math.round(fraction * width);
        parts.push(`[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`);
      }
      parts.push(`${done}/${total}`, `${Math.floor(fraction * 100)}%`);
    } else parts.push(`${done} done`);
    if (failed > 0) parts.push(`${failed} failed`);
    const left = total !== undefined && done < total;
    if (rate === undefined) {
      if (!this.finished) parts.push(left ? 'estimating rate and ETA' : 'estimating rate');
    } else {
      parts.push(`${rate.toFixed(1)} ${this.options.unit ?? 'items'}/s`);
      if (left) parts.push(`ETA ${rate > 0 ? duration((total - done) / rate) : '?'}`);
    }
    if (this.options.showCost !== false)
      parts.push(
        `tokens ${compact(tokens)}`,
        formatCost(costUsd, this.state.unpricedCalls ?? 0, this.state.paidCalls ?? 0),
      );
    return parts.join('  ');
  }

  private draw(): void {
    this.drawn = true;
    this.options.write(this.options.tty ? `\r\x1b[K${this.line()}` : `${this.line()}\n`);
  }
}

/** `0:41`, `12:03`, `2:05:00`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/**
 * A run's cost as the CLI prints it: `$0.0123`; `cost unknown` when every paid call went to
 * a model with no price; `$0.0123 + unknown` when some did; `nothing paid` when no call was
 * paid (a resumed run, nothing to send, an endpoint that never answered). Never `$0.0000`
 * for calls whose price is not known.
 */
export function formatCost(costUsd: number, unpricedCalls: number, paidCalls: number): string {
  if (unpricedCalls > 0) return costUsd > 0 ? `$${costUsd.toFixed(4)} + unknown` : 'cost unknown';
  // With nothing paid a dollar figure says nothing true: $0.0000 would read as the price of
  // a model that may have none.
  if (paidCalls === 0 && costUsd === 0) return 'nothing paid';
  return `$${costUsd.toFixed(4)}`;
}

/** `950`, `12.3k`, `4.56M`. */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}
