// A nugget bank's version written whole: an imported file or an LLM's nuggets, each nugget
// keeping who made it. Storing the same nuggets as the latest version again writes nothing.
import {
  createNuggetBank,
  createNuggetBankVersion,
  findNuggetBank,
  findNuggetBankVersion,
  getNuggetBankVersion,
  insertNuggets,
  lockName,
  withTransaction,
  type Collection,
  type JsonObject,
  type NewNugget,
  type NuggetBank,
  type NuggetBankVersion,
  type Queryable,
} from '@assay/db';
import { canonicalJson } from '@assay/llm';
import type { NuggetImportance } from '@assay/stats';
import { writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import type { Actor } from '../reports/reports.js';
import type { CollectionRef } from '../core/resolve.js';
import { collectionForImport, versionTopics } from './nugget-banks.js';
import { parseNuggetBank } from './rag-files.js';

/** A topic's nuggets to store in a new version. */
interface VersionTopic {
  qid: string;
  extra: JsonObject;
  nuggets: Array<Omit<NewNugget, 'topicId' | 'position'>>;
}

/** What a version holds, comparable across versions (text, importance, extra fields, order). */
function contentKey(
  topics: ReadonlyArray<{
    qid: string;
    extra: JsonObject;
    nuggets: ReadonlyArray<{ text: string; importance: string; extra?: JsonObject }>;
  }>,
): string {
  return canonicalJson(
    [...topics]
      .sort((a, b) => (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0))
      .map((t) => ({
        qid: t.qid,
        extra: t.extra,
        nuggets: t.nuggets.map((n) => [n.text, n.importance, n.extra ?? {}]),
      })) as unknown as Record<string, unknown>,
  );
}

/** What storing a version did. */
export interface StoredBankVersion {
  bank: NuggetBank;
  version: NuggetBankVersion;
  /** False when the latest version held the same nuggets already (nothing was written). */
  created: boolean;
}

/**
 * Writes `topics` as the bank's next version (making the bank when absent), in one
 * transaction; when the latest version holds the same nuggets (same texts, importance,
 * fields and order, and the same provenance kind) nothing is written and it is returned.
 */
async function storeVersion(
  db: Queryable,
  collection: Collection,
  bankName: string,
  topics: readonly VersionTopic[],
  provenance: JsonObject,
  createdBy: Actor | undefined,
): Promise<StoredBankVersion> {
  const name = checkNewName(bankName, 'nugget bank name');
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        await lockName(trx, `nugget-bank:${collection.id}:${name}`);
        let bank = await findNuggetBank(trx, collection.id, name);
        if (!bank) {
          await createNuggetBank(trx, {
            collectionId: collection.id,
            name,
            createdBy: createdBy?.id ?? null,
          });
          bank = (await findNuggetBank(trx, collection.id, name))!;
        }
        const latest = await findNuggetBankVersion(trx, bank.id);
        if (
          latest &&
          latest.provenance.kind === provenance.kind &&
          contentKey(await versionTopics(trx, latest)) === contentKey(topics)
        )
          return { bank, version: latest, created: false };
        const versionId = await createNuggetBankVersion(trx, {
          bankId: bank.id,
          version: (latest?.version ?? 0) + 1,
          provenance,
          topics: Object.fromEntries(
            topics.filter((t) => Object.keys(t.extra).length > 0).map((t) => [t.qid, t.extra]),
          ),
          createdBy: createdBy?.id ?? null,
        });
        await insertNuggets(
          trx,
          versionId,
          topics.flatMap((t) => t.nuggets.map((n, i) => ({ ...n, topicId: t.qid, position: i }))),
        );
        return {
          bank: (await findNuggetBank(trx, collection.id, name))!,
          version: (await getNuggetBankVersion(trx, versionId))!,
          created: true,
        };
      }),
    `the nugget bank ${JSON.stringify(name)} is being written by another request; try again`,
  );
}

/** Importing a nugget bank file. */
export interface ImportNuggetBankInput {
  collection: CollectionRef;
  bank: string;
  /** JSONL `{"qid","nuggets":[{"text","importance",…}]}`; unknown fields are kept. */
  text: string;
  file?: string;
  /** Create the collection (without documents) when there is none of that name. */
  createCollection?: boolean;
  createdBy?: Actor;
}

/**
 * Stores a nugget bank file as the bank's next version (the bank is made when absent). The
 * file is read whole first: a bad line fails with `file:line` and nothing is stored.
 * Importing the same nuggets again writes nothing.
 */
export async function importNuggetBank(
  db: Queryable,
  input: ImportNuggetBankInput,
): Promise<StoredBankVersion> {
  const file = input.file ?? 'nuggets.jsonl';
  const topics = parseNuggetBank(input.text, file);
  checkNewName(input.bank, 'nugget bank name');
  const collection = await collectionForImport(
    db,
    input.collection,
    input.createCollection ?? false,
  );
  const at = new Date().toISOString();
  const by = input.createdBy ? { id: input.createdBy.id, name: input.createdBy.name } : null;
  return storeVersion(
    db,
    collection,
    input.bank,
    topics.map((t) => ({
      qid: t.qid,
      extra: t.extra,
      nuggets: t.nuggets.map((n) => ({
        text: n.text,
        importance: n.importance,
        origin: 'imported' as const,
        extra: n.extra,
        history: [{ at, by, action: 'imported', file }],
      })),
    })),
    { kind: 'imported', file, ...(by ? { importedBy: by.name } : {}) },
    input.createdBy,
  );
}

/** Stores nuggets an LLM made as the bank's next version (see createNuggetBankWithLlm). */
export function storeLlmNuggets(
  db: Queryable,
  collection: Collection,
  bank: string,
  topics: ReadonlyArray<{
    topicId: string;
    nuggets: ReadonlyArray<{ text: string; importance: NuggetImportance }>;
  }>,
  provenance: JsonObject,
  createdBy: Actor | undefined,
): Promise<StoredBankVersion> {
  const at = new Date().toISOString();
  return storeVersion(
    db,
    collection,
    bank,
    topics.map((t) => ({
      qid: t.topicId,
      extra: {},
      nuggets: t.nuggets.map((n) => ({
        text: n.text,
        importance: n.importance,
        origin: 'llm' as const,
        history: [{ at, by: null, action: 'created by an LLM', model: provenance.model ?? null }],
      })),
    })),
    { ...provenance, kind: 'llm' },
    createdBy,
  );
}
