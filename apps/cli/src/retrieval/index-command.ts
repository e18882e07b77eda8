import { buildCollectionDiskIndex } from '@assay/platform';
import {
  describeAnalyzer,
  DiskIndexBuilder,
  IndexBuilder,
  saveIndex,
  type AnalyzerConfig,
  type Bm25Index,
  type Bm25Params,
} from '@assay/retrieval';
import type { CollectionDocument } from '@assay/trec';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  number,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';
import { secondsSince, withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';
import { ProgressReporter } from '../shell/progress.js';
import { DOCS_FORMAT_OPTION, readDocuments, streamDocuments } from '../shell/input-files.js';
import { ANALYZER_OPTIONS, analyzerFrom, ASSAY_CLI_VERSION } from './retrieval-inputs.js';

export const INDEX_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    help: 'collection: JSONL, TSV or Cranfield cran.all.1400, plain or gzip (as assay import reads)',
  },
  DOCS_FORMAT_OPTION,
  { long: 'out', key: 'out', kind: FILE, arg: 'INDEX', help: 'where to write the index' },
  {
    long: 'collection',
    key: 'collection',
    kind: TEXT,
    arg: 'NAME',
    help: "with --on-disk: a stored collection's index, under the data directory, which its retrievals then search (instead of --docs and --out)",
  },
  ...ANALYZER_OPTIONS,
  {
    long: 'k1',
    key: 'k1',
    kind: number({ min: 0 }),
    help: "BM25's k1, recorded as the index's default (0.9)",
  },
  {
    long: 'b',
    key: 'b',
    kind: number({ min: 0, max: 1 }),
    help: "BM25's b, recorded as the index's default (0.4)",
  },
  {
    long: 'on-disk',
    key: 'onDisk',
    kind: FLAG,
    help: 'stream the collection into an on-disk index, searched without loading it (bm25 and the methods with models; for collections too large to hold, like MS MARCO)',
  },
  {
    long: 'memory-mib',
    key: 'memoryMib',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'with --on-disk: MiB of postings buffered before a sorted run is spilled (1024)',
  },
  HELP_OPTION,
];

export const INDEX_USAGE = commandHelp({
  usage: `assay index build --docs FILE --out INDEX [--format jsonl|tsv|cranfield]
                         [--stemmer porter|none] [--stopwords english|none|FILE] [--k1 X] [--b Y]
                         [--on-disk [--memory-mib N]]
       assay index build --collection NAME --on-disk [--memory-mib N]`,
  about: `Builds a BM25 index of a collection (title and text indexed together) and saves it to one
file that 'assay retrieve --index INDEX' loads. The file records the analyzer, the BM25
parameters and a fingerprint of the collection; an index made by an assay with another
analyzer version is refused (rebuild it). With --on-disk the collection is read a piece
at a time and the index is built through sorted runs on disk; 'assay retrieve --index'
then reads each query term's postings from the file, with the same run as the in-memory
index gives: for bm25, and for the methods with models (their BM25 first stage and the
queries they generate; their documents' texts from --docs).
With --collection the on-disk index of a stored collection is built under the data
directory (default analyzer); its retrievals (bm25 and the methods with models, through
the API too) then search it instead of building an index in memory, for as long as it
matches the collection's documents (otherwise they are refused: build it again).`,
  sections: [{ specs: INDEX_OPTIONS }],
});

/** Indexes documents with a progress bar on stderr. */
export function indexDocuments(
  docs: readonly CollectionDocument[],
  builder: IndexBuilder,
  io: CommandIo & { stderrIsTTY?: boolean },
): Bm25Index {
  const progress = new ProgressReporter({
    label: 'indexing',
    total: docs.length,
    write: io.stderr,
    tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    unit: 'docs',
    showCost: false,
  });
  const state = { done: 0, doneThisRun: 0, failed: 0, tokens: 0, costUsd: 0 };
  for (const doc of docs) {
    builder.add(doc);
    if (++state.done % 1000 === 0) progress.update({ ...state, doneThisRun: state.done });
  }
  progress.update({ ...state, doneThisRun: state.done });
  progress.finish();
  return builder.finish();
}

