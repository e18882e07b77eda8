import { checkInteger, selectRuns, selectTopics, topRanked } from './select.js';
import { ITEMS_PER_STEP, runSteps } from './steps.js';
import type { Qrels, Run } from './types.js';

/** A document the move-to-front process asks to be judged next. */
export interface MoveToFrontRequest {
  topic: string;
  docno: string;
  /** The run whose turn it is (the one that contributed this document). */
  run: string;
  /** trec_eval rank of the document in that run. */
  rank: number;
}

/** Known relevance of a document: true relevant, false not relevant, undefined unknown. */
export type RelevanceOracle = (topic: string, docno: string) => boolean | undefined;

/** Which runs and topics the move-to-front process draws from. */
export interface MoveToFrontOptions {
  /** Only each run's top `depth` documents (trec_eval order) take part; default: all of them. */
  depth?: number;
  /** Topics to judge, in this order; default: every topic some run retrieved for. */
  topics?: Iterable<string>;
  /** Names of the runs to draw from; default: all. */
  runs?: string[];
}

/** A run's candidate for one topic: the document and its 0-based index in the run. */
interface Candidate {
  run: number;
  docno: string;
  rank: number;
}

/**
 * Move-to-front over the ranked lists of one topic. Each run has a priority (initially 0); the
 * run with the highest priority (ties: earlier run) has the turn and offers its next document not
 * yet offered by any run. Relevant feedback keeps the turn; non-relevant feedback lowers the run's
 * priority by one and passes the turn on. Exhausted runs leave the rotation.
 */
export class TopicMoveToFront {
  private readonly lists: string[][];
  private readonly pointers: number[];
  private readonly priorities: number[];
  private readonly offered = new Set<string>();
  private current = -1;

  constructor(lists: string[][]) {
    this.lists = lists;
    this.pointers = lists.map(() => 0);
    this.priorities = lists.map(() => 0);
  }

  /** The next document to judge, or undefined when every run is exhausted. */
  nextCandidate(): Candidate | undefined {
    for (;;) {
      if (this.current < 0) {
        this.current = this.pickRun();
        if (this.current < 0) return undefined;
      }
      const list = this.lists[this.current]!;
      let p = this.pointers[this.current]!;
      while (p < list.length && this.offered.has(list[p]!)) p++;
      if (p >= list.length) {
        this.pointers[this.current] = p;
        this.current = -1;
        continue;
      }
      this.pointers[this.current] = p + 1;
      const docno = list[p]!;
      this.offered.add(docno);
      return { run: this.current, docno, rank: p + 1 };
    }
  }

  /** Feedback on the last candidate: relevant keeps the run's turn, non-relevant demotes it. */
  feedback(relevant: boolean): void {
    if (this.current < 0) return;
    if (!relevant) {
      this.priorities[this.current]!--;
      this.current = -1;
    }
  }

  private pickRun(): number {
    let best = -1;
    for (let r = 0; r < this.lists.length; r++) {
      if (this.pointers[r]! >= this.lists[r]!.length) continue;
      if (best < 0 || this.priorities[r]! > this.priorities[best]!) best = r;
    }
    return best;
  }
}

/** The static move-to-front order of one topic: the process when every judgment is non-relevant. */
export function staticMoveToFrontOrder(lists: string[][]): string[] {
  return runSteps(staticMoveToFrontOrderSteps(lists));
}

/** {@link staticMoveToFrontOrder} one step per few thousand documents ordered. */
export function* staticMoveToFrontOrderSteps(lists: string[][]): Generator<void, string[], void> {
  const process = new TopicMoveToFront(lists);
  const order: string[] = [];
  while (offerSome(process, order, ITEMS_PER_STEP)) yield;
  return order;
}

/** Appends up to `count` more documents of the static order; false once the runs are exhausted. */
function offerSome(process: TopicMoveToFront, order: string[], count: number): boolean {
  for (let k = 0; k < count; k++) {
    const c = process.nextCandidate();
    if (c === undefined) return false;
    order.push(c.docno);
    process.feedback(false);
  }
  return true;
}

