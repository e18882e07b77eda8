// The items an annotator labelled on this labelling screen, newest last: what `u` undoes.
// Kept in sessionStorage, so a reload of the tab keeps it and another tab has its own.

/** The part of the Web Storage API the history uses (sessionStorage in the browser). */
export interface HistoryStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** How many items the history keeps (the oldest go first). */
export const HISTORY_LIMIT = 200;

/** The undo history of one campaign. */
export class UndoHistory {
  private readonly key: string;

  constructor(
    private readonly store: HistoryStore,
    campaign: number,
  ) {
    this.key = `assay.history.${campaign}`;
  }

  /** The items labelled, oldest first; none when nothing (or nothing readable) is kept. */
  items(): number[] {
    try {
      const items: unknown = JSON.parse(this.store.getItem(this.key) ?? '[]');
      return Array.isArray(items) ? items.filter((i): i is number => Number.isInteger(i)) : [];
    } catch {
      return [];
    }
  }

  /** Keeps `items` as the history (its newest {@link HISTORY_LIMIT}). */
  set(items: readonly number[]): void {
    this.store.setItem(this.key, JSON.stringify(items.slice(-HISTORY_LIMIT)));
  }

  /** Adds an item just labelled. */
  push(item: number): void {
    this.set([...this.items(), item]);
  }
}