/** `assay index build`: a collection file into a saved BM25 index. */
export function indexCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): number | Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help') {
    io.stdout(`${INDEX_USAGE}\n`);
    return what === undefined ? 1 : 0;
  }
  if (what !== 'build') throw new UsageError(`unknown index command '${what}' (build)`);
  const parsed = getopt(rest, INDEX_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${INDEX_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const option = (key: string) => options.get(key)?.at(-1);
  const collection = option('collection');
  if (collection !== undefined) {
    if (!options.has('onDisk'))
      throw new UsageError(
        "--collection builds the stored collection's on-disk index: give --on-disk",
      );
    const stray = ['docs', 'out', 'format', 'stemmer', 'stopwords', 'k1', 'b'].find((k) =>
      options.has(k),
    );
    if (stray !== undefined)
      throw new UsageError(
        `--${stray} does not go with --collection (a stored collection is indexed with the default analyzer, under the data directory)`,
      );
    return indexCollectionOnDisk(io, collection, parsed.number('memoryMib') ?? 1024);
  }
  const docsFile = option('docs');
  const out = option('out');
  if (docsFile === undefined) throw new UsageError('--docs is required');
  if (out === undefined) throw new UsageError('--out is required');
  const analyzer = analyzerFrom(option('stemmer'), option('stopwords'));
  const params = { k1: parsed.number('k1') ?? 0.9, b: parsed.number('b') ?? 0.4 };
  const started = performance.now();
  if (options.has('onDisk'))
    return indexOnDisk(io, {
      docsFile,
      format: option('format'),
      out,
      analyzer,
      params,
      memoryMib: parsed.number('memoryMib') ?? 1024,
      started,
    });
  if (options.has('memoryMib')) throw new UsageError('--memory-mib goes with --on-disk');
  const docs = readDocuments(docsFile, { format: option('format') });
  const index = indexDocuments(docs, new IndexBuilder(analyzer), io);
  const bytes = saveIndex(out, index, params, { assay: ASSAY_CLI_VERSION, source: docsFile });
  const seconds = (performance.now() - started) / 1000;
  io.stdout(
    `indexed ${index.documentCount} documents (${index.data.terms.length} terms, ${index.postingCount} postings, ${describeAnalyzer(analyzer)}) in ${seconds.toFixed(2)} s; wrote ${out} (${(bytes / 1e6).toFixed(1)} MB, ${index.data.fingerprint})\n`,
  );
  return 0;
}

/** `assay index build --on-disk`: the collection streamed into an on-disk index. */
async function indexOnDisk(
  io: CommandIo & { stderrIsTTY?: boolean },
  input: {
    docsFile: string;
    format: string | undefined;
    out: string;
    analyzer: AnalyzerConfig;
    params: Bm25Params;
    memoryMib: number;
    started: number;
  },
): Promise<number> {
  const builder = new DiskIndexBuilder(input.out, {
    analyzer: input.analyzer,
    params: input.params,
    memoryBudget: input.memoryMib * 2 ** 20,
    createdBy: { assay: ASSAY_CLI_VERSION, source: input.docsFile },
  });
  const progress = new ProgressReporter({
    label: 'indexing',
    write: io.stderr,
    tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    unit: 'docs',
    showCost: false,
  });
  const state = { done: 0, doneThisRun: 0, failed: 0, tokens: 0, costUsd: 0 };
  try {
    await streamDocuments(input.docsFile, { format: input.format }, (doc) => {
      builder.add(doc);
      if (++state.done % 10_000 === 0) progress.update({ ...state, doneThisRun: state.done });
    });
  } catch (error) {
    builder.abort();
    throw error;
  }
  progress.update({ ...state, doneThisRun: state.done });
  progress.finish();
  const summary = builder.finish();
  const seconds = (performance.now() - input.started) / 1000;
  io.stdout(
    `indexed ${summary.documents} documents on disk (${summary.terms} terms, ${summary.postings} postings, ${summary.runs} sorted runs, ${describeAnalyzer(input.analyzer)}) in ${seconds.toFixed(2)} s; wrote ${input.out} (${(summary.bytes / 1e6).toFixed(1)} MB, ${summary.fingerprint})\n`,
  );
  return 0;
}

/** `assay index build --collection NAME --on-disk`: a stored collection's on-disk index. */
function indexCollectionOnDisk(
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
  collection: string,
  memoryMib: number,
): Promise<number> {
  const started = performance.now();
  return withDatabase(io, async (db, config) => {
    const progress = new ProgressReporter({
      label: 'indexing',
      write: io.stderr,
      tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
      unit: 'docs',
      showCost: false,
    });
    let built;
    try {
      built = await buildCollectionDiskIndex(db, config.dataDir, {
        collection,
        memoryBudget: memoryMib * 2 ** 20,
        onProgress: (done) =>
          progress.update({ done, doneThisRun: done, failed: 0, tokens: 0, costUsd: 0 }),
      });
    } finally {
      progress.finish();
    }
    io.stdout(
      `indexed ${built.documents} documents of collection "${built.collection}" on disk (${built.terms} terms, ${built.postings} postings, ${built.runs} sorted runs) in ${secondsSince(started).toFixed(2)} s; wrote ${built.file} (${(built.bytes / 1e6).toFixed(1)} MB, ${built.fingerprint})${built.replaced ? ', replacing the index built before' : ''}\n`,
    );
    return 0;
  });
}
