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
 * report of millions of lines does not keep millions of strings alive until the end.
 */
class TextBytes {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private readonly encoder = new TextEncoder();

  add(text: string): void {
    if (this.used + text.length * 3 > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + text.length * 3));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    const bytes = this.bytes;
    let at = this.used;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        at += this.encoder.encodeInto(text.slice(i), bytes.subarray(at)).written;
        break;
      }
      bytes[at++] = c;
    }
    this.used = at;
  }

  toString(): string {
    return new TextDecoder().decode(this.bytes.subarray(0, this.used));
  }
}

/** Renders an evaluation exactly as trec_eval 10.0 prints it (per-topic lines first). */
export function formatTrecText(result: RunEvaluation, options: TrecTextOptions = {}): string {
  const out = new TextBytes();
  const z = options.zscores ?? false;
  const labels = result.columns.map((col) =>
    z && col.output !== 'string' ? `Z${padName(col.name)}` : padName(col.name),
  );
  const show = (output: 'float' | 'long' | 'string', v: number | string) =>
    formatTrecValue(z && output === 'long' ? 'float' : output, v);
  if (options.perQuery) {
    for (const topic of result.topics) {
      const qid = topic.qid;
      for (let i = 0; i < result.columns.length; i++) {
        const col = result.columns[i]!;
        if (!col.perQuery) continue;
        out.add(`${labels[i]}\t${qid}\t${show(col.output, topic.values[i]!)}\n`);
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
