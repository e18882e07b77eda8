// The labelling screen's decisions that need no browser: which campaign an address names,
// when to fetch more items, how long to wait before trying the server again, what a failed
// request means for the screen, and what the person is told when a key does nothing.
import type { Failure } from './outbox';

/**
 * Where the labelling screen stands. loading: the first answer is not in yet; ready: an
 * item (or the end) is on screen; saving: waiting for the server (no item in memory, or an
 * undo or skip on its way); offline: the server cannot be reached (labels wait, retried);
 * signed-out: the server does not accept the token (labels wait); missing: no such
 * campaign of this person (the page stops there).
 */
export type LabellingStatus = 'loading' | 'ready' | 'saving' | 'offline' | 'signed-out' | 'missing';

/** Items fetched at once, fetched again when fewer than {@link LOW_WATER} wait in memory. */
export const AHEAD = 6;
export const LOW_WATER = 3;

/** The campaign an address's last segment names (`/annotate/3`), or null when it names none. */
export function campaignOf(param: string): number | null {
  return /^[0-9]{1,15}$/.test(param) ? Number(param) : null;
}

/** What the screen says of an address that names no campaign. */
export function notACampaign(param: string): string {
  return `"${param}" is not a campaign: a labelling address ends in the campaign's number, as in /annotate/3.`;
}

/**
 * Whether a sync fetches the next items: when asked to (`always`, after a skip), never
 * when told not to (before an undo), else when nothing is on screen, few items wait in
 * memory, or the screen is not ready.
 */
export function needsFetch(
  fetch: 'always' | 'never' | undefined,
  screen: { onScreen: boolean; inMemory: number; status: LabellingStatus },
): boolean {
  if (fetch !== undefined) return fetch === 'always';
  return !screen.onScreen || screen.inMemory < LOW_WATER || screen.status !== 'ready';
}

/** How long to wait before trying an unreachable server again: 1 s, doubled up to 10 s. */
export class RetryDelay {
  private delay = 1000;

  /** The wait before the next attempt (each call waits longer). */
  next(): number {
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, 10_000);
    return wait;
  }

  /** The server answered: the next wait is short again. */
  reset(): void {
    this.delay = 1000;
  }
}

/** What a failed request means for the screen. */
export type FailureOutcome =
  | { kind: 'offline' }
  | { kind: 'signed-out' }
  | { kind: 'missing'; missing: string }
  | { kind: 'shown'; status: LabellingStatus; message: string };

/**
 * What a failed request (`what` says which: "Cannot undo") means: wait for the server,
 * ask for a sign-in, or show the server's reason. A refusal before anything was shown
 * means the campaign is not one this person can open: the page stops there.
 */
export function afterFailure(
  failure: Failure,
  screen: { onScreen: boolean; finished: boolean; status: LabellingStatus },
  what: string,
  param: string,
): FailureOutcome {
  if (failure.kind === 'offline') return { kind: 'offline' };
  if (failure.kind === 'signed-out') return { kind: 'signed-out' };
  if (!screen.onScreen && !screen.finished && screen.status === 'loading')
    return {
      kind: 'missing',
      missing:
        failure.reason.status === 404
          ? `There is no campaign ${param} with items for you (it does not exist, or you are not one of its annotators).`
          : `This campaign cannot be opened: ${failure.reason.message}`,
    };
  return {
    kind: 'shown',
    status: screen.onScreen || screen.finished ? 'ready' : 'saving',
    message: `${what}: ${failure.reason.message}`,
  };
}

/**
 * Why a key (`what`: "Grade 2", "Undo", "Skip") does nothing now, said where the person
 * looks; undefined when the screen is ready (the key was ignored for a reason of its own).
 */
export function ignoredMessage(what: string, status: LabellingStatus): string | undefined {
  if (status === 'offline')
    return `${what} ignored: the server cannot be reached, so this page takes no grade now; your labels are kept on this device and sent when it is back.`;
  if (status === 'signed-out')
    return `${what} ignored: sign in again first (your labels are kept on this device).`;
  if (status === 'saving' || status === 'loading')
    return `${what} ignored: waiting for the server to show the next item.`;
  return undefined;
}

/** What the screen says of a digit that is no grade of the campaign's scale. */
export function notAGrade(value: number, grades: ReadonlyArray<{ grade: number }>): string {
  return `${value} is not a grade of this campaign (${grades.map((g) => g.grade).join(', ')}).`;
}
