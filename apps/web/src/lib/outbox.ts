// What the person gave (labels, hand scores) that the server has not confirmed yet. Kept in
// localStorage, so neither a reload, a lost connection nor a revoked token loses one: sent
// in order and retried while the server cannot be reached; kept, waiting, while the server
// does not know the person (sign in again, then they are sent); set apart with the server's
// reason when the server refuses one for good (shown, exportable, discarded only on request).

import { csvRow } from '@assay/platform/formats';

/** The part of the Web Storage API the outbox uses (localStorage in the browser). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const storage = () => (globalThis as unknown as { localStorage: KeyValueStore }).localStorage;

/** Why the server refused an entry: its status, stable code and message. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** An entry the server refused for good, with the reason and when. */
export interface Refused<T> {
  entry: T;
  reason: Refusal;
  at: string;
}

/**
 * What a failed send means: `offline` (the server was not reached or failed: retry later),
 * `signed-out` (the server does not accept the token: keep everything, sign in again), or
 * `refused` (this entry will never be accepted: set it apart with the reason).
 */
export type Failure =
  { kind: 'offline' } | { kind: 'signed-out' } | { kind: 'refused'; reason: Refusal };

/** How a flush ended: everything sent, or stopped by a lost connection or a lost sign-in. */
export interface FlushResult {
  sent: number;
  left: number;
  refused: number;
  stopped: 'offline' | 'signed-out' | null;
}

function read<T>(key: string): T[] {
  try {
    const value = JSON.parse(storage().getItem(key) ?? '[]') as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

function write<T>(key: string, entries: T[]): void {
  if (entries.length === 0) storage().removeItem(key);
  else storage().setItem(key, JSON.stringify(entries));
}

/** A persisted queue of entries; `same` tells two entries for the same thing apart. */
export class Outbox<T> {
  constructor(
    private readonly key: string,
    private readonly same: (a: T, b: T) => boolean,
  ) {}

  /** Entries waiting to be sent, oldest first. */
  pending(): T[] {
    return read<T>(this.key);
  }

  /** Entries the server refused for good, oldest first. */
  refused(): Refused<T>[] {
    return read<Refused<T>>(`${this.key}.refused`);
  }

  /** Queues an entry; a newer entry for the same thing replaces the queued one. */
  enqueue(entry: T): void {
    write(this.key, [...this.pending().filter((e) => !this.same(e, entry)), entry]);
  }

  /** Forgets the refused entries (after the person exported or read them). */
  discardRefused(): void {
    write(`${this.key}.refused`, []);
  }

  /**
   * Sends the queued entries in order with `send`; each one confirmed leaves the queue.
   * Stops, keeping the rest, at a lost connection or a lost sign-in; an entry refused for
   * good moves to `refused()` with the reason, and the next is sent.
   */
  async flush(
    send: (entry: T) => Promise<void>,
    classify: (error: unknown) => Failure,
  ): Promise<FlushResult> {
    let sent = 0;
    let refused = 0;
    for (;;) {
      const [first] = this.pending();
      if (first === undefined) return { sent, left: 0, refused, stopped: null };
      try {
        await send(first);
        sent++;
      } catch (error) {
        const failure = classify(error);
        if (failure.kind !== 'refused')
          return { sent, left: this.pending().length, refused, stopped: failure.kind };
        write(`${this.key}.refused`, [
          ...this.refused(),
          { entry: first, reason: failure.reason, at: new Date().toISOString() },
        ]);
        refused++;
      }
      // Only this very entry leaves: a newer one for the same thing queued meanwhile stays.
      const sentJson = JSON.stringify(first);
      write(
        this.key,
        this.pending().filter((e) => JSON.stringify(e) !== sentJson),
      );
    }
  }
}

/** A label given in a campaign. */
export interface PendingLabel {
  campaign: number;
  item: number;
  grade: number;
  seconds: number;
  /** Who gave it (labels are sent only under that person's sign-in). */
  by?: { id: number; name: string };
}

/** The labels of one campaign waiting for the server. */
export function labelOutbox(campaign: number): Outbox<PendingLabel> {
  return new Outbox<PendingLabel>(`assay.outbox.${campaign}`, (a, b) => a.item === b.item);
}

/** A hand score given to one criterion of an answer. */
export interface PendingHandScore {
  responseSet: string;
  judge: string;
  topic: string;
  system: string;
  criterion: string;
  grade: number;
  by?: { id: number; name: string };
}

/** The hand scores waiting for the server (one queue for every response set). */
export function handScoreOutbox(): Outbox<PendingHandScore> {
  return new Outbox<PendingHandScore>(
    'assay.outbox.hand-scores',
    (a, b) =>
      a.responseSet === b.responseSet &&
      a.judge === b.judge &&
      a.topic === b.topic &&
      a.system === b.system &&
      a.criterion === b.criterion,
  );
}

/** Refused entries as a JSON file's text. */
export function refusedJson<T>(refused: Refused<T>[]): string {
  return JSON.stringify(refused, null, 2) + '\n';
}

/** Refused labels as CSV: campaign, item, grade, seconds, status, code, reason, refused at. */
export function refusedLabelsCsv(refused: Refused<PendingLabel>[]): string {
  const header = ['campaign', 'item', 'grade', 'seconds', 'status', 'code', 'reason', 'refused_at'];
  const rows = refused.map((r) =>
    csvRow([
      r.entry.campaign,
      r.entry.item,
      r.entry.grade,
      r.entry.seconds,
      r.reason.status,
      r.reason.code,
      r.reason.message,
      r.at,
    ]),
  );
  return [csvRow(header), ...rows].map((line) => `${line}\n`).join('');
}
