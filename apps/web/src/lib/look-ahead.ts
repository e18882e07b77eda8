// What keeps the labelling screen quick and honest: the items fetched ahead (the next one
// shows from memory while the label is sent in the background), the annotator's progress
// counted between two answers of the server, the input lock after a new item appears, and
// a clock of the time an item was on screen while the server could be reached.

/** The part of an item the look-ahead needs: its id. */
interface Identified {
  item: { id: number };
}

/**
 * The next items of one annotator, fetched ahead, in the order the server serves them. An
 * item graded on this page is never handed out again (unless its grade is undone), even
 * when a fetch made before its label reached the server still lists it; each fetch
 * replaces the list, so an item labelled elsewhere or taken out of the annotator's
 * assignment meanwhile drops out with the next fetch.
 */
export class LookAhead<T extends Identified> {
  private items: T[] = [];
  private readonly given = new Set<number>();

  /** How many items are waiting in memory. */
  get length(): number {
    return this.items.length;
  }

  /** Takes the next item to show, if one is in memory. */
  take(): T | undefined {
    return this.items.shift();
  }

  /** Puts an item back in front (the one on screen when an earlier one comes back). */
  putBack(item: T): void {
    this.items = [item, ...this.items.filter((i) => i.item.id !== item.item.id)];
  }

  /** The item was graded here: it is not handed out again. */
  graded(id: number): void {
    this.given.add(id);
    this.items = this.items.filter((i) => i.item.id !== id);
  }

  /** Its grade was undone: it may be handed out again. */
  ungraded(id: number): void {
    this.given.delete(id);
  }

  /**
   * Replaces the items in memory with the server's answer, without the item on screen and
   * the items graded here. Returns how many the server still had for the annotator.
   */
  replace(fetched: readonly T[], onScreen: number | undefined): number {
    const fresh = fetched.filter((i) => i.item.id !== onScreen && !this.given.has(i.item.id));
    this.items = fresh;
    return fresh.length;
  }
}

/**
 * The annotator's progress between two answers of the server: the server's count, plus
 * the grades given here since that count was taken.
 */
export class ProgressCount {
  private done = 0;
  private total = 0;
  private givenAtCount = 0;
  private given = 0;

  /**
   * Called as the count is asked for, while `unsent` grades given here have not reached
   * the server: how many grades given here the server's answer includes (pass it to
   * {@link counted}). Grades given while the request is on its way are not in the answer.
   */
  asking(unsent: number): number {
    return this.given - unsent;
  }

  /** What the server counted; `included` is what {@link asking} said when it was asked. */
  counted(progress: { done: number; total: number }, included: number): void {
    this.done = progress.done;
    this.total = progress.total;
    this.givenAtCount = included;
  }

  /** One more grade given here. */
  graded(): void {
    this.given++;
  }

  /** Done and total as they stand now (done never above total). */
  get now(): { done: number; total: number } {
    const done = Math.min(this.total, this.done + this.given - this.givenAtCount);
    return { done, total: this.total };
  }
}

/**
 * Time spent on an item, without the time the page could not take a grade (the server
 * out of reach, the person signed out): the seconds sent with each label.
 */
export class ItemClock {
  private startedAt: number;
  private pausedAt: number | null = null;
  private paused = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.startedAt = now();
  }

  /** A new item is on screen. */
  restart(): void {
    this.startedAt = this.now();
    this.paused = 0;
    if (this.pausedAt !== null) this.pausedAt = this.startedAt;
  }

  /** The page cannot take a grade now. */
  pause(): void {
    if (this.pausedAt === null) this.pausedAt = this.now();
  }

  /** It can again. */
  resume(): void {
    if (this.pausedAt === null) return;
    this.paused += this.now() - this.pausedAt;
    this.pausedAt = null;
  }

  /** Seconds on this item so far, to a tenth. */
  seconds(): number {
    const end = this.pausedAt ?? this.now();
    return Math.round(Math.max(0, end - this.startedAt - this.paused) / 100) / 10;
  }
}

/**
 * Why a grade key does nothing during the input lock, or undefined when the lock is over:
 * `shownAt` is when the item appeared, `lockMs` the campaign's lock (0: none).
 */
export function inputLocked(
  key: string,
  shownAt: number,
  lockMs: number,
  now: number,
): string | undefined {
  const since = Math.max(0, Math.round(now - shownAt));
  if (lockMs <= 0 || since >= lockMs) return undefined;
  return `Key ${key} ignored: this item appeared ${since} ms ago; keys count from ${lockMs} ms after a new item appears, so no grade goes to an item you have not seen.`;
}
