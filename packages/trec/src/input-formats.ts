// Which format an input file is in: the one rule by which every command and upload reads
// documents and topics. A format given by name wins. Otherwise a document file's name
// tells (`.jsonl` or `.json`, `.tsv`, Cranfield's `cran.all…`, each also ending `.gz`),
// and when it does not, its first line does (a JSON object, a Cranfield `.I` line, a
// tab-separated line); a topic file's content tells (detectTopicFormat). A document file
// that neither tells is refused, naming the formats and how to give one.
import type { CollectionFormat } from './collection.js';
import { detectTopicFormat, type TopicFormat } from './topics.js';

/** The document formats assay reads, as a format option names them. */
export const DOCUMENT_FORMATS = [
  'jsonl',
  'tsv',
  'cranfield',
] as const satisfies readonly CollectionFormat[];

/** The topic formats assay reads, as a format option names them. */
export const TOPIC_FORMATS = [
  'tsv',
  'jsonl',
  'trec',
  'cranfield',
] as const satisfies readonly TopicFormat[];

/**
 * A format that is not one assay reads, or a file whose format cannot be told: a usage
 * problem (the file may be fine), so apps report it as such, not as a bad line.
 */
export class InputFormatError extends Error {
  override readonly name = 'InputFormatError';
  constructor(
    /** The file (or label) whose format was asked for. */
    readonly file: string,
    /** The formats that would have been read. */
    readonly accepted: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** How a caller spells the format override in messages: `--format` unless said. */
export interface FormatOverride {
  /** The format named by the user, if any (checked against the accepted ones). */
  given?: string | undefined;
  /** The option's spelling in messages (`--format`, `--docs-format`, `format`). */
  option?: string;
}

/** Characters of a file's start looked at to tell its format. */
const HEAD_CHARS = 64 * 1024;

/**
 * The format of a document file: `given` when there is one (it must be jsonl, tsv or
 * cranfield), else from the file's name (`.jsonl`/`.json` → jsonl, `.tsv` → tsv, a name
 * starting `cran.all` → cranfield; a trailing `.gz` is looked through), else from its
 * first line that is neither blank nor a `#` comment (`{` → jsonl, `.I` → cranfield, a
 * tab → tsv). `head` is the start of the file, whole or in consecutive parts.
 * Throws InputFormatError when none of these tells.
 */
export function documentFormatOf(
  file: string,
  head: string | readonly string[],
  override: FormatOverride = {},
): CollectionFormat {
  const option = override.option ?? '--format';
  if (override.given !== undefined)
    return checkFormat(file, override.given, DOCUMENT_FORMATS, option);
  const byName = documentFormatOfName(file);
  if (byName !== undefined) return byName;
  const byContent = documentFormatOfContent(head);
  if (byContent !== undefined) return byContent;
  throw new InputFormatError(
    file,
    DOCUMENT_FORMATS,
    `cannot tell the format of ${file}; give ${option} ${orList(DOCUMENT_FORMATS)} (or name it .jsonl, .tsv or cran.all*)`,
  );
}

/**
 * The format of a topic file: `given` when there is one (tsv, jsonl, trec or cranfield),
 * else from its content (detectTopicFormat: `{` → jsonl, `.I` → cranfield, a `<top>` or
 * `<topic` tag → trec, anything else tsv). `file` names the file in messages.
 */
export function topicFormatOf(
  file: string,
  head: string | readonly string[],
  override: FormatOverride = {},
): TopicFormat {
  if (override.given !== undefined)
    return checkFormat(file, override.given, TOPIC_FORMATS, override.option ?? '--format');
  return detectTopicFormat(head);
}

/** The document format a file's name says, if it says one. */
export function documentFormatOfName(file: string): CollectionFormat | undefined {
  const name = (file.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.gz$/, '');
  if (/\.jsonl?$/.test(name)) return 'jsonl';
  if (/\.tsv$/.test(name)) return 'tsv';
  if (name.startsWith('cran.all')) return 'cranfield';
  return undefined;
}

/** The document format the first line of content says, if it says one. */
function documentFormatOfContent(head: string | readonly string[]): CollectionFormat | undefined {
  const parts = typeof head === 'string' ? [head] : head;
  let start = '';
  for (const part of parts) {
    start += part.slice(0, HEAD_CHARS - start.length);
    if (start.length >= HEAD_CHARS) break;
  }
  for (const raw of start.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('{')) return 'jsonl';
    if (/^\.I(?:\s|$)/.test(line)) return 'cranfield';
    if (raw.includes('\t')) return 'tsv';
    return undefined;
  }
  return undefined;
}

function checkFormat<F extends string>(
  file: string,
  given: string,
  accepted: readonly F[],
  option: string,
): F {
  if ((accepted as readonly string[]).includes(given)) return given as F;
  throw new InputFormatError(
    file,
    accepted,
    `${option} must be one of ${accepted.join(', ')}, got ${JSON.stringify(given)}`,
  );
}

/** `a, b or c`. */
function orList(values: readonly string[]): string {
  return values.length < 2
    ? values.join('')
    : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
