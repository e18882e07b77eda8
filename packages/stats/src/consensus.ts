// Consensus of several label sets on the same items: the grade a panel of judges (LLM
// configurations, people, or both) agrees on, for each (topic, document).

/** topic → docno → grade, the shape of TREC qrels (negative grades: pooled, not judged). */
export type GradeMap = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** How several grades become one. */
export type ConsensusMethod = 'majority' | 'mean' | 'median';

/** Which way an undecided consensus goes: a majority tie, an even median, a mean at .5. */
export type ConsensusTie = 'low' | 'high';

/** Options of consensusLabels. */
export interface ConsensusOptions {
  /** majority (most frequent grade), mean (rounded) or median. */
  method: ConsensusMethod;
  /** An item needs at least this many votes (grades ≥ 0) to get a consensus (default 1). */
  minVotes?: number;
  /** Ties go to the lower grade (default, the conservative choice) or the higher one. */
  tie?: ConsensusTie;
}

/** The consensus label set and what it was built from. */
export interface ConsensusResult {
  /** topic → docno → consensus grade, topics and documents in first-seen order. */
  labels: Map<string, Map<string, number>>;
  /** Items with at least minVotes votes (the size of `labels`). */
  items: number;
  /** Items left out for having fewer than minVotes votes. */
  tooFewVotes: number;
  /** Items whose votes were not all equal. */
  disputed: number;
  /** Items whose consensus was settled by the tie rule. */
  tieBroken: number;
}

/**
 * The consensus of several label sets over the union of their items: majority vote, the
 * mean rounded to the nearest grade, or the median. Negative grades (pooled, not judged)
 * are not votes. Ties follow `tie`: a majority tie takes the lower (or higher) of the
 * tied grades, an even number of votes takes the lower (or upper) median, and a mean
 * exactly halfway between two grades rounds down (or up).
 *
 * @example consensusLabels([a, b, c], { method: 'majority' }).labels.get('q1')?.get('d7')
 */
export function consensusLabels(
  sets: readonly GradeMap[],
  options: ConsensusOptions,
): ConsensusResult {
  if (sets.length === 0) throw new RangeError('a consensus needs at least one label set');
  const minVotes = options.minVotes ?? 1;
  if (!Number.isInteger(minVotes) || minVotes < 1)
    throw new RangeError(`minVotes must be a positive integer, not ${minVotes}`);
  const tie = options.tie ?? 'low';
  const votes = new Map<string, Map<string, number[]>>();
  for (const set of sets) {
    for (const [topic, docs] of set) {
      let byDoc = votes.get(topic);
      if (!byDoc) votes.set(topic, (byDoc = new Map()));
      for (const [doc, grade] of docs) {
        if (!Number.isInteger(grade))
          throw new RangeError(`grade ${grade} of ${topic}/${doc} is not an integer`);
        let list = byDoc.get(doc);
        if (!list) byDoc.set(doc, (list = []));
        if (grade >= 0) list.push(grade);
      }
    }
  }
  const labels = new Map<string, Map<string, number>>();
  let items = 0;
  let tooFewVotes = 0;
  let disputed = 0;
  let tieBroken = 0;
  for (const [topic, byDoc] of votes) {
    for (const [doc, list] of byDoc) {
      if (list.length < minVotes || list.length === 0) {
        tooFewVotes++;
        continue;
      }
      const decided = decide(list, options.method, tie);
      if (list.some((g) => g !== list[0])) disputed++;
      if (decided.tieBroken) tieBroken++;
      let out = labels.get(topic);
      if (!out) labels.set(topic, (out = new Map()));
      out.set(doc, decided.grade);
      items++;
    }
  }
  return { labels, items, tooFewVotes, disputed, tieBroken };
}

function decide(
  votes: number[],
  method: ConsensusMethod,
  tie: ConsensusTie,
): { grade: number; tieBroken: boolean } {
  switch (method) {
    case 'majority': {
      const counts = new Map<number, number>();
      for (const g of votes) counts.set(g, (counts.get(g) ?? 0) + 1);
      const most = Math.max(...counts.values());
      const leaders = [...counts].filter(([, n]) => n === most).map(([g]) => g);
      const grade = tie === 'low' ? Math.min(...leaders) : Math.max(...leaders);
      return { grade, tieBroken: leaders.length > 1 };
    }
    case 'median': {
      const sorted = [...votes].sort((x, y) => x - y);
      const n = sorted.length;
      if (n % 2 === 1) return { grade: sorted[(n - 1) / 2]!, tieBroken: false };
      const lower = sorted[n / 2 - 1]!;
      const upper = sorted[n / 2]!;
      return { grade: tie === 'low' ? lower : upper, tieBroken: lower !== upper };
    }
    case 'mean': {
      // Integer arithmetic: sum / n is halfway between two grades exactly when 2·sum ≡ n (mod 2n).
      const n = votes.length;
      const sum = votes.reduce((s, g) => s + g, 0);
      const floor = Math.floor(sum / n);
      const twiceRemainder = 2 * (sum - floor * n);
      if (twiceRemainder < n) return { grade: floor, tieBroken: false };
      if (twiceRemainder > n) return { grade: floor + 1, tieBroken: false };
      return { grade: tie === 'low' ? floor : floor + 1, tieBroken: true };
    }
  }
}
