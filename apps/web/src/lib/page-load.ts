// What the pages' load functions (+page.ts) share: the session is known before a request
// goes, and a failed request becomes the message the page shows in its place (an admin
// page shows the server's message, as it does for any later request).
import { session, sessionStarted } from './session.svelte';

/** A request of a page's load: its answer, or the message of why there is none. */
export interface Loaded<T> {
  value: T | null;
  /** '' when the request succeeded (or was not sent). */
  error: string;
}

/**
 * Whether an admin page's requests may go: someone is signed in as an admin. Anyone else
 * gets the admin layout's one message, and the page's load sends none of its requests.
 */
export async function signedInAsAdmin(): Promise<boolean> {
  await sessionStarted();
  return session.me?.role === 'admin';
}

/** Sends a request (unless `send` is false) and keeps its answer or its error message. */
export async function settle<T>(request: () => Promise<T>, send = true): Promise<Loaded<T>> {
  if (!send) return { value: null, error: '' };
  try {
    return { value: await request(), error: '' };
  } catch (e) {
    return { value: null, error: (e as Error).message };
  }
}

/**
 * What a page's load depends on (`depends(key)`): after a change the page calls
 * `invalidate(key)`, and its load, the one place its data is fetched, runs again.
 */
export const DATA = {
  collection: 'app:collection',
  responseSet: 'app:response-set',
  rag: 'app:rag',
  nuggetBank: 'app:nugget-bank',
} as const;