/**
 * Adaptive move-to-front judging over several topics (see `moveToFrontOrder`). Iterate it and
 * call `record` with the judgment of each document before asking for the next one.
 */
export class MoveToFront implements IterableIterator<MoveToFrontRequest> {
  /** Topics in the order they take turns. */
  readonly topics: readonly string[];
  private readonly runNames: string[];
  private readonly processes: TopicMoveToFront[];
  private readonly finished: boolean[];
  private readonly judge: RelevanceOracle;
  private cursor = 0;
  private pending: TopicMoveToFront | undefined;
  private asked = 0;

  constructor(runs: readonly Run[], judge: RelevanceOracle, options: MoveToFrontOptions = {}) {
    const depth = options.depth ?? Number.POSITIVE_INFINITY;
    if (depth !== Number.POSITIVE_INFINITY) checkInteger('depth', depth, 1);
    const chosen = selectRuns(runs, options.runs);
    this.runNames = chosen.map((run) => run.name);
    this.topics = selectTopics(chosen, options.topics);
    this.processes = this.topics.map(
      (topic) =>
        new TopicMoveToFront(
          chosen.map((run) => topRanked(run, topic, depth).map((entry) => entry.docno)),
        ),
    );
    this.finished = this.topics.map(() => false);
    this.judge = judge;
  }

  /** Number of documents handed out so far (documents the oracle knew are not counted). */
  get requested(): number {
    return this.asked;
  }

  /**
   * The next document to judge. Topics take turns (one request each, round-robin); within a
   * topic, documents the oracle already knows are consumed as feedback without being returned.
   */
  next(): IteratorResult<MoveToFrontRequest, undefined> {
    if (this.pending !== undefined) {
      throw new Error('record() the judgment of the previous document before asking for the next');
    }
    for (let tried = 0; tried < this.topics.length; tried++) {
      const t = this.cursor;
      this.cursor = (this.cursor + 1) % this.topics.length;
      if (this.finished[t]) continue;
      const topic = this.topics[t]!;
      const process = this.processes[t]!;
      for (;;) {
        const candidate = process.nextCandidate();
        if (candidate === undefined) {
          this.finished[t] = true;
          break;
        }
        const known = this.judge(topic, candidate.docno);
        if (known !== undefined) {
          process.feedback(known);
          continue;
        }
        this.pending = process;
        this.asked++;
        const request: MoveToFrontRequest = {
          topic,
          docno: candidate.docno,
          run: this.runNames[candidate.run]!,
          rank: candidate.rank,
        };
        return { done: false, value: request };
      }
    }
    return { done: true, value: undefined };
  }

  /** Records the judgment of the document last returned by `next()`. */
  record(relevant: boolean): void {
    if (this.pending === undefined) throw new Error('record() called with no document pending');
    this.pending.feedback(relevant);
    this.pending = undefined;
  }

  [Symbol.iterator](): this {
    return this;
  }
}

/**
 * Move-to-front judging (Cormack, Palmer & Clarke 1998), per topic: runs take turns offering
 * their next document not yet offered; a run keeps its turn while its documents are relevant and
 * drops one priority level at each non-relevant one. `judge` supplies labels already known
 * (consumed as feedback at no cost); unknown documents are returned by `next()` and their
 * judgment is given with `record()`.
 */
export function moveToFrontOrder(
  runs: readonly Run[],
  judge: RelevanceOracle = () => undefined,
  options: MoveToFrontOptions = {},
): MoveToFront {
  return new MoveToFront(runs, judge, options);
}

/**
 * A relevance oracle from label sets: grade ≥ relevanceLevel is relevant, 0 ≤ grade below it is
 * not, and negative grades (pooled, not judged) or missing pairs are unknown. The first label set
 * holding a non-negative grade for the pair wins.
 */
export function judgeFromQrels(labelSets: readonly Qrels[], relevanceLevel = 1): RelevanceOracle {
  return (topic, docno) => {
    for (const qrels of labelSets) {
      const grade = qrels.get(topic)?.get(docno);
      if (grade !== undefined && grade >= 0) return grade >= relevanceLevel;
    }
    return undefined;
  };
}
