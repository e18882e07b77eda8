// Computations written as steps (generators yielding between small steps), so that a caller
// serving others meanwhile can pause between them; not exported from the package. Hot loops
// stay in plain functions called once per step: V8 optimises a long loop inside a generator
// function less well.

/** Runs a generator of steps (see depthPoolSteps) to its end, at once, and returns its value. */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Items sorted, merged or walked per step. */
export const ITEMS_PER_STEP = 4096;

/**
 * `items` sorted by `compare` (a new array; `items` is left as it was), a step per
 * {@link ITEMS_PER_STEP} items: runs of that many sorted with Array.prototype.sort, then
 * merged pairwise, taking the left one of equals. Stable, so the order is exactly that of
 * `items.slice().sort(compare)`.
 */
export function* sortSteps<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
): Generator<void, T[], void> {
  const n = items.length;
  let from = new Array<T>(n);
  for (let lo = 0; lo < n; lo += ITEMS_PER_STEP) {
    sortRun(items, from, lo, Math.min(n, lo + ITEMS_PER_STEP), compare);
    yield;
  }
  let to = new Array<T>(n);
  for (let width = ITEMS_PER_STEP; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const merge: Merge = {
        left: lo,
        mid: Math.min(lo + width, n),
        right: Math.min(lo + width, n),
        end: Math.min(lo + 2 * width, n),
        out: lo,
      };
      while (merge.out < merge.end) {
        mergeSome(from, to, merge, compare, ITEMS_PER_STEP);
        yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Copies items [lo, hi) into `out` sorted. */
function sortRun<T>(
  items: readonly T[],
  out: T[],
  lo: number,
  hi: number,
  compare: (a: T, b: T) => number,
): void {
  const run = items.slice(lo, hi).sort(compare);
  for (let i = 0; i < run.length; i++) out[lo + i] = run[i]!;
}

/** Where a merge of the sorted ranges [left, mid) and [right, end) stands. */
interface Merge {
  left: number;
  mid: number;
  right: number;
  end: number;
  /** The next index of the output to fill. */
  out: number;
}

/** Writes up to `count` more items of a merge into `to`. */
function mergeSome<T>(
  from: readonly T[],
  to: T[],
  m: Merge,
  compare: (a: T, b: T) => number,
  count: number,
): void {
  const stop = Math.min(m.end, m.out + count);
  while (m.out < stop) {
    if (m.right >= m.end || (m.left < m.mid && compare(from[m.left]!, from[m.right]!) <= 0))
      to[m.out++] = from[m.left++]!;
    else to[m.out++] = from[m.right++]!;
  }
}
