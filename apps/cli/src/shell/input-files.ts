// The document and topic files every command reads, through the one rule of @assay/trec
// for their format: the one named (`--format`), else the file's name (`.jsonl`, `.tsv`,
// `cran.all*`, also with `.gz`), else its first line; topics by their content. Files may
// be gzip-compressed or `-` (standard input), as read-input.ts reads them. A format that
// cannot be told is a usage error naming the formats and the option; a bad line fails with
// `file:line: reason`.
import {
  CollectionDocumentStream,
  DOCUMENT_FORMATS,
  documentFormatOf,
  InputFormatError,
  parseCollection,
  parseConversationalTopics,
  parseTopics,
  topicFormatOf,
  type CollectionDocument,
  type CollectionFormat,
  type ConversationalTopic,
  type Topic,
  type TopicFormat,
} from '@assay/trec';
import { oneOf, type OptionSpec, UsageError } from './getopt.js';
import { readChunks, readText, type InputEncoding } from './read-input.js';

/** What the format of a documents file is, for the help of the option that names it. */
const DOCS_FORMAT_HELP = `the documents' format: jsonl, tsv or cranfield (default: from the
file name, .jsonl, .tsv or cran.all*, else its first line: {, .I or a tab)`;

/** `--format F`: the format of the documents a command reads (`--docs`). */
export const DOCS_FORMAT_OPTION: OptionSpec = {
  long: 'format',
  key: 'format',
  kind: oneOf(...DOCUMENT_FORMATS),
  arg: 'F',
  help: DOCS_FORMAT_HELP,
};

/** `--docs-format F`: the same, for commands whose `--format` is their output's. */
export const DOCS_FORMAT_OPTION_BESIDE_OUTPUT: OptionSpec = {
  ...DOCS_FORMAT_OPTION,
  long: 'docs-format',
  key: 'docsFormat',
};

/** How a documents or topics file is read. */
export interface ReadOptions {
  /** The format named on the command line (checked against the formats assay reads). */
  format?: string | undefined;
  /** The option that names it, for messages (default `--format`). */
  option?: string;
  /** The files' encoding (commands with `--encoding`; UTF-8 otherwise). */
  encoding?: InputEncoding;
}

/** The format of a documents file whose text is `text` (for commands that hand the text on). */
export function documentFormat(
  file: string,
  text: string,
  options: ReadOptions = {},
): CollectionFormat {
  return asUsage(() =>
    documentFormatOf(file, text, { given: options.format, option: options.option ?? '--format' }),
  );
}

/** The format of a topics file whose text is `text` (for commands that hand the text on). */
export function topicFormat(file: string, text: string, options: ReadOptions = {}): TopicFormat {
  return asUsage(() =>
    topicFormatOf(file, text, { given: options.format, option: options.option ?? '--format' }),
  );
}

/** Reads a whole documents file: JSONL, TSV or Cranfield, plain or gzip. */
export function readDocuments(file: string, options: ReadOptions = {}): CollectionDocument[] {
  const text = readText(file, options.encoding);
  return parseCollection(text, file, documentFormat(file, text, options));
}

/**
 * Hands the documents of a file to `onDocument` one by one without keeping them (a file
 * too large to hold, decompressed as it is read when gzip); its format is told from its
 * first chunk. Returns the number of documents.
 */
export async function streamDocuments(
  file: string,
  options: ReadOptions,
  onDocument: (doc: CollectionDocument) => void,
): Promise<number> {
  let stream: CollectionDocumentStream | undefined;
  const open = (head: string) =>
    new CollectionDocumentStream(file, documentFormat(file, head, options), onDocument);
  await readChunks(
    file,
    (chunk) => {
      stream ??= open(new TextDecoder().decode(chunk.subarray(0, HEAD_BYTES)));
      stream.push(chunk);
    },
    options.encoding,
  );
  // An empty file: its name may still say the format (then "no documents"), or not.
  return (stream ?? open('')).end();
}

/** Bytes of a file's first chunk its format is told from. */
const HEAD_BYTES = 64 * 1024;

/** Reads a topics file (TSV, JSONL, TREC or cran.qry, plain or gzip) as topics. */
export function readTopics(file: string, options: ReadOptions = {}): Topic[] {
  const text = readText(file, options.encoding);
  return parseTopics(text, file, topicFormat(file, text, options));
}

/**
 * Reads a topics file with each topic's conversational context (JSONL topics' earlier
 * turns, the user's background, a reference answer), checked at the topic's `file:line`.
 */
export function readConversationalTopics(
  file: string,
  options: ReadOptions = {},
): ConversationalTopic[] {
  const text = readText(file, options.encoding);
  return parseConversationalTopics(text, file, topicFormat(file, text, options));
}

/** An InputFormatError as the usage error it is (the message, then the command's help). */
function asUsage<T>(decide: () => T): T {
  try {
    return decide();
  } catch (error) {
    if (error instanceof InputFormatError) throw new UsageError(error.message);
    throw error;
  }
}
