// People's edits of a nugget bank (add, edit, merge, split, delete, move, importance), each
// nugget keeping who made it and who changed what. A version an assessment uses is frozen:
// the next edit copies it into a new version.
import {
  createNuggetBankVersion,
  deleteNuggets,
  findNuggetBankVersion,
  getNuggetBankVersion,
  insertNuggets,
  listNuggets,
  lockNuggetBank,
  updateNugget,
  withTransaction,
  type JsonValue,
  type NuggetBankVersion,
  type Queryable,
  type StoredNugget,
} from '@assay/db';
import type { NuggetImportance } from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import type { Actor } from '../reports/reports.js';
import type { CollectionRef } from '../core/resolve.js';
import { resolveBankVersion } from './nugget-banks.js';

/** One edit of a bank's nuggets by a person. */
export type NuggetEdit =
  | { action: 'add'; topic: string; text: string; importance: NuggetImportance; after?: number }
  | { action: 'edit'; nugget: number; text?: string; importance?: NuggetImportance }
  | { action: 'delete'; nugget: number }
  | { action: 'merge'; nuggets: number[]; text: string; importance?: NuggetImportance }
  | { action: 'split'; nugget: number; texts: string[] }
  | { action: 'move'; nugget: number; to: number };

/** What an edit did: the version it went to and the topic's nuggets after it. */
export interface EditResult {
  version: NuggetBankVersion;
  /** True when the edit made a new version (the one edited was frozen). */
  newVersion: boolean;
  topic: string;
  nuggets: StoredNugget[];
}

function cleanText(text: unknown, what: string): string {
  if (typeof text !== 'string' || text.trim() === '')
    throw new PlatformError('invalid_input', `${what} must not be empty`);
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length > 2000)
    throw new PlatformError('invalid_input', `${what} is longer than 2000 characters`);
  return t;
}

function checkImportance(importance: unknown): NuggetImportance {
  if (importance !== 'vital' && importance !== 'okay')
    throw new PlatformError('invalid_input', `importance must be "vital" or "okay"`);
  return importance;
}

/** What every edit works with: the version edited, its nuggets, who edits, and when. */
interface EditContext {
  trx: Queryable;
  versionId: number;
  /** The version's nuggets before the edit. */
  current: StoredNugget[];
  /** A nugget of the edited version by the id the person saw (copied ones mapped). */
  find: (nugget: number) => StoredNugget;
  /** A nugget's history with this edit's entry added. */
  note: (n: StoredNugget, entry: Record<string, JsonValue>) => JsonValue[];
  at: string;
  by: { id: number; name: string };
}

/** What an edit leaves: the topic it changed and that topic's nugget ids in their new order. */
interface Edited {
  topic: string;
  order: number[];
}

/** The ids of a topic's nuggets in order, those in `without` left out. */
function topicIds(
  current: readonly StoredNugget[],
  topic: string,
  without: ReadonlySet<number> = new Set(),
): number[] {
  return current.filter((c) => c.topicId === topic && !without.has(c.id)).map((c) => c.id);
}

/** A person's nugget, at the end of its topic or after `after`. */
async function addNugget(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'add' }>,
): Promise<Edited> {
  const topic = cleanText(edit.topic, 'the topic');
  const text = cleanText(edit.text, 'the nugget text');
  const list = topicIds(c.current, topic);
  await insertNuggets(c.trx, c.versionId, [
    {
      topicId: topic,
      position: list.length,
      text,
      importance: checkImportance(edit.importance),
      origin: 'person',
      history: [{ at: c.at, by: c.by, action: 'added' }],
    },
  ]);
  const added = (await listNuggets(c.trx, c.versionId, { topicId: topic })).find(
    (n) => !list.includes(n.id),
  )!;
  if (edit.after === undefined) return { topic, order: [...list, added.id] };
  const after = list.indexOf(c.find(edit.after).id);
  return { topic, order: [...list.slice(0, after + 1), added.id, ...list.slice(after + 1)] };
}

