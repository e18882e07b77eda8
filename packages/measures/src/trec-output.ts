import type { RunEvaluation } from './evaluate.js';
import { formatFixed, padName } from './format.js';

/** Options of the trec_eval-style text report. */
export interface TrecTextOptions {
  /** Print per-topic lines [-q]. */
  perQuery?: boolean;
  /** Print the summary lines (default true; trec_eval -n turns them off). */
  summary?: boolean;
  /** Values are z-scores [-Z]: names get a `Z` prefix and every number prints as a real. */
  zscores?: boolean;
}

/** Formats one value the way trec_eval prints it. */
export function formatTrecValue(
  output: 'float' | 'long' | 'string',
  value: number | string,
): string {
  if (output === 'string') return `'${value}'`;
  if (typeof value === 'string') return value;
  if (output === 'long')
    return Number.isFinite(value) ? String(Math.trunc(value)) : formatFixed(value, 0);
  return formatFixed(value, 4);
}

/**
 * Collects text as UTF-8 bytes. Lines go out of scope as soon as they are written, so a
 * report of millions of lines does not keep millions of strings alive until the end; the
 * common pieces (names, topic ids, four-decimal values) are written as bytes, with no
 * string per line at all.
 */
class TextBytes {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;

  /** Makes room for `n` more bytes. */
  private reserve(n: number): Uint8Array {
    if (this.used + n > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + n));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    return this.bytes;
  }

  add(text: string): void {
    const bytes = this.reserve(text.length * 3);
    let at = this.used;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        at += encoder.encodeInto(text.slice(i), bytes.subarray(at)).written;
        break;
      }
      bytes[at++] = c;
    }
    this.used = at;
  }

  addBytes(piece: Uint8Array): void {
    const bytes = this.reserve(piece.length);
    bytes.set(piece, this.used);
    this.used += piece.length;
  }

  /**
   * Writes `value` as formatFixed(value, 4) does on its fast path (a value in [0, 1e9) not
   * near a rounding tie), digit by digit, and returns true; returns false, writing nothing,
   * for any other value.
   */
  addFixed4(value: number): boolean {
    if (!(value >= 0 && value < 1e9) || Object.is(value, -0)) return false;
    const scaled = value * 10000;
    const nearest = Math.round(scaled);
    if (!(Math.abs(scaled - nearest) < 0.49)) return false;
    const whole = Math.floor(nearest / 10000);
    let fraction = nearest - whole * 10000;
    const bytes = this.reserve(15);
    let at = this.used;
    let digits = 1;
    for (let w = whole; w >= 10; w = Math.floor(w / 10)) digits++;
    at += digits;
    let w = whole;
    for (let k = 1; k <= digits; k++) {
      const next = Math.floor(w / 10);
      bytes[at - k] = 48 + (w - next * 10);
      w = next;
    }
    bytes[at] = 46; // .
    for (let k = 4; k >= 1; k--) {
      const next = Math.floor(fraction / 10);
      bytes[at + k] = 48 + (fraction - next * 10);
      fraction = next;
    }
    this.used = at + 5;
    return true;
  }

  toString(): string {
    return new TextDecoder().decode(this.bytes.subarray(0, this.used));
  }
}

const encoder = new TextEncoder();

/** Renders an evaluation exactly as trec_eval 10.0 prints it (per-topic lines first). */
export function formatTrecText(result: RunEvaluation, options: TrecTextOptions = {}): string {
  const out = new TextBytes();
  const z = options.zscores ?? false;
  // Plain loops rather than map(): an array map() makes can change its elements kind once
  // the caller is compiled, which sent the compiled code back (deoptimized) for every run.
  const labels: string[] = [];
  for (const col of result.columns)
    labels.push(z && col.output !== 'string' ? `Z${padName(col.name)}` : padName(col.name));
  const show = (output: 'float' | 'long' | 'string', v: number | string) =>
    formatTrecValue(z && output === 'long' ? 'float' : output, v);
  if (options.perQuery) {
    const labelBytes: Uint8Array[] = [];
    for (const label of labels) labelBytes.push(encoder.encode(label));
    const newline = encoder.encode('\n');
    const columns = result.columns;
    for (const topic of result.topics) {
      // "\t<qid>\t", written after each name.
      const qidBytes = encoder.encode(`\t${topic.qid}\t`);
      const values = topic.values;
      for (let i = 0; i < columns.length; i++) {
        const col = columns[i]!;
        if (!col.perQuery) continue;
        out.addBytes(labelBytes[i]!);
        out.addBytes(qidBytes);
        const value = values[i]!;
        const float = col.output === 'float' || (z && col.output === 'long');
        if (!(float && typeof value === 'number' && out.addFixed4(value)))
          out.add(show(col.output, value));
        out.addBytes(newline);
      }
    }
  }
  if (options.summary ?? true) {
    result.columns.forEach((col, i) => {
      const value = result.summary[i];
      if (value === null || value === undefined) return;
      if (col.aggregate === 'runid') out.add(`${padName('runid')}\tall\t${value}\n`);
      else out.add(`${labels[i]}\tall\t${show(col.output, value)}\n`);
    });
  }
  return out.toString();
}
