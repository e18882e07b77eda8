/** A statistic for reading: four decimals, `n/a` when undefined. */
export function f4(x: number | null | undefined): string {
  return x === null || x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(4);
}

/** A share as a percentage with no decimals. */
export function percent(done: number, total: number): string {
  return total === 0 ? '0%' : `${Math.round((100 * done) / total)}%`;
}

/** What paid calls cost: `$0.0123`, or with calls at an unknown price `$0.0123 + unknown`. */
export function cost(costUsd: number, unpricedCalls: number): string {
  if (unpricedCalls === 0) return `$${costUsd.toFixed(4)}`;
  return costUsd > 0 ? `$${costUsd.toFixed(4)} + unknown` : 'cost unknown';
}
