// The nugget bank page's requests, through the typed client of the API.
import { client, enc, ok } from '$lib/rag-api';

const bankOf = (collection: string, bank: string) => ({
  param: { collection: enc(collection), bank: enc(bank) },
});
const route = client.api.collections[':collection']['nugget-banks'][':bank'];

/** The bank's latest version with one topic's nuggets (without a topic: the first topic's). */
export async function loadBank(collection: string, bank: string, topic?: string) {
  const one = (t?: string) =>
    ok(route.$get({ ...bankOf(collection, bank), query: t === undefined ? {} : { topic: t } }));
  const detail = await one(topic);
  const first = detail.topics[0];
  return topic !== undefined || first === undefined ? detail : one(first);
}

export type BankDetail = Awaited<ReturnType<typeof loadBank>>;
export type BankEdit = Parameters<typeof route.edits.$post>[0]['json']['edit'];

/** Makes one change to the bank (a new version when the one edited is in use). */
export const editBank = (collection: string, bank: string, version: number, edit: BankEdit) =>
  ok(route.edits.$post({ ...bankOf(collection, bank), json: { version, edit } }));

/** A version of the bank as a JSONL file. */
export const exportBank = (collection: string, bank: string, version: number) =>
  route.export.$get({ ...bankOf(collection, bank), query: { version } });
