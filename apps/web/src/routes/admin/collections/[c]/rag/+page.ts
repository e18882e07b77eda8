import { DATA, settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';
import { loadLists } from './requests';

// The collection's nugget banks, rubric sets and assessment sets; the page fetches them
// again after an import or an LLM step (`invalidate(DATA.rag)`).
export const load: PageLoad = async ({ params, depends }) => {
  depends(DATA.rag);
  const name = params.c ?? '';
  return {
    name,
    lists: await settle(() => loadLists(name), await signedInAsAdmin(), `${DATA.rag} ${name}`),
  };
};
