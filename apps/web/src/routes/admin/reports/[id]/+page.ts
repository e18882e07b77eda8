import { api } from '$lib/api';
import { settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ params }) => {
  const id = Number(params.id);
  return { report: await settle(() => api.report(id), await signedInAsAdmin()) };
};
