// Responses as stored resources: importing a responses file as a response set, finding one
// by id or name, reading, listing and removing them, and the judges that grade answers. A
// response set's scores are kept in score sets (score-sets.ts).
import { createHash } from 'node:crypto';
import {
  createResponseSet,
  deleteResponseSet,
  findResponseSetByName,
  getResponseSet,
  insertResponses,
  listResponses,
  listResponseSets,
  listScoreSets,
  withTransaction,
  type Queryable,
  type ResponseSet,
  type ScoreSet,
  type StoredResponse,
} from '@assay/db';
import type { JudgeTemplate } from '@assay/judge';
import { PlatformError, writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import { loadJudgeTemplate } from '../judging/templates.js';
import type { Actor } from '../reports/reports.js';
import { parseResponses } from './answer-files.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

export type { ResponseSet, StoredResponse };

/**
 * A judge of judges/ (or `dir`) that grades answers (answer-quality, rag-groundedness):
 * not_found for an unknown id, invalid_input for an unreadable folder or a relevance judge.
 */
export function answerJudgeTemplate(id: string, dir?: string): JudgeTemplate {
  const template = loadJudgeTemplate(id, dir);
  checkAnswerTemplate(template);
  return template;
}

/** Refuses (invalid_input) a judge that grades relevance rather than answers. */
export function checkAnswerTemplate(template: JudgeTemplate): void {
  if (!template.criteria?.length)
    throw new PlatformError(
      'invalid_input',
      template.kind === 'relevance'
        ? `judge ${template.id} grades relevance, not answers`
        : `judge ${template.id} is a ${template.kind} judge, not an answer-quality one`,
    );
}

/** A response set by id (a number or digits) or by name. */
export type ResponseSetRef = number | string;

/** A response set by id or name; not_found otherwise. */
export async function resolveResponseSet(db: Queryable, ref: ResponseSetRef): Promise<ResponseSet> {
  const set =
    typeof ref === 'number' || /^[0-9]+$/.test(ref)
      ? await getResponseSet(db, Number(ref))
      : await findResponseSetByName(db, ref);
  if (!set) throw new PlatformError('not_found', `no response set ${JSON.stringify(String(ref))}`);
  return set;
}

/** A responses file to store. */
export interface ImportResponseSetInput {
  name: string;
  /** JSONL `{"topic","system","answer","query"?,"references"?}`. */
  text: string;
  /** Name used in `file:line` errors and kept in the provenance. */
  file?: string;
  createdBy?: Actor;
}

/** SHA-256 of a responses file's text: whether a stored response set holds that file. */
function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Stores a responses file as a response set. The whole file is checked first (a bad line
 * is invalid_input `file:line: reason`), then written in one transaction; a taken name is
 * a conflict. Nothing is kept on failure.
 */
export async function importResponseSet(
  db: Queryable,
  input: ImportResponseSetInput,
): Promise<ResponseSet> {
  const name = checkNewName(input.name, 'response set name');
  const file = input.file ?? 'responses.jsonl';
  const responses = parseResponses(input.text, file);
  const id = await writing(
    () =>
      withTransaction(db, async (trx) => {
        const id = await createResponseSet(trx, {
          name,
          provenance: {
            file,
            contentHash: contentHash(input.text),
            ...(input.createdBy ? { importedBy: input.createdBy.name } : {}),
          },
          createdBy: input.createdBy?.id ?? null,
        });
        await insertResponses(
          trx,
          id,
          responses.map((r) => ({
            topicId: r.topic,
            system: r.system,
            answer: r.answer,
            query: r.query ?? null,
            references: r.references ?? null,
            sentences: r.sentences ?? null,
          })),
        );
        return id;
      }),
    `a response set named ${JSON.stringify(input.name)} exists`,
    file,
  );
  return (await getResponseSet(db, id))!;
}

/**
 * The response set `name` holding exactly this responses file: the stored one when it was
 * imported from the same text, else imported now. A set of that name holding other answers
 * is a conflict (`created` says which happened).
 */
export async function ensureResponseSet(
  db: Queryable,
  input: ImportResponseSetInput,
): Promise<ResponseSet & { created: boolean }> {
  const name = checkNewName(input.name, 'response set name');
  const found = await findResponseSetByName(db, name);
  if (found) {
    if (found.provenance.contentHash !== contentHash(input.text))
      throw new PlatformError(
        'conflict',
        `response set ${JSON.stringify(name)} holds other answers than ${input.file ?? 'this file'}; name another response set`,
      );
    return { ...found, created: false };
  }
  try {
    return { ...(await importResponseSet(db, input)), created: true };
  } catch (error) {
    // The same file imported at the same moment by another command: it is there now.
    const again =
      error instanceof PlatformError &&
      error.code === 'conflict' &&
      (await findResponseSetByName(db, name));
    if (again && again.provenance.contentHash === contentHash(input.text))
      return { ...again, created: false };
    throw error;
  }
}

/** Every response set, newest first, with counts of answers, topics and systems. */
export function listStoredResponseSets(db: Queryable): Promise<ResponseSet[]> {
  return listResponseSets(db);
}

/** A page of {@link listStoredResponseSets} (newest first: by id, descending). */
export async function listStoredResponseSetsPage(
  db: Queryable,
  options: PageOptions = {},
): Promise<Page<ResponseSet>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const rows = await listResponseSets(db, page);
  return pageOf(
    rows,
    page,
    (s) => [s.id],
    (s) => s,
  );
}

/** A response set with its answers (optionally one topic's) and its score sets. */
export async function getResponseSetDetail(
  db: Queryable,
  ref: ResponseSetRef,
  options: { topic?: string } = {},
): Promise<ResponseSet & { answers: StoredResponse[]; scoreSets: ScoreSet[] }> {
  const set = await resolveResponseSet(db, ref);
  const answers = await listResponses(
    db,
    set.id,
    options.topic === undefined ? {} : { topicId: options.topic },
  );
  return { ...set, answers, scoreSets: await listScoreSets(db, set.id) };
}

/** Deletes a response set with its score sets. */
export async function removeResponseSet(db: Queryable, ref: ResponseSetRef): Promise<void> {
  const set = await resolveResponseSet(db, ref);
  await deleteResponseSet(db, set.id);
}
