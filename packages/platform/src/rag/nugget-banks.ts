// Nugget banks as stored resources: per collection, under a name, in versions. This module
// finds a bank's version and reads, exports, lists and removes banks; a version is written
// whole in nugget-bank-versions.ts (an imported file, an LLM's nuggets) or made by people's
// edits in nugget-bank-edits.ts.
import {
  createCollection,
  deleteNuggetBank,
  findNuggetBank,
  findNuggetBankVersion,
  getCollectionByName,
  listNuggetBanks,
  listNuggetBankVersions,
  listNuggets,
  lockName,
  withTransaction,
  type Collection,
  type JsonObject,
  type NuggetBank,
  type NuggetBankVersion,
  type Queryable,
  type StoredNugget,
} from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { collectionLockName } from '../core/name-locks.js';
import { checkNewName } from '../core/names.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { formatNuggetBank, type BankTopic } from './rag-files.js';

export type { NuggetBank, NuggetBankVersion, StoredNugget };

/** A nugget bank named within a collection, and optionally one of its versions (default: the latest). */
export interface NuggetBankRef {
  collection: CollectionRef;
  bank: string;
  version?: number;
}

/** A bank version found: its collection, bank and version. */
export interface ResolvedBankVersion {
  collection: Collection;
  bank: NuggetBank;
  version: NuggetBankVersion;
}

/** The collection to store into; created without documents when `create` and absent. */
export async function collectionForImport(
  db: Queryable,
  ref: CollectionRef,
  create: boolean,
): Promise<Collection> {
  if (!create || typeof ref === 'number') return resolveCollection(db, ref);
  return withTransaction(db, async (trx) => {
    await lockName(trx, collectionLockName(ref));
    const found = await getCollectionByName(trx, ref);
    if (found) return found;
    checkNewName(ref, 'collection name');
    return createCollection(trx, { name: ref, description: 'made by assay for RAG evaluation' });
  });
}

/** The bank version of `ref`; not_found naming what is missing. */
export async function resolveBankVersion(
  db: Queryable,
  ref: NuggetBankRef,
): Promise<ResolvedBankVersion> {
  const collection = await resolveCollection(db, ref.collection);
  const bank = await findNuggetBank(db, collection.id, ref.bank);
  if (!bank)
    throw new PlatformError(
      'not_found',
      `no nugget bank ${JSON.stringify(ref.bank)} in collection "${collection.name}"`,
    );
  const version = await findNuggetBankVersion(db, bank.id, ref.version);
  if (!version)
    throw new PlatformError(
      'not_found',
      ref.version === undefined
        ? `nugget bank "${bank.name}" has no version yet`
        : `nugget bank "${bank.name}" has no version ${ref.version} (latest: ${bank.latestVersion})`,
    );
  return { collection, bank, version };
}

/** The stored nuggets of a version grouped by topic, in order. */
function byTopic(nuggets: readonly StoredNugget[]): Map<string, StoredNugget[]> {
  const out = new Map<string, StoredNugget[]>();
  for (const n of nuggets) {
    const list = out.get(n.topicId);
    if (list) list.push(n);
    else out.set(n.topicId, [n]);
  }
  return out;
}

/** A version's topics as a bank file holds them. */
export async function versionTopics(
  db: Queryable,
  version: NuggetBankVersion,
): Promise<BankTopic[]> {
  const grouped = byTopic(await listNuggets(db, version.id));
  return [...grouped].map(([qid, nuggets]) => ({
    qid,
    extra: (version.topics[qid] as JsonObject | undefined) ?? {},
    nuggets: nuggets.map((n) => ({ text: n.text, importance: n.importance, extra: n.extra })),
  }));
}

/** A bank version as JSONL, as a bank file holds it (unknown fields as they were imported). */
export async function exportNuggetBank(db: Queryable, ref: NuggetBankRef): Promise<string> {
  const { version } = await resolveBankVersion(db, ref);
  return formatNuggetBank(await versionTopics(db, version));
}

/** The nugget banks of a collection with their latest version. */
export async function listCollectionNuggetBanks(
  db: Queryable,
  collection: CollectionRef,
): Promise<Array<NuggetBank & { latest: NuggetBankVersion | null }>> {
  const c = await resolveCollection(db, collection);
  const banks = await listNuggetBanks(db, c.id);
  const out = [];
  for (const bank of banks)
    out.push({ ...bank, latest: (await findNuggetBankVersion(db, bank.id)) ?? null });
  return out;
}

/** A bank version with every version of the bank and its nuggets (optionally one topic's). */
export async function nuggetBankDetail(
  db: Queryable,
  ref: NuggetBankRef,
  options: { topic?: string } = {},
): Promise<
  ResolvedBankVersion & { versions: NuggetBankVersion[]; nuggets: StoredNugget[]; topics: string[] }
> {
  const resolved = await resolveBankVersion(db, ref);
  const all = await listNuggets(db, resolved.version.id);
  return {
    ...resolved,
    versions: await listNuggetBankVersions(db, resolved.bank.id),
    topics: [...new Set(all.map((n) => n.topicId))],
    nuggets: options.topic === undefined ? all : all.filter((n) => n.topicId === options.topic),
  };
}

/** Deletes a nugget bank with its versions and the assessment sets made against them. */
export async function removeNuggetBank(
  db: Queryable,
  ref: Omit<NuggetBankRef, 'version'>,
): Promise<void> {
  const { bank } = await resolveBankVersion(db, ref);
  await deleteNuggetBank(db, bank.id);
}
