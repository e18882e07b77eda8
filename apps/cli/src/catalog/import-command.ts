import { basename } from 'node:path';
import {
  checkNewName,
  importCollection,
  importDocuments,
  importQrels,
  importRun,
  importTopics,
  PlatformError,
  resolveCollection,
  runNameFromTag,
  takenRunNames,
} from '@assay/platform';
import { lastRunTag, parseRun } from '@assay/trec';
import {
  ENCODING_OPTION,
  inputEncoding,
  readText,
  type InputEncoding,
} from '../shell/read-input.js';
import {
  commandHelp,
  FLAG,
  getopt,
  HELP_OPTION,
  type OptionSpec,
  SCALE,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { CliError } from '../shell/io.js';
import { documentFormat, topicFormat } from '../shell/input-files.js';
import {
  EXIT,
  secondsSince,
  throughput,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';

export const IMPORT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'name',
    key: 'name',
    kind: TEXT,
    arg: 'NAME',
    help: `collection: its name (required); run: the stored run's name instead of
its tag (one file only)`,
  },
  {
    long: 'format',
    key: 'format',
    kind: TEXT,
    arg: 'F',
    help: `collection: jsonl, tsv or cranfield (default: from the file name, else
its first line); topics: tsv, jsonl, trec or cranfield (default: detected)`,
  },
  {
    long: 'description',
    key: 'description',
    kind: TEXT,
    arg: 'TEXT',
    help: "collection: the collection's description",
  },
  {
    long: 'collection',
    short: 'c',
    key: 'collection',
    kind: TEXT,
    arg: 'C',
    help: 'topics, qrels, run: the collection (name, or id when all digits)',
  },
  {
    long: 'label-set',
    key: 'labelSet',
    kind: TEXT,
    arg: 'NAME',
    help: 'qrels: the label set (required)',
  },
  {
    long: 'scale',
    key: 'scale',
    kind: SCALE,
    help: `qrels: the grade scale, e.g. 0..3 (or 0-3, 0:3; default: the grades
seen, at least 0..max)`,
  },
  {
    long: 'replace',
    key: 'replace',
    kind: FLAG,
    help: 'qrels, run: overwrite a label set or run of the same name',
  },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const IMPORT_USAGE = commandHelp({
  usage: `assay import collection --name NAME [--format jsonl|tsv|cranfield]
                                [--description TEXT] FILE
       assay import documents --collection C [--format jsonl|tsv|cranfield] FILE
       assay import topics --collection C [--format tsv|jsonl|trec|cranfield] FILE
       assay import qrels --collection C --label-set NAME [--scale MIN..MAX] [--replace] FILE
       assay import run --collection C [--name NAME] [--replace] FILE...`,
  about: `Imports into the configured database: PostgreSQL when DATABASE_URL is set, else embedded
PGlite under ASSAY_DATA_DIR (default ./.assay). The collection C (--collection or -c) is
named as everywhere in assay: digits mean its id when a collection has that id, else its
name; anything else is its name. New names (collections, runs, label sets) may not be all
digits.

  collection  documents: JSONL {"id","title"?,"text"} (id may be docid, doc_id or _id,
              text may be contents, body or doc; other keys are kept as metadata),
              TSV id<TAB>text or id<TAB>title<TAB>text,
              or the Cranfield cran.all.1400 layout. --format defaults from the file name
              (.jsonl, .tsv, cran.all*, also with .gz), else from its first line (a JSON
              object, a .I line, a tab).
  documents   more documents, in the same formats, for a collection that exists (one
              made without documents, or one that grows); a docno it already holds
              fails the whole file (exit 4).
  topics      TSV id<TAB>query, JSONL (context, previous_turns and user_background keys
              become the topic's conversational context), TREC <top> topics or Cranfield
              cran.qry (ids 1..225 by position, as cranqrel numbers them); the format is
              detected from the content when --format is absent.
  qrels       TREC qrels (qid iter docno grade) as a human label set; the scale defaults
              to the grades seen (at least 0..max).
  run         TREC runs (qid Q0 docno rank score tag), named after their tag unless
              --name is given (one file only); a tag that is all digits needs --name. Every
              file is checked before any is written; then each is written in its own
              transaction, with a line per file.`,
  sections: [{ specs: IMPORT_OPTIONS }],
  notes: `Files are read as UTF-8 (bytes that are not UTF-8 fail with file:line) unless --encoding
latin1 declares ISO-8859-1 (any subcommand); gzip-compressed files are decompressed. Lines
end at LF or CRLF; a CR inside a line (CR-only line ends) or U+2028 fails naming the line.

Each file is parsed completely before anything is written and is written in one
transaction: a bad line fails with file:line: reason and nothing of that file is kept.
An existing run or label set of the same name needs --replace.

Exit status: 0 imported; 1 usage, configuration or database error; 2 malformed or
unreadable input; 3 unknown collection; 4 the name already exists.`,
});

/** What each kind of import accepts besides --help. */
const ALLOWED: Record<string, string[]> = {
  collection: ['name', 'format', 'description', 'encoding'],
  documents: ['collection', 'format', 'encoding'],
  topics: ['collection', 'format', 'encoding'],
  qrels: ['collection', 'labelSet', 'scale', 'replace', 'encoding'],
  run: ['collection', 'name', 'replace', 'encoding'],
};

/** `assay import collection|documents|topics|qrels|run`: files into the configured database. */
export async function importCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help') {
    io.stdout(`${IMPORT_USAGE}\n`);
    return what === undefined ? EXIT.usage : 0;
  }
  const allowed = ALLOWED[what];
  if (!allowed)
    throw new UsageError(`unknown import '${what}' (collection, documents, topics, qrels or run)`);
  const parsed = getopt(rest, IMPORT_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${IMPORT_USAGE}\n`);
    return 0;
  }
  for (const key of options.keys()) {
    if (key !== 'help' && !allowed.includes(key)) {
      const flag = IMPORT_OPTIONS.find((o) => o.key === key)!.long;
      throw new UsageError(`--${flag} does not apply to 'import ${what}'`);
    }
  }
  const option = (key: string) => options.get(key)?.at(-1);
  const required = (key: string) => {
    const value = option(key);
    if (value === undefined || value.trim() === '') {
      const flag = IMPORT_OPTIONS.find((o) => o.key === key)!.long;
      throw new UsageError(`'import ${what}' needs --${flag}`);
    }
    return value;
  };
  if (positionals.length === 0) throw new UsageError(`'import ${what}' needs a FILE`);
  if (what !== 'run' && positionals.length > 1)
    throw new UsageError(`'import ${what}' takes one FILE, not ${positionals.length}`);
  const file = positionals[0]!;
  const encoding = inputEncoding(options.get('encoding'));

  switch (what) {
    case 'collection': {
      const name = required('name');
      const description = option('description');
      const text = readText(file, encoding);
      const format = documentFormat(file, text, { format: option('format') });
      return withDatabase(io, async (db) => {
        const started = performance.now();
        const r = await importCollection(db, {
          name,
          format,
          text,
          file,
          ...(description === undefined ? {} : { description }),
        });
        io.stdout(
          `imported collection "${r.name}" (id ${r.collectionId}) from ${file}: ${throughput(r.documents, 'documents', secondsSince(started))}\n`,
        );
        return 0;
      });
    }
    case 'documents': {
      const collection = required('collection');
      const text = readText(file, encoding);
      const format = documentFormat(file, text, { format: option('format') });
      return withDatabase(io, async (db) => {
        const started = performance.now();
        const r = await importDocuments(db, { collection, format, text, file });
        io.stdout(
          `added to collection "${r.name}" from ${file}: ${throughput(r.documents, 'documents', secondsSince(started))}; it holds ${r.total} documents\n`,
        );
        return 0;
      });
    }
    case 'topics': {
      const collection = required('collection');
      const text = readText(file, encoding);
      const format = topicFormat(file, text, { format: option('format') });
      return withDatabase(io, async (db) => {
        const r = await importTopics(db, { collection, text, file, format });
        io.stdout(`imported ${r.topics} topics into collection "${collection}" from ${file}\n`);
        return 0;
      });
    }
    case 'qrels': {
      const collection = required('collection');
      const labelSet = required('labelSet');
      const scale = parsed.scale('scale');
      const text = readText(file, encoding);
      return withDatabase(io, async (db) => {
        const r = await importQrels(db, {
          collection,
          labelSet,
          text,
          file,
          replace: options.has('replace'),
          ...(scale ? { scale } : {}),
        });
        io.stdout(
          `${r.replaced ? 'replaced' : 'imported'} label set "${r.name}" (id ${r.labelSetId}, grades ${r.scale.min}..${r.scale.max}) from ${file}: ${r.labels} labels over ${r.topics} topics\n`,
        );
        return 0;
      });
    }
    default:
      return importRuns(io, {
        collection: required('collection'),
        name: option('name'),
        replace: options.has('replace'),
        files: positionals,
        encoding,
      });
  }
}

/** Imports run files, each in its own transaction, after checking all of them. */
/** The name a run file is stored under, checked against the naming rule (exit 2 if not). */
function runName(
  file: string,
  given: string | undefined,
  encoding: InputEncoding,
  single: boolean,
): string {
  try {
    if (given !== undefined) return checkNewName(given, 'run name');
    const tag = single ? lastRunTag(readText(file, encoding)) : undefined;
    if (tag !== undefined) {
      try {
        return runNameFromTag(tag);
      } catch {
        // Not a usable name: the file's own errors come first, from a whole parse.
      }
    }
    return runNameFromTag(parseRun(readText(file, encoding), file).name);
  } catch (error) {
    if (error instanceof PlatformError && error.code === 'invalid_input')
      throw new CliError(`${file}: ${error.message} (--name)`, EXIT.invalidInput);
    throw error;
  }
}

async function importRuns(
  io: PlatformCommandIo,
  input: {
    collection: string;
    name: string | undefined;
    replace: boolean;
    files: string[];
    encoding: InputEncoding;
  },
): Promise<number> {
  if (input.name !== undefined && input.files.length > 1)
    throw new UsageError('--name applies to a single run file; runs are named after their tag');
  // Check every file before writing any, so a bad line in the last file does not leave
  // the others imported. Parsing is cheap next to writing; the texts are not kept.
  // One file is imported in one transaction, parsed while it is written: its name comes
  // from its last line's tag, read ahead without parsing the rest.
  const single = input.files.length === 1;
  const names = new Map<string, string>();
  for (const file of input.files) {
    const name = runName(file, input.name, input.encoding, single);
    const other = names.get(name);
    if (other !== undefined)
      throw new CliError(`${file}: run "${name}" is also the run in ${other}`, EXIT.conflict);
    names.set(name, file);
  }
  return withDatabase(io, async (db) => {
    let collection: Awaited<ReturnType<typeof resolveCollection>>;
    try {
      collection = await resolveCollection(db, input.collection);
      if (!input.replace) {
        for (const name of await takenRunNames(db, collection.id, names.keys()))
          throw new CliError(
            `${names.get(name)}: run "${name}" already exists in collection "${collection.name}"; use --replace to overwrite it`,
            EXIT.conflict,
          );
      }
    } catch (error) {
      // A single file was not parsed yet: a bad line in it is reported first.
      if (single) parseRun(readText(input.files[0]!, input.encoding), input.files[0]);
      throw error;
    }
    const total = { lines: 0, started: performance.now() };
    for (const file of input.files) {
      const started = performance.now();
      const r = await importRun(db, {
        collection: collection.id,
        text: readText(file, input.encoding),
        file,
        replace: input.replace,
        ...(input.name === undefined ? {} : { name: input.name }),
      });
      total.lines += r.entries;
      io.stdout(
        `${r.replaced ? 'replaced' : 'imported'} run "${r.name}" (id ${r.runId}, ${r.topics} topics) from ${basename(file)}: ${throughput(r.entries, 'lines', secondsSince(started))}\n`,
      );
    }
    if (input.files.length > 1)
      io.stdout(
        `${input.files.length} runs into collection "${collection.name}": ${throughput(total.lines, 'lines', secondsSince(total.started))}\n`,
      );
    return 0;
  });
}
