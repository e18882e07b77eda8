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

/** Renders an evaluation exactly as trec_eval 10.0 prints it (per-topic lines first). */
export function formatTrecText(result: RunEvaluation, options: TrecTextOptions = {}): string {
  const lines: string[] = [];
  const z = options.zscores ?? false;
  const label = (name: string, output: string) =>
    z && output !== 'string' ? `Z${padName(name)}` : padName(name);
  const show = (output: 'float' | 'long' | 'string', v: number | string) =>
    formatTrecValue(z && output === 'long' ? 'float' : output, v);
  if (options.perQuery) {
    for (const topic of result.topics) {
      result.columns.forEach((col, i) => {
        if (!col.perQuery) return;
        lines.push(
          `${label(col.name, col.output)}\t${topic.qid}\t${show(col.output, topic.values[i]!)}`,
        );
      });
    }
  }
  if (options.summary ?? true) {
    result.columns.forEach((col, i) => {
      const value = result.summary[i];
      if (value === null || value === undefined) return;
      if (col.aggregate === 'runid') lines.push(`${padName('runid')}\tall\t${value}`);
      else lines.push(`${label(col.name, col.output)}\tall\t${show(col.output, value)}`);
    });
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
