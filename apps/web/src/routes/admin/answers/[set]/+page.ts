import { api } from '$lib/api';
import { DATA, settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

// The response set (its answers and score sets) and the judge templates whose rubric a
// person can score answers on.
export const load: PageLoad = async ({ params, depends }) => {
  depends(DATA.responseSet);
  const setName = params.set ?? '';
  const admin = await signedInAsAdmin();
  const [detail, judges] = await Promise.all([
    settle(() => api.responseSet(setName), admin, `${DATA.responseSet} ${setName}`),
    settle(() => api.judges(), admin),
  ]);
  return {
    setName,
    detail,
    judges: {
      value: (judges.value ?? []).filter(
        (j) => j.kind === 'answer-quality' || j.kind === 'groundedness',
      ),
      error: judges.error,
    },
  };
};
