import { DATA, settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';
import { loadBank } from './requests';

// A nugget bank with one topic's nuggets: the topic of `?topic=`, else the first. The page
// fetches it again after each edit (`invalidate(DATA.nuggetBank)`).
export const load: PageLoad = async ({ params, url, depends }) => {
  depends(DATA.nuggetBank);
  const collection = params.c ?? '';
  const bank = params.bank ?? '';
  const asked = url.searchParams.get('topic') ?? undefined;
  const detail = await settle(
    () => loadBank(collection, bank, asked),
    await signedInAsAdmin(),
    `${DATA.nuggetBank} ${collection} ${bank} ${asked ?? ''}`,
  );
  return { collection, bank, topic: asked ?? detail.value?.topics[0] ?? '', detail };
};
