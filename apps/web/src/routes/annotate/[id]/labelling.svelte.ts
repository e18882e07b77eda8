// The labelling screen's work: items fetched ahead and shown from memory, each grade kept
// in the outbox on this device and sent behind the next item, undo and skip, the input
// lock, and what happens when the server cannot be reached or no longer accepts the token.
// The page (+page.svelte) and its components show what this holds; the decisions that need
// no browser are in $lib (labelling-rules, labelling-keys, undo-history, look-ahead, outbox).
import { onDestroy, onMount } from 'svelte';
import { api, failureOf, getToken, type AnnotationItem } from '$lib/api';
import { keyAction } from '$lib/labelling-keys';
import {
  afterFailure,
  AHEAD,
  campaignOf,
  ignoredMessage,
  needsFetch,
  notACampaign,
  notAGrade,
  RetryDelay,
  type LabellingStatus,
} from '$lib/labelling-rules';
import { inputLocked, ItemClock, LookAhead, ProgressCount } from '$lib/look-ahead';
import { labelOutbox, type Outbox, type PendingLabel, type Refused } from '$lib/outbox';
import { session } from '$lib/session.svelte';
import { UndoHistory } from '$lib/undo-history';

/**
 * The labelling of campaign `param` (as the address names it). Called while the page is
 * made: its start and end follow the page's.
 */
export function labelling(param: string): Labelling {
  const screen = new Labelling(param);
  onMount(() => screen.start());
  onDestroy(() => screen.stop());
  return screen;
}

/** What the labelling screen shows, and what its keys and buttons do. */
class Labelling {
  readonly campaign: number;
  current = $state<AnnotationItem | null>(null);
  finished = $state(false);
  status = $state<LabellingStatus>('loading');
  /** Labels on this device the server has not confirmed yet, and those it refused. */
  waiting = $state<PendingLabel[]>([]);
  refused = $state<Refused<PendingLabel>[]>([]);
  message = $state('');
  /** Why the page stops (status `missing`). */
  missing = $state('');
  showHelp = $state(false);
  /** The line confirming the last grade given (item and grade). */
  lastGrade = $state<{ item: number; grade: number } | null>(null);
  /** Why the last key was ignored during the input lock. */
  lockHint = $state('');
  locked = $state(false);
  progress = $state({ done: 0, total: 0 });
  /** Whose labels wait: the person who gave them (known after a reload too). */
  readonly owner = $derived(this.waiting.find((l) => l.by)?.by ?? session.me);

  readonly #outbox: Outbox<PendingLabel>;
  readonly #history: UndoHistory;
  readonly #ahead = new LookAhead<AnnotationItem>();
  readonly #count = new ProgressCount();
  readonly #clock = new ItemClock();
  readonly #retryDelay = new RetryDelay();
  #shownAt = 0;
  #lockTimer: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #stopListening = () => {};
  // Every request to the server runs in this one queue, in order: a label is sent before
  // the next items are fetched, an undo after the labels before it.
  #queue: Promise<void> = Promise.resolve();

