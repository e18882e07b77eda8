import { sessionStarted } from '$lib/session.svelte';
import type { LayoutLoad } from './$types';

// A single-page app: everything renders in the browser and talks to /api.
export const ssr = false;
export const prerender = false;

// Who is signed in is known before any page's load asks the server for its data (a load
// sends the token an invite link may just have replaced).
export const load: LayoutLoad = async () => {
  await sessionStarted();
};
