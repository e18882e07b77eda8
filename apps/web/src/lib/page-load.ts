// What the pages' load functions (+page.ts) share: the session is known before a request
// goes, and a failed request becomes the message the page shows in its place (an admin
// page shows the server's message, as it does for any later request).
import { session, sessionStarted } from './session.svelte';

export { settle, type Loaded } from './settle';

/**
 * Whether an admin page's requests may go: someone is signed in as an admin. Anyone else
 * gets the admin layout's one message, and the page's load sends none of its requests.
 */
export async function signedInAsAdmin(): Promise<boolean> {
  await sessionStarted();
  return session.me?.role === 'admin';
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
