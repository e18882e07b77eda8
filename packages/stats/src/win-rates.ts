/** Win rates of systems over topics, for one criterion. */
export interface WinRates {
  /** Topics on which every system has a score (the denominator of every win rate). */
  topics: number;
  /** Per system: the share of those topics where it has the top score (ties win for each). */
  winRate: Record<string, number>;
  /** The win rates divided by their sum, so they add up to 1 across systems. */
  normalised: Record<string, number>;
}

/**
 * Win rates as the SRSA paper reports them: on each topic the system with the highest score
 * wins; when several share the top score each of them wins. Only topics where every system
 * in `systems` has a score count. The normalised rates divide each win rate by the sum of
 * all of them (with ties that sum exceeds 1). With no such topic every rate is NaN.
 *
 * @example
 * winRates(new Map([['q1', new Map([['a', 4], ['b', 4]])], ['q2', new Map([['a', 2], ['b', 5]])]]), ['a', 'b'])
 * // { topics: 2, winRate: { a: 0.5, b: 1 }, normalised: { a: 1/3, b: 2/3 } }
 */
export function winRates(
  scoresByTopic: ReadonlyMap<string, ReadonlyMap<string, number>>,
  systems: readonly string[],
): WinRates {
  const wins = new Map(systems.map((s) => [s, 0]));
  let topics = 0;
  for (const [topic, bySystem] of scoresByTopic) {
    if (!systems.every((s) => bySystem.has(s))) continue;
    let top = -Infinity;
    for (const s of systems) {
      const v = bySystem.get(s)!;
      if (!Number.isFinite(v))
        throw new RangeError(`winRates: ${s} on topic ${topic} has score ${String(v)}`);
      top = Math.max(top, v);
    }
    topics++;
    for (const s of systems) if (bySystem.get(s) === top) wins.set(s, wins.get(s)! + 1);
  }
  const winRate: Record<string, number> = {};
  for (const s of systems) winRate[s] = topics === 0 ? Number.NaN : wins.get(s)! / topics;
  const total = systems.reduce((sum, s) => sum + winRate[s]!, 0);
  const normalised: Record<string, number> = {};
  for (const s of systems) normalised[s] = total > 0 ? winRate[s]! / total : Number.NaN;
  return { topics, winRate, normalised };
}
