// Labels the annotator gave that the server has not confirmed yet. Kept in localStorage,
// so neither a reload nor a lost connection loses one; sent in order, retried until the
// server answers.

export interface PendingLabel {
  campaign: number;
  item: number;
  grade: number;
  seconds: number;
}

/** The part of the Web Storage API the outbox uses (localStorage in the browser). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const storage = () => (globalThis as unknown as { localStorage: KeyValueStore }).localStorage;

const key = (campaign: number) => `assay.outbox.${campaign}`;

export function pendingLabels(campaign: number): PendingLabel[] {
  try {
    return JSON.parse(storage().getItem(key(campaign)) ?? '[]') as PendingLabel[];
  } catch {
    return [];
  }
}

function store(campaign: number, labels: PendingLabel[]): void {
  if (labels.length === 0) storage().removeItem(key(campaign));
  else storage().setItem(key(campaign), JSON.stringify(labels));
}

/** Queues a label (a newer grade of the same item replaces the queued one). */
export function enqueueLabel(label: PendingLabel): void {
  const rest = pendingLabels(label.campaign).filter((l) => l.item !== label.item);
  store(label.campaign, [...rest, label]);
}

/**
 * Sends the queued labels in order with `send`; each one confirmed leaves the queue.
 * Stops at the first failure that is a lost connection (retry later) and drops labels the
 * server refuses for good (e.g. the item is no longer the annotator's), reporting them.
 */
export async function flushLabels(
  campaign: number,
  send: (label: PendingLabel) => Promise<void>,
  isTransient: (error: unknown) => boolean,
  onRefused: (label: PendingLabel, error: unknown) => void = () => {},
): Promise<{ sent: number; left: number }> {
  let sent = 0;
  for (;;) {
    const [first] = pendingLabels(campaign);
    if (!first) return { sent, left: 0 };
    try {
      await send(first);
      sent++;
    } catch (error) {
      if (isTransient(error)) return { sent, left: pendingLabels(campaign).length };
      onRefused(first, error);
    }
    store(
      campaign,
      pendingLabels(campaign).filter((l) => !(l.item === first.item && l.grade === first.grade)),
    );
  }
}
