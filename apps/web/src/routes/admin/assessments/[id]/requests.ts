// The assessment set page's requests, through the typed client of the API.
import { client, ok } from '$lib/rag-api';

const set = client.api['assessment-sets'][':id'];

/** The assessment set: what it judges, by whom, and how far. */
export const loadDetail = (id: string) => ok(set.$get({ param: { id } }));

/** The systems' scores from the set's labels (support: optionally the first citation only). */
export const loadScores = (id: string, firstCitationOnly: boolean) =>
  ok(
    set.scores.$get({
      param: { id },
      query: firstCitationOnly ? { firstCitationOnly: 'true' } : {},
    }),
  );

/** Stores the set's leaderboard as a report (support: optionally the first citation only). */
export const storeReport = (id: string, firstCitationOnly: boolean) =>
  ok(set.reports.$post({ param: { id }, json: firstCitationOnly ? { firstCitationOnly } : {} }));

/** The collection's assessment sets (those of the same answers can be compared). */
export const loadSets = (collection: number) =>
  ok(
    client.api.collections[':collection']['assessment-sets'].$get({
      param: { collection: String(collection) },
      query: {},
    }),
  );

export type Detail = Awaited<ReturnType<typeof loadDetail>>;
export type Scores = Awaited<ReturnType<typeof loadScores>>;
export type Sets = Awaited<ReturnType<typeof loadSets>>;