/** A nugget's new text or importance (nothing recorded when neither changes). */
async function changeNugget(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'edit' }>,
): Promise<Edited> {
  const n = c.find(edit.nugget);
  const text = edit.text === undefined ? n.text : cleanText(edit.text, 'the nugget text');
  const importance =
    edit.importance === undefined ? n.importance : checkImportance(edit.importance);
  if (text !== n.text || importance !== n.importance)
    await updateNugget(c.trx, n.id, {
      text,
      importance,
      edited: n.origin !== 'person' || n.edited,
      history: c.note(n, {
        action: 'edited',
        ...(text === n.text ? {} : { before: n.text }),
        ...(importance === n.importance ? {} : { importanceBefore: n.importance }),
      }),
    });
  return { topic: n.topicId, order: topicIds(c.current, n.topicId) };
}

async function deleteNugget(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'delete' }>,
): Promise<Edited> {
  const n = c.find(edit.nugget);
  await deleteNuggets(c.trx, [n.id]);
  return { topic: n.topicId, order: topicIds(c.current, n.topicId, new Set([n.id])) };
}

/**
 * Nuggets of one topic merged into the first of them, with the text given; vital when
 * one of them was, unless an importance is given.
 */
async function mergeNuggets(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'merge' }>,
): Promise<Edited> {
  if (!Array.isArray(edit.nuggets) || edit.nuggets.length < 2)
    throw new PlatformError('invalid_input', 'merge needs at least two nuggets');
  const parts = edit.nuggets.map(c.find);
  const topic = parts[0]!.topicId;
  if (parts.some((p) => p.topicId !== topic))
    throw new PlatformError('invalid_input', 'only nuggets of one topic can be merged');
  if (new Set(parts.map((p) => p.id)).size !== parts.length)
    throw new PlatformError('invalid_input', 'a nugget is named twice');
  const text = cleanText(edit.text, 'the merged text');
  const importance =
    edit.importance === undefined
      ? parts.some((p) => p.importance === 'vital')
        ? 'vital'
        : 'okay'
      : checkImportance(edit.importance);
  const [keep, ...gone] = parts as [StoredNugget, ...StoredNugget[]];
  await updateNugget(c.trx, keep.id, {
    text,
    importance,
    edited: parts.some((p) => p.origin !== 'person') || keep.edited,
    history: c.note(keep, { action: 'merged', from: parts.map((p) => p.text) }),
  });
  await deleteNuggets(
    c.trx,
    gone.map((g) => g.id),
  );
  return { topic, order: topicIds(c.current, topic, new Set(gone.map((g) => g.id))) };
}

/** A nugget split into parts: it keeps the first text, the others follow it in its lineage. */
async function splitNugget(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'split' }>,
): Promise<Edited> {
  const n = c.find(edit.nugget);
  const topic = n.topicId;
  if (!Array.isArray(edit.texts) || edit.texts.length < 2)
    throw new PlatformError('invalid_input', 'split needs at least two texts');
  const texts = edit.texts.map((t, i) => cleanText(t, `part ${i + 1}`));
  const entry = { action: 'split', from: n.text };
  await updateNugget(c.trx, n.id, {
    text: texts[0]!,
    edited: n.origin !== 'person' || n.edited,
    history: c.note(n, entry),
  });
  const before = new Set(c.current.map((x) => x.id));
  await insertNuggets(
    c.trx,
    c.versionId,
    texts.slice(1).map((text, i) => ({
      topicId: topic,
      position: n.position + i + 1,
      text,
      importance: n.importance,
      origin: n.origin,
      edited: n.origin !== 'person',
      lineage: n.lineage ?? n.id,
      extra: n.extra,
      history: [...n.history, { at: c.at, by: c.by, ...entry }],
    })),
  );
  const added = (await listNuggets(c.trx, c.versionId, { topicId: topic }))
    .filter((x) => !before.has(x.id))
    .map((x) => x.id);
  const list = topicIds(c.current, topic);
  const at0 = list.indexOf(n.id);
  return { topic, order: [...list.slice(0, at0 + 1), ...added, ...list.slice(at0 + 1)] };
}

/** A nugget moved to a position of its topic (past the end: last). */
async function moveNugget(
  c: EditContext,
  edit: Extract<NuggetEdit, { action: 'move' }>,
): Promise<Edited> {
  const n = c.find(edit.nugget);
  const list = topicIds(c.current, n.topicId, new Set([n.id]));
  if (!Number.isSafeInteger(edit.to) || edit.to < 0)
    throw new PlatformError('invalid_input', 'to must be a position (0, 1, …)');
  const to = Math.min(edit.to, list.length);
  await updateNugget(c.trx, n.id, { history: c.note(n, { action: 'moved', to }) });
  return { topic: n.topicId, order: [...list.slice(0, to), n.id, ...list.slice(to)] };
}

