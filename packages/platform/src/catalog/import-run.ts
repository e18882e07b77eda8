// Importing a TREC run into a collection: parsed while it is written, a slice of lines at a
// time, in one transaction; parsed whole first where the streamed write cannot tell which
// error a whole parse would report.
import { getRunSummary, type Queryable, type RunSummary, type StreamedEntries } from '@assay/db';
import { lastRunTag, parseRunStream, RunStreamParser } from '@assay/trec';
import { parsingAsync, parsingError, REPLACEABLE, writing } from '../core/errors.js';
import { checkNewName, runNameFromTag } from '../core/names.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { refuseNulYielding, slicesYielding, type FileText } from '../core/text-slices.js';
import { writeInCollection } from './collection-writes.js';
import { createRunUnderName } from './run-under-name.js';

/** A TREC run file (`qid Q0 docno rank score tag`) for a collection. */
export interface ImportRunInput {
  collection: CollectionRef;
  /** Run name (default: the run's tag, from the last line as trec_eval reports it). */
  name?: string;
  /** The file's content, whole or in consecutive parts (as an upload was read). */
  text: FileText;
  /** Name used in error messages (`file:line: reason`). */
  file: string;
  /** Replace an existing run of this name (deleted and rewritten in one transaction). */
  replace?: boolean;
}

/** What importRun stored. */
export interface ImportRunResult {
  runId: number;
  name: string;
  /** Run lines (entries) stored. */
  entries: number;
  /** Topics with at least one entry. */
  topics: number;
  /** Whether an existing run of this name was replaced. */
  replaced: boolean;
  /** The stored run as it was when written (a later replace may remove it). */
  run: RunSummary;
}

/**
 * Stores a TREC run in one transaction, parsing it while it is written: each slice of
 * lines goes to the database as it is parsed, and no entry is kept once written. A bad
 * line → invalid_input `file:line: reason` and nothing is kept (the transaction rolls
 * back); conflict when the name is taken and `replace` is not set. The errors, and which
 * one wins when there are several, are those of parsing the whole file first: where the
 * streamed write cannot tell (see importRunStreamed), the file is parsed whole.
 */
export async function importRun(db: Queryable, input: ImportRunInput): Promise<ImportRunResult> {
  await parsingAsync(() => refuseNulYielding(input.text, input.file));
  return (await importRunStreamed(db, input)) ?? importRunParsed(db, input);
}

/** Why a streamed import gave way to a parse of the whole file. */
class NotStreamed extends Error {}

/**
 * The streamed import of importRun, or undefined (nothing written) when the run is better
 * imported from a whole parse: the last line's tag cannot be read ahead or is not a usable
 * name, the name or collection is refused (a parse error would have been reported first),
 * or the tag read ahead was not the run's. When some topic's lines are not consecutive,
 * a docno repeated across them is found by the database, and a refused run is parsed
 * whole to report the error parseRun reports.
 */
async function importRunStreamed(
  db: Queryable,
  input: ImportRunInput,
): Promise<ImportRunResult | undefined> {
  const tag = lastRunTag(input.text);
  if (tag === undefined) return undefined;
  let name: string;
  let collection: { id: number; name: string };
  try {
    name = input.name === undefined ? runNameFromTag(tag) : checkNewName(input.name, 'run name');
    collection = await resolveCollection(db, input.collection);
  } catch {
    return undefined;
  }
  let parser: RunStreamParser | undefined;
  const entries: StreamedEntries = {
    async *feed(add) {
      parser = new RunStreamParser(input.file, add, { storage: true });
      for await (const slice of slicesYielding(input.text)) {
        parser.push(slice);
        yield;
      }
      if (parser.end() !== tag) throw new NotStreamed();
    },
    unchecked: () => parser?.scattered ?? false,
  };
  try {
    return await storeRun(db, input, collection, { name, tag, entries });
  } catch (error) {
    // Refused before any line was read (a taken name): a bad line would have come first.
    if (parser === undefined || error instanceof NotStreamed) return undefined;
    // A topic's lines apart: the earliest error may be an earlier repeat of a docno.
    if (parser.scattered) await parseWhole(input);
    throw parsingError(error);
  }
}

/** Parses the whole run (invalid_input `file:line: reason` on its first bad line). */
function parseWhole(input: ImportRunInput) {
  return parsingAsync(() =>
    parseRunStream(slicesYielding(input.text), input.file, { storage: true }),
  );
}

/** Stores a TREC run parsed whole first (nothing is written when a line is bad). */
async function importRunParsed(db: Queryable, input: ImportRunInput): Promise<ImportRunResult> {
  const run = await parseWhole(input);
  const name =
    input.name === undefined ? runNameFromTag(run.name) : checkNewName(input.name, 'run name');
  const collection = await resolveCollection(db, input.collection);
  // As parsed, topic by topic: rows are made batch by batch while they are written.
  return storeRun(db, input, collection, { name, tag: run.name, entries: run.topics });
}

/** Writes a run under `name` in the collection (conflict when taken, unless `replace`). */
async function storeRun(
  db: Queryable,
  input: ImportRunInput,
  collection: { id: number; name: string },
  run: { name: string; tag: string; entries: Parameters<typeof createRunUnderName>[1]['entries'] },
): Promise<ImportRunResult> {
  const taken = `run "${run.name}" already exists in collection "${collection.name}"`;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        const { created, replaced } = await createRunUnderName(
          trx,
          { collectionId: collection.id, ...run },
          { replace: input.replace, taken, details: REPLACEABLE },
        );
        return {
          runId: created.id,
          name: created.name,
          entries: created.entryCount,
          topics: created.topicCount,
          replaced,
          run: (await getRunSummary(trx, created.id))!,
        };
      }),
    taken,
    input.file,
  );
}
