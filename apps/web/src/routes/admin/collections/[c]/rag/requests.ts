// The RAG page's lists, through the typed client of the API.
import { client, enc, ok } from '$lib/rag-api';

const of = (name: string) => ({ param: { collection: enc(name) } });
const collection = client.api.collections[':collection'];

/** The collection's nugget banks, rubric sets and assessment sets. */
export async function loadLists(name: string) {
  const [banks, rubrics, sets] = await Promise.all([
    ok(collection['nugget-banks'].$get(of(name))),
    ok(collection['rubric-sets'].$get(of(name))),
    ok(collection['assessment-sets'].$get({ ...of(name), query: {} })),
  ]);
  return { banks, rubrics, sets };
}
