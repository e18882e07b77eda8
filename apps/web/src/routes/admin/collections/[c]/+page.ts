import { api } from '$lib/api';
import { settle, signedInAsAdmin } from '$lib/page-load';
import type { PageLoad } from './$types';

// Everything the collection page shows at first, in one answer (one failing request is the
// page's one message), and the judge templates a campaign can take its scale from.
export const load: PageLoad = async ({ params }) => {
  const name = params.c ?? '';
  const admin = await signedInAsAdmin();
  const [contents, judges] = await Promise.all([
    settle(async () => {
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
    }, admin),
    settle(async () => (await api.judges()).filter((j) => j.kind === 'relevance'), admin),
  ]);
  return { name, contents, judges };
};
