// The labelling screen's work: items fetched ahead and shown from memory, each grade kept
// in the outbox on this device and sent behind the next item, undo and skip, the input
// lock, and what happens when the server cannot be reached or no longer accepts the token.
// The page (+page.svelte) and its components show what this holds.
import { onDestroy, onMount } from 'svelte';
import { api, failureOf, getToken, type AnnotationItem } from '$lib/api';
import { inputLocked, ItemClock, LookAhead, ProgressCount } from '$lib/look-ahead';
import { labelOutbox, type PendingLabel, type Refused } from '$lib/outbox';
import { session } from '$lib/session.svelte';

/**
 * The labelling of campaign `param` (as the address names it). Called while the page is
 * made: its start and end follow the page's.
 */
export function labelling(param: string) {
  const campaign = /^[0-9]{1,15}$/.test(param) ? Number(param) : NaN;
  const historyKey = `assay.history.${campaign}`;
  const outbox = labelOutbox(campaign);
  /** Items fetched ahead: fetched again when fewer than LOW wait in memory. */
  const AHEAD = 6;
  const LOW = 3;

  let current = $state<AnnotationItem | null>(null);
  let finished = $state(false);
  // loading: first answer not in yet; saving: waiting for the server (no item in memory,
  // or an undo or skip on its way); missing: no such campaign of this person (the page
  // stops there); signed-out: the server does not accept the token (labels wait).
  let status = $state<'loading' | 'ready' | 'saving' | 'offline' | 'signed-out' | 'missing'>(
    'loading',
  );
  let waiting = $state<PendingLabel[]>([]);
  let refused = $state<Refused<PendingLabel>[]>([]);
  let message = $state('');
  let missing = $state('');
  let showHelp = $state(false);
  /** The line confirming the last grade given (item and grade). */
  let lastGrade = $state<{ item: number; grade: number } | null>(null);
  /** Why the last key was ignored during the input lock. */
  let lockHint = $state('');
  let locked = $state(false);
  let progress = $state({ done: 0, total: 0 });
  let shownAt = 0;
  let lockTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryDelay = 1000;
  const ahead = new LookAhead<AnnotationItem>();
  const count = new ProgressCount();
  const clock = new ItemClock();
  // Every request to the server runs in this one queue, in order: a label is sent before
  // the next items are fetched, an undo after the labels before it.
  let queue: Promise<void> = Promise.resolve();

  // Whose labels wait: the person who gave them (known after a reload too).
  const owner = $derived(waiting.find((l) => l.by)?.by ?? session.me);

  /** Items this annotator labelled, newest last (what `u` undoes), kept across reloads. */
  function history(): number[] {
    try {
      return JSON.parse(sessionStorage.getItem(historyKey) ?? '[]') as number[];
    } catch {
      return [];
    }
  }
  function setHistory(items: number[]) {
    sessionStorage.setItem(historyKey, JSON.stringify(items.slice(-200)));
  }

  function refreshQueue() {
    waiting = outbox.pending();
    refused = outbox.refused();
  }

  function inBackground(task: () => Promise<void>) {
    queue = queue.then(task).catch((error: unknown) => failed(error, 'Cannot reach the server'));
  }

  /** A failed request: retried later, a sign-in asked for, or the page's end. */
  function failed(error: unknown, what: string) {
    const failure = failureOf(error);
    if (failure.kind === 'offline') return goOffline();
    if (failure.kind === 'signed-out') return signedOut();
    if (!current && !finished && status === 'loading') {
      status = 'missing';
      missing =
        failure.reason.status === 404
          ? `There is no campaign ${param} with items for you (it does not exist, or you are not one of its annotators).`
          : `This campaign cannot be opened: ${failure.reason.message}`;
      return;
    }
    status = current || finished ? 'ready' : 'saving';
    message = `${what}: ${failure.reason.message}`;
  }

  function signedOut() {
    status = 'signed-out';
    clock.pause();
  }

  /** Paints an item (or the end), and starts its input lock and its clock. */
  function show(item: AnnotationItem | undefined) {
    current = item ?? null;
    finished = item === undefined;
    if (!item) return;
    shownAt = performance.now();
    clock.restart();
    lockHint = '';
    const lockMs = item.campaign.inputLockMs;
    clearTimeout(lockTimer);
    locked = lockMs > 0;
    if (locked) lockTimer = setTimeout(() => (locked = false), lockMs);
  }

  function goOffline() {
    status = 'offline';
    clock.pause();
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => inBackground(sync), retryDelay);
    retryDelay = Math.min(retryDelay * 2, 10_000);
  }

  /**
   * Sends waiting labels; fetches the next items when few wait in memory (or none is on
   * screen); on a lost connection, retries.
   */
  async function sync(options: { fetch?: 'always' | 'never' } = {}) {
    clearTimeout(retryTimer);
    if (status === 'missing') return;
    if (!getToken()) {
      refreshQueue();
      return signedOut();
    }
    const result = await outbox.flush(
      async (l) => void (await api.label(l.campaign, l.item, l.grade, l.seconds)),
      failureOf,
    );
    refreshQueue();
    if (result.refused > 0)
      message = `${result.refused} label(s) refused by the server: see the list below.`;
    if (result.stopped === 'offline') return goOffline();
    if (result.stopped === 'signed-out') return signedOut();
    retryDelay = 1000;
    const fetch =
      options.fetch === 'always' ||
      (options.fetch !== 'never' && (!current || ahead.length < LOW || status !== 'ready'));
    if (fetch) await fetchAhead();
    if (current || finished) {
      status = 'ready';
      clock.resume();
    }
  }

  /** Fetches the next items; shows the first when nothing is on screen. */
  async function fetchAhead() {
    // Grades given while the request is on its way are not in the server's count.
    const included = count.asking(outbox.pending().length);
    const next = await api.nextItems(campaign, AHEAD);
    count.counted(next.progress, included);
    progress = count.now;
    const left = ahead.replace(next.items, current?.item.id);
    if (current) return;
    if (left > 0) show(ahead.take());
    // Everything is labelled once the server has nothing left and holds every label.
    else if (outbox.pending().length === 0) show(undefined);
  }

  /** Why a key does nothing now, said where the person looks. */
  function ignored(what: string) {
    if (status === 'offline')
      message = `${what} ignored: the server cannot be reached, so this page takes no grade now; your labels are kept on this device and sent when it is back.`;
    else if (status === 'signed-out')
      message = `${what} ignored: sign in again first (your labels are kept on this device).`;
    else if (status === 'saving' || status === 'loading')
      message = `${what} ignored: waiting for the server to show the next item.`;
  }

  function grade(value: number, key?: string) {
    if (!current) return ignored(`Grade ${value}`);
    if (status !== 'ready') return ignored(`Grade ${value}`);
    if (key !== undefined) {
      const lock = inputLocked(key, shownAt, current.campaign.inputLockMs, performance.now());
      if (lock) {
        lockHint = lock;
        return;
      }
    }
    if (!current.scale.grades.some((g) => g.grade === value)) {
      message = `${value} is not a grade of this campaign (${current.scale.grades.map((g) => g.grade).join(', ')}).`;
      return;
    }
    const me = session.me;
    const item = current.item.id;
    outbox.enqueue({
      campaign,
      item,
      grade: value,
      seconds: clock.seconds(),
      ...(me ? { by: { id: me.id, name: me.name } } : {}),
    });
    setHistory([...history(), item]);
    ahead.graded(item);
    count.graded();
    progress = count.now;
    lastGrade = { item, grade: value };
    message = '';
    // The next item shows from memory; the label goes to the server behind it.
    const next = ahead.take();
    if (next) show(next);
    else {
      current = null;
      status = 'saving';
      clock.pause();
    }
    inBackground(() => sync());
  }

  function undo() {
    if (status !== 'ready') return ignored('Undo');
    const items = history();
    const last = items.pop();
    if (last === undefined) {
      message = 'Nothing to undo.';
      return;
    }
    status = 'saving';
    inBackground(async () => {
      // The label to undo reaches the server first.
      await sync({ fetch: 'never' });
      if (status !== 'ready') return;
      status = 'saving';
      try {
        const undone = await api.undo(campaign, last);
        setHistory(items);
        ahead.ungraded(last);
        const item = await api.item(campaign, last);
        if (current) ahead.putBack(current);
        // No grade is given while the undo is on its way (the page is saving).
        count.counted(undone.progress, count.asking(outbox.pending().length));
        progress = count.now;
        show(item);
        lastGrade = null;
        message = 'Undone: grade this item again.';
        status = 'ready';
      } catch (error) {
        if (failureOf(error).kind === 'refused') setHistory(items);
        failed(error, 'Cannot undo');
      }
    });
  }

  function skip(key?: string) {
    if (!current) return;
    if (status !== 'ready') return ignored('Skip');
    if (key !== undefined) {
      const lock = inputLocked(key, shownAt, current.campaign.inputLockMs, performance.now());
      if (lock) {
        lockHint = lock;
        return;
      }
    }
    const item = current.item.id;
    const next = ahead.take();
    if (next) show(next);
    else {
      current = null;
      status = 'saving';
    }
    message = 'Skipped: it comes back at the end.';
    inBackground(async () => {
      try {
        await api.skip(campaign, item);
      } catch (error) {
        failed(error, 'Cannot skip');
        return;
      }
      // The skipped item goes to the back of the list fetched next.
      await sync({ fetch: 'always' });
    });
  }

  function onKey(event: KeyboardEvent) {
    const target = event.target as HTMLElement | null;
    if (target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (status === 'missing' || status === 'loading') return;
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      grade(Number(event.key), event.key);
    } else if (event.key === 'u') undo();
    else if (event.key === 's') skip(event.key);
    else if (event.key === '?') showHelp = !showHelp;
    else if (event.key === 'Escape') showHelp = false;
  }

  onMount(() => {
    if (Number.isNaN(campaign)) {
      status = 'missing';
      missing = `"${param}" is not a campaign: a labelling address ends in the campaign's number, as in /annotate/3.`;
      return;
    }
    refreshQueue();
    inBackground(() => sync());
    const online = () => {
      if (status === 'offline') inBackground(() => sync());
    };
    window.addEventListener('online', online);
    return () => window.removeEventListener('online', online);
  });
  onDestroy(() => {
    clearTimeout(retryTimer);
    clearTimeout(lockTimer);
  });

  return {
    campaign,
    param,
    get current() {
      return current;
    },
    get finished() {
      return finished;
    },
    get status() {
      return status;
    },
    get waiting() {
      return waiting;
    },
    get refused() {
      return refused;
    },
    get message() {
      return message;
    },
    get missing() {
      return missing;
    },
    get showHelp() {
      return showHelp;
    },
    set showHelp(show: boolean) {
      showHelp = show;
    },
    get lastGrade() {
      return lastGrade;
    },
    get lockHint() {
      return lockHint;
    },
    get locked() {
      return locked;
    },
    get progress() {
      return progress;
    },
    get owner() {
      return owner;
    },
    grade,
    undo,
    skip,
    onKey,
    /** Sends what waits (and fetches what is missing) now. */
    retry: () => inBackground(() => sync()),
    /** Forgets the labels the server refused. */
    forgetRefused() {
      outbox.discardRefused();
      refreshQueue();
      message = '';
    },
  };
}
