import { api } from '$lib/api';
import { settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

// Every response set, with its counts.
export const load: PageLoad = async () => ({
  sets: await settle(() => api.responseSets(), await signedInAsAdmin()),
});
