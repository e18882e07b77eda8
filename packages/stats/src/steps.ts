/**
 * Runs a computation written as steps (a generator yielding between small steps, such as
 * {@link clusterBootstrapSteps}) to its end at once and returns its value. A caller serving
 * others meanwhile (a server) runs the same generator a few steps at a time instead.
 *
 * @example
 * const p = runSteps(randomizationTestSteps(x, y, { seed: 1 })).p;
 */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}
