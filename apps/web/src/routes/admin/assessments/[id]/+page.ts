import { signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';
import { loadDetail, loadScores, loadSets, type Detail, type Scores, type Sets } from './requests';

// The set, the collection's other sets (to compare with) and the scores, in that order: a
// failure keeps what came before it and is the page's message.
export const load: PageLoad = async ({ params }) => {
  const id = params.id ?? '';
  let detail: Detail | null = null;
  let others: Sets = [];
  let scores: Scores | null = null;
  let error = '';
  if (await signedInAsAdmin()) {
    try {
      detail = await loadDetail(id);
      others = await loadSets(detail.collectionId);
      scores = await loadScores(id, false);
    } catch (e) {
      error = (e as Error).message;
    }
  }
  return { id, detail, others, scores, error };
};
