/**
 * 1-based ranks of `values` in ascending order, tied values sharing the mean of the ranks they
 * span (`[10, 20, 20, 30]` → `[1, 2.5, 2.5, 4]`), as scipy.stats.rankdata(method='average').
 */
export function averageRanks(values: readonly number[]): number[] {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(n);
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && values[order[end]!] === values[order[start]!]) end++;
    // positions start..end-1 (0-based) hold one tie group: ranks start+1 .. end
    const rank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) ranks[order[k]!] = rank;
    start = end;
  }
  return ranks;
}

/** Sizes of the groups of equal values in `values` (groups of one included). */
export function tieGroupSizes(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const sizes: number[] = [];
  let start = 0;
  while (start < sorted.length) {
    let end = start + 1;
    while (end < sorted.length && sorted[end] === sorted[start]) end++;
    sizes.push(end - start);
    start = end;
  }
  return sizes;
}
