import { api } from '$lib/api';
import { DATA, settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

// Everything the collection page shows at first, in one answer (one failing request is the
// page's one message), and the judge templates a campaign can take its scale from. The page
// fetches it again after an upload or a change (`invalidate(DATA.collection)`).
export const load: PageLoad = async ({ params, depends }) => {
  depends(DATA.collection);
  const name = params.c ?? '';
  const admin = await signedInAsAdmin();
  const [contents, judges] = await Promise.all([
    settle(
      async () => {
        const [collection, topics, runs, labelSets, jobs, campaigns, users, reports] =
          await Promise.all([
            api.collection(name),
            api.topics(name),
            api.runs(name),
            api.labelSets(name),
            api.judgeJobs(name),
            api.campaigns(name),
            api.users(),
            api.reports(name),
          ]);
        return { collection, topics, runs, labelSets, jobs, campaigns, users, reports };
      },
      admin,
      `${DATA.collection} ${name}`,
    ),
    settle(async () => (await api.judges()).filter((j) => j.kind === 'relevance'), admin),
  ]);
  return { name, contents, judges };
};
