import { describeAnalyzer, IndexBuilder, saveIndex, type Bm25Index } from '@assay/retrieval';
import type { CollectionDocument } from '@assay/trec';
import {
  commandHelp,
  FILE,
  getopt,
  HELP_OPTION,
  number,
  oneOf,
  type OptionSpec,
  TEXT,
  UsageError,
} from './getopt.js';
import type { CommandIo } from './io.js';
import { ProgressReporter } from './progress.js';
import { analyzerFrom, ASSAY_CLI_VERSION, readCollection } from './retrieval-inputs.js';

export const INDEX_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    help: 'collection: JSONL, TSV or Cranfield cran.all.1400 (as assay import reads)',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('jsonl', 'tsv', 'cranfield'),
    arg: 'F',
    help: 'collection format (default from the file name)',
  },
  { long: 'out', key: 'out', kind: FILE, arg: 'INDEX', help: 'where to write the index' },
  {
    long: 'stemmer',
    key: 'stemmer',
    kind: oneOf('porter', 'none'),
    arg: 'S',
    help: 'porter (default) or none',
  },
  {
    long: 'stopwords',
    key: 'stopwords',
    kind: TEXT,
    arg: 'W',
    help: 'english (default), none, or a file of words',
  },
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
  HELP_OPTION,
];

export const INDEX_USAGE = commandHelp({
  usage: `assay index build --docs FILE --out INDEX [--format jsonl|tsv|cranfield]
                         [--stemmer porter|none] [--stopwords english|none|FILE] [--k1 X] [--b Y]`,
  about: `Builds a BM25 index of a collection (title and text indexed together) and saves it to one
file that 'assay retrieve --index INDEX' loads. The file records the analyzer, the BM25
parameters and a fingerprint of the collection; an index made by an assay with another
analyzer version is refused (rebuild it).`,
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
export function indexCommand(argv: readonly string[], io: CommandIo): number {
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
  const docsFile = option('docs');
  const out = option('out');
  if (docsFile === undefined) throw new UsageError('--docs is required');
  if (out === undefined) throw new UsageError('--out is required');
  const analyzer = analyzerFrom(option('stemmer'), option('stopwords'));
  const params = { k1: parsed.number('k1') ?? 0.9, b: parsed.number('b') ?? 0.4 };
  const started = performance.now();
  const docs = readCollection(docsFile, option('format'));
  const index = indexDocuments(docs, new IndexBuilder(analyzer), io);
  const bytes = saveIndex(out, index, params, { assay: ASSAY_CLI_VERSION, source: docsFile });
  const seconds = (performance.now() - started) / 1000;
  io.stdout(
    `indexed ${index.documentCount} documents (${index.data.terms.length} terms, ${index.postingCount} postings, ${describeAnalyzer(analyzer)}) in ${seconds.toFixed(2)} s; wrote ${out} (${(bytes / 1e6).toFixed(1)} MB, ${index.data.fingerprint})\n`,
  );
  return 0;
}
