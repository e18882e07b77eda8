import { api } from '$lib/api';
import { settle } from '$lib/page-load';
import type { PageLoad } from './$types';

// A published leaderboard: anyone may read it, signed in or not.
export const load: PageLoad = async ({ params }) => ({
  board: await settle(() => api.publicLeaderboard(params.slug ?? '')),
});
