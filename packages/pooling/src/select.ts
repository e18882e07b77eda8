// Shared option handling for the pool builders and statistics (not exported from the package).
import { rankEntries } from './ranking.js';
import type { Qrels, Run, RunEntry } from './types.js';

/** Throws a RangeError unless value is an integer ≥ min. */
export function checkInteger(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${String(value)}`);
  }
}

/** The runs to pool: all of them, or those named (in the order given), with unique names. */
export function selectRuns(runs: readonly Run[], names?: readonly string[]): Run[] {
  const byName = new Map<string, Run>();
  for (const run of runs) {
    if (byName.has(run.name)) throw new Error(`two runs are named ${JSON.stringify(run.name)}`);
    byName.set(run.name, run);
  }
  if (names === undefined) return runs.slice();
  const chosen: Run[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const run = byName.get(name);
    if (run === undefined) throw new Error(`no run is named ${JSON.stringify(name)}`);
    if (seen.has(name)) continue;
    seen.add(name);
    chosen.push(run);
  }
  return chosen;
}

/**
 * Topics some run retrieved for: in the order of `wanted` when given (topics no run retrieved
 * for are dropped), else in order of first appearance over the runs.
 */
export function selectTopics(runs: readonly Run[], wanted?: Iterable<string>): string[] {
  const present = new Set<string>();
  for (const run of runs) {
    for (const [topic, entries] of run.topics) if (entries.length > 0) present.add(topic);
  }
  if (wanted === undefined) return [...present];
  const topics: string[] = [];
  const seen = new Set<string>();
  for (const topic of wanted) {
    if (seen.has(topic) || !present.has(topic)) continue;
    seen.add(topic);
    topics.push(topic);
  }
  return topics;
}

/** A run's top `depth` entries for a topic in trec_eval order (empty when it has none). */
export function topRanked(run: Run, topic: string, depth: number): RunEntry[] {
  const entries = run.topics.get(topic);
  if (entries === undefined || entries.length === 0) return [];
  return rankEntries(
    entries,
    `run ${JSON.stringify(run.name)} topic ${JSON.stringify(topic)}`,
  ).slice(0, depth);
}

/** Whether a qrels grade counts as a label (negative grades only when negativeGradesJudged). */
export function isLabelled(grade: number | undefined, negativeGradesJudged: boolean): boolean {
  return grade !== undefined && (grade >= 0 || negativeGradesJudged);
}

/** Whether (topic, docno) is labelled in any of the label sets. */
export function labelledIn(
  labelSets: readonly Qrels[],
  topic: string,
  docno: string,
  negativeGradesJudged: boolean,
): boolean {
  for (const qrels of labelSets) {
    if (isLabelled(qrels.get(topic)?.get(docno), negativeGradesJudged)) return true;
  }
  return false;
}
