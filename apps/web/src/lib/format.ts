// A statistic for reading: four decimals, `n/a` when missing; the reports write the same.
export { f4 } from '@assay/platform/presentation';

/** A share as a percentage with no decimals. */
export function percent(done: number, total: number): string {
  return total === 0 ? '0%' : `${Math.round((100 * done) / total)}%`;
}

/** What paid calls cost: `$0.0123`, or with calls at an unknown price `$0.0123 + unknown`. */
export function cost(costUsd: number, unpricedCalls: number): string {
  if (unpricedCalls === 0) return `$${costUsd.toFixed(4)}`;
  return costUsd > 0 ? `$${costUsd.toFixed(4)} + unknown` : 'cost unknown';
}

/** A count as people read it: `10,818`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A moment as people read it, in UTC: `27 Nov 2026, 14:05 UTC` (the text given when unreadable). */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}
