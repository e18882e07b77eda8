/**
 * How many tasks a judge worker claims at a time: a quarter of its concurrency (at least
 * one). It keeps up to two such batches claimed ahead of its free slots, so a slot never
 * waits for a claim's round trip.
 */
export function claimBatchSize(concurrency: number): number {
  return Math.max(1, Math.ceil(concurrency / 4));
}

/**
 * The most tasks one worker holds under its lease at once: the items being judged
 * (`concurrency`) plus the two batches claimed ahead. A job's `progress.running` counts
 * every held task, so with one worker it reads up to this number (12 for concurrency 8).
 */
export function maxHeldTasks(concurrency: number): number {
  return Math.max(1, concurrency) + 2 * claimBatchSize(concurrency);
}