/** Applies one edit to the context's version. */
function applyEdit(c: EditContext, edit: NuggetEdit): Promise<Edited> {
  switch (edit.action) {
    case 'add':
      return addNugget(c, edit);
    case 'edit':
      return changeNugget(c, edit);
    case 'delete':
      return deleteNugget(c, edit);
    case 'merge':
      return mergeNuggets(c, edit);
    case 'split':
      return splitNugget(c, edit);
    case 'move':
      return moveNugget(c, edit);
    default:
      throw new PlatformError(
        'invalid_input',
        `unknown edit ${JSON.stringify((edit as { action?: unknown }).action)}`,
      );
  }
}

/**
 * Applies one person's edit to a bank's latest version (`version` must name it, so an edit
 * made on a page showing an older version is refused as a conflict). When that version is
 * frozen (an assessment uses it), it is first copied into a new version and the edit goes
 * there. Every nugget touched records the change (`history`) and is marked edited unless
 * a person made it; added nuggets have origin `person`. One transaction; edits of one
 * bank take turns.
 */
export async function editNuggetBank(
  db: Queryable,
  ref: { collection: CollectionRef; bank: string; version: number },
  edit: NuggetEdit,
  actor: Actor,
): Promise<EditResult> {
  return withTransaction(db, async (trx) => {
    const resolved = await resolveBankVersion(trx, { collection: ref.collection, bank: ref.bank });
    await lockNuggetBank(trx, resolved.bank.id);
    let version = (await findNuggetBankVersion(trx, resolved.bank.id))!;
    if (version.version !== ref.version)
      throw new PlatformError(
        'conflict',
        `nugget bank "${resolved.bank.name}" is at version ${version.version}, not ${ref.version}; reload it`,
      );
    let idMap = new Map<number, number>();
    let newVersion = false;
    if (version.frozen) {
      const copied = await copyVersion(trx, version, actor);
      version = copied.version;
      idMap = copied.ids;
      newVersion = true;
    }
    const current = await listNuggets(trx, version.id);
    const at = new Date().toISOString();
    const by = { id: actor.id, name: actor.name };
    const { topic, order } = await applyEdit(
      {
        trx,
        versionId: version.id,
        current,
        find: (n) => {
          const found = current.find((c) => c.id === (idMap.get(n) ?? n));
          if (!found)
            throw new PlatformError(
              'not_found',
              `no nugget ${n} in version ${ref.version} of nugget bank "${resolved.bank.name}"`,
            );
          return found;
        },
        note: (n, entry) => [...n.history, { at, by, ...entry }],
        at,
        by,
      },
      edit,
    );
    // Positions follow `order`: 0, 1, 2 … within the topic.
    const positions = new Map(
      (await listNuggets(trx, version.id, { topicId: topic })).map((n) => [n.id, n.position]),
    );
    for (const [position, nuggetId] of order.entries())
      if (positions.get(nuggetId) !== position) await updateNugget(trx, nuggetId, { position });
    return {
      version: (await getNuggetBankVersion(trx, version.id))!,
      newVersion,
      topic,
      nuggets: await listNuggets(trx, version.id, { topicId: topic }),
    };
  });
}

/** Copies a frozen version into the bank's next one; returns it and old id → new id. */
async function copyVersion(
  trx: Queryable,
  from: NuggetBankVersion,
  actor: Actor,
): Promise<{ version: NuggetBankVersion; ids: Map<number, number> }> {
  const versionId = await createNuggetBankVersion(trx, {
    bankId: from.bankId,
    version: from.version + 1,
    provenance: { kind: 'edited', from: from.version, editedBy: actor.name },
    topics: from.topics,
    createdBy: actor.id,
  });
  const old = await listNuggets(trx, from.id);
  await insertNuggets(
    trx,
    versionId,
    old.map((n) => ({
      topicId: n.topicId,
      position: n.position,
      text: n.text,
      importance: n.importance,
      origin: n.origin,
      edited: n.edited,
      lineage: n.lineage ?? n.id,
      extra: n.extra,
      history: n.history,
    })),
  );
  const copies = await listNuggets(trx, versionId);
  const ids = new Map<number, number>();
  old.forEach((n, i) => ids.set(n.id, copies[i]!.id));
  return { version: (await getNuggetBankVersion(trx, versionId))!, ids };
}