  constructor(readonly param: string) {
    this.campaign = campaignOf(param) ?? NaN;
    this.#outbox = labelOutbox(this.campaign);
    // Storage is looked up at each use: making the screen touches none.
    this.#history = new UndoHistory(
      {
        getItem: (key) => sessionStorage.getItem(key),
        setItem: (key, value) => sessionStorage.setItem(key, value),
      },
      this.campaign,
    );
  }

  /** The page is on screen: sends what waits and fetches the first items. */
  start() {
    if (campaignOf(this.param) === null) {
      this.status = 'missing';
      this.missing = notACampaign(this.param);
      return;
    }
    this.#refreshQueue();
    this.#inBackground(() => this.#sync());
    const online = () => {
      if (this.status === 'offline') this.#inBackground(() => this.#sync());
    };
    window.addEventListener('online', online);
    this.#stopListening = () => window.removeEventListener('online', online);
  }

  /** The page is gone: no timer or listener is left behind. */
  stop() {
    this.#stopListening();
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#lockTimer);
  }

  // --- What the person does (handlers, so bound: the page passes them on as they are) ---

  /** Grades the item on screen (`key`: the key pressed, which the input lock may ignore). */
  grade = (value: number, key?: string) => {
    const current = this.current;
    if (!current || this.status !== 'ready') return this.#ignored(`Grade ${value}`);
    if (key !== undefined && this.#lockedOut(key, current)) return;
    if (!current.scale.grades.some((g) => g.grade === value)) {
      this.message = notAGrade(value, current.scale.grades);
      return;
    }
    const me = session.me;
    const item = current.item.id;
    this.#outbox.enqueue({
      campaign: this.campaign,
      item,
      grade: value,
      seconds: this.#clock.seconds(),
      ...(me ? { by: { id: me.id, name: me.name } } : {}),
    });
    this.#history.push(item);
    this.#ahead.graded(item);
    this.#count.graded();
    this.progress = this.#count.now;
    this.lastGrade = { item, grade: value };
    this.message = '';
    // The next item shows from memory; the label goes to the server behind it.
    this.#showNextOrWait({ pauseClock: true });
    this.#inBackground(() => this.#sync());
  };

  /** Undoes the newest label given on this screen: its item comes back to be graded again. */
  undo = () => {
    if (this.status !== 'ready') return this.#ignored('Undo');
    const items = this.#history.items();
    const last = items.pop();
    if (last === undefined) {
      this.message = 'Nothing to undo.';
      return;
    }
    this.status = 'saving';
    this.#inBackground(async () => {
      // The label to undo reaches the server first.
      await this.#sync({ fetch: 'never' });
      if (this.status !== 'ready') return;
      this.status = 'saving';
      try {
        await this.#undoOnServer(last, items);
      } catch (error) {
        if (failureOf(error).kind === 'refused') this.#history.set(items);
        this.#failed(error, 'Cannot undo');
      }
    });
  };

  /** Puts the item on screen at the back of the queue (`key` as for {@link grade}). */
  skip = (key?: string) => {
    const current = this.current;
    if (!current) return;
    if (this.status !== 'ready') return this.#ignored('Skip');
    if (key !== undefined && this.#lockedOut(key, current)) return;
    const item = current.item.id;
    this.#showNextOrWait({ pauseClock: false });
    this.message = 'Skipped: it comes back at the end.';
    this.#inBackground(async () => {
      try {
        await api.skip(this.campaign, item);
      } catch (error) {
        this.#failed(error, 'Cannot skip');
        return;
      }
      // The skipped item goes to the back of the list fetched next.
      await this.#sync({ fetch: 'always' });
    });
  };

  /** A key pressed on the page (see labelling-keys for which do what). */
  onKey = (event: KeyboardEvent) => {
    const action = keyAction({
      key: event.key,
      ctrlKey: event.ctrlKey,
      metaKey: event.metaKey,
      altKey: event.altKey,
      target: event.target as { tagName?: string } | null,
    });
    if (!action || this.status === 'missing' || this.status === 'loading') return;
    if (action.kind === 'grade') {
      event.preventDefault();
      this.grade(action.grade, event.key);
    } else if (action.kind === 'undo') this.undo();
    else if (action.kind === 'skip') this.skip(event.key);
    else if (action.kind === 'toggle-help') this.showHelp = !this.showHelp;
    else this.showHelp = false;
  };

  /** Sends what waits (and fetches what is missing) now. */
  retry = () => this.#inBackground(() => this.#sync());

  /** Forgets the labels the server refused. */
  forgetRefused = () => {
    this.#outbox.discardRefused();
    this.#refreshQueue();
    this.message = '';
  };

  // --- The screen ---

  /** Paints an item (or the end), and starts its input lock and its clock. */
  #show(item: AnnotationItem | undefined) {
    this.current = item ?? null;
    this.finished = item === undefined;
    if (!item) return;
    this.#shownAt = performance.now();
    this.#clock.restart();
    this.lockHint = '';
    const lockMs = item.campaign.inputLockMs;
    clearTimeout(this.#lockTimer);
    this.locked = lockMs > 0;
    if (this.locked) this.#lockTimer = setTimeout(() => (this.locked = false), lockMs);
  }

  /** After a grade or a skip: the next item from memory, or none while the server answers. */
  #showNextOrWait(options: { pauseClock: boolean }) {
    const next = this.#ahead.take();
    if (next) return this.#show(next);
    this.current = null;
    this.status = 'saving';
    if (options.pauseClock) this.#clock.pause();
  }

  /** Whether the input lock ignores `key` (and says so). */
  #lockedOut(key: string, current: AnnotationItem): boolean {
    const lock = inputLocked(key, this.#shownAt, current.campaign.inputLockMs, performance.now());
    if (lock) this.lockHint = lock;
    return lock !== undefined;
  }

  /** Why a key does nothing now, said where the person looks. */
  #ignored(what: string) {
    const message = ignoredMessage(what, this.status);
    if (message !== undefined) this.message = message;
  }

  #refreshQueue() {
    this.waiting = this.#outbox.pending();
    this.refused = this.#outbox.refused();
  }

  // --- The server ---

  #inBackground(task: () => Promise<void>) {
    this.#queue = this.#queue
      .then(task)
      .catch((error: unknown) => this.#failed(error, 'Cannot reach the server'));
  }

  /** A failed request: retried later, a sign-in asked for, or the page's end. */
  #failed(error: unknown, what: string) {
    const outcome = afterFailure(
      failureOf(error),
      { onScreen: this.current !== null, finished: this.finished, status: this.status },
      what,
      this.param,
    );
    if (outcome.kind === 'offline') return this.#goOffline();
    if (outcome.kind === 'signed-out') return this.#signedOut();
    if (outcome.kind === 'missing') {
      this.status = 'missing';
      this.missing = outcome.missing;
      return;
    }
    this.status = outcome.status;
    this.message = outcome.message;
  }

  #signedOut() {
    this.status = 'signed-out';
    this.#clock.pause();
  }

  #goOffline() {
    this.status = 'offline';
    this.#clock.pause();
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(
      () => this.#inBackground(() => this.#sync()),
      this.#retryDelay.next(),
    );
  }

  /**
   * Sends waiting labels; fetches the next items when few wait in memory (or none is on
   * screen); on a lost connection, retries.
   */
  async #sync(options: { fetch?: 'always' | 'never' } = {}) {
    clearTimeout(this.#retryTimer);
    if (this.status === 'missing') return;
    if (!getToken()) {
      this.#refreshQueue();
      return this.#signedOut();
    }
    const result = await this.#outbox.flush(
      async (l) => void (await api.label(l.campaign, l.item, l.grade, l.seconds)),
      failureOf,
    );
    this.#refreshQueue();
    if (result.refused > 0)
      this.message = `${result.refused} label(s) refused by the server: see the list below.`;
    if (result.stopped === 'offline') return this.#goOffline();
    if (result.stopped === 'signed-out') return this.#signedOut();
    this.#retryDelay.reset();
    const screen = {
      onScreen: this.current !== null,
      inMemory: this.#ahead.length,
      status: this.status,
    };
    if (needsFetch(options.fetch, screen)) await this.#fetchAhead();
    if (this.current || this.finished) {
      this.status = 'ready';
      this.#clock.resume();
    }
  }

  /** Fetches the next items; shows the first when nothing is on screen. */
  async #fetchAhead() {
    // Grades given while the request is on its way are not in the server's count.
    const included = this.#count.asking(this.#outbox.pending().length);
    const next = await api.nextItems(this.campaign, AHEAD);
    this.#count.counted(next.progress, included);
    this.progress = this.#count.now;
    const left = this.#ahead.replace(next.items, this.current?.item.id);
    if (this.current) return;
    if (left > 0) this.#show(this.#ahead.take());
    // Everything is labelled once the server has nothing left and holds every label.
    else if (this.#outbox.pending().length === 0) this.#show(undefined);
  }

  /** Undoes `last` on the server and shows it again; `rest` is the history without it. */
  async #undoOnServer(last: number, rest: number[]) {
    const undone = await api.undo(this.campaign, last);
    this.#history.set(rest);
    this.#ahead.ungraded(last);
    const item = await api.item(this.campaign, last);
    if (this.current) this.#ahead.putBack(this.current);
    // No grade is given while the undo is on its way (the page is saving).
    this.#count.counted(undone.progress, this.#count.asking(this.#outbox.pending().length));
    this.progress = this.#count.now;
    this.#show(item);
    this.lastGrade = null;
    this.message = 'Undone: grade this item again.';
    this.status = 'ready';
  }
}
