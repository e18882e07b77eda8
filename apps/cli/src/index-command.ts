import { describeAnalyzer, IndexBuilder, saveIndex, type Bm25Index } from '@assay/retrieval';
import type { CollectionDocument } from '@assay/trec';
import { FLAG, getopt, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';
import { ProgressReporter } from './progress.js';
import {
  analyzerFrom,
  ASSAY_CLI_VERSION,
  numberOption,
  readCollection,
} from './retrieval-inputs.js';

export const INDEX_USAGE = `Usage: assay index build --docs FILE --out INDEX [--format jsonl|tsv|cranfield]
                         [--stemmer porter|none] [--stopwords english|none|FILE] [--k1 X] [--b Y]

Builds a BM25 index of a collection (title and text indexed together) and saves it to one
file that 'assay retrieve --index INDEX' loads. The file records the analyzer, the BM25
parameters and a fingerprint of the collection; an index made by an assay with another
analyzer version is refused (rebuild it).

  --docs FILE      collection: JSONL, TSV or Cranfield cran.all.1400 (as assay import reads)
  --format F       collection format (default from the file name)
  --out INDEX      where to write the index
  --stemmer S      porter (default) or none
  --stopwords W    english (default), none, or a file of words
  --k1 X, --b Y    BM25 parameters recorded as the index's defaults (0.9, 0.4)`;

const OPTIONS: OptionSpec[] = [
  { long: 'docs', key: 'docs', kind: TEXT },
  { long: 'format', key: 'format', kind: TEXT },
  { long: 'out', key: 'out', kind: TEXT },
  { long: 'stemmer', key: 'stemmer', kind: TEXT },
  { long: 'stopwords', key: 'stopwords', kind: TEXT },
  { long: 'k1', key: 'k1', kind: TEXT },
  { long: 'b', key: 'b', kind: TEXT },
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

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
  const { options, positionals } = getopt(rest, OPTIONS);
  if (options.has('h')) {
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
  const params = {
    k1: numberOption('--k1', option('k1'), 0) ?? 0.9,
    b: numberOption('--b', option('b'), 0) ?? 0.4,
  };
  if (params.b > 1) throw new UsageError(`--b must be between 0 and 1, not ${params.b}`);
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
