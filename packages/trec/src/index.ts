// Public surface of @assay/trec: parsers and writers for TREC runs, qrels and topics.

/** Shapes of parsed TREC data: a run entry, a run, qrels and a topic. */
export type { Qrels, Run, RunEntry, Topic } from './types.js';

/** Error for a malformed TREC file, with `file`, 1-based `line` and `reason`. */
export { TrecFormatError } from './errors.js';

/** Parses a TREC run (`qid Q0 docno rank score tag`) from a string. */
export { parseRun } from './run.js';
/** Parses a TREC run from an async stream of text or UTF-8 byte chunks. */
export { parseRunStream } from './run.js';
/** Parses a run pushed in pieces, handing each entry on as it is read (for streaming writes). */
export { RunStreamParser, type RunEntrySink } from './run.js';
/** The tag of a run's last line, read from the end of its text. */
export { lastRunTag } from './run.js';
/** Writes a run as TREC run lines, optionally re-ranked as trec_eval ranks it. */
export { formatRun } from './run.js';
/** Options of formatRun: the tag to write and whether to re-rank. */
export type { FormatRunOptions } from './run.js';
/** Options of parseRun: keep only some topics' entries (every line is still checked). */
export type { ParseRunOptions } from './run.js';
/** Sorts entries as trec_eval does: score descending, then docno descending (byte order). */
export { rankEntries } from './run.js';
/** Compares two strings in UTF-8 byte order, as C `strcmp` does. */
export { compareBytewise } from './run.js';

/** Parses TREC qrels (`qid iter docno rel`) from a string. */
export { parseQrels } from './qrels.js';
/** Parses TREC qrels from an async stream of text or UTF-8 byte chunks. */
export { parseQrelsStream } from './qrels.js';
/** Writes qrels as `qid 0 docno rel` lines. */
export { formatQrels } from './qrels.js';
/** Parses qrels whose second column names a judgment group (trec_eval's `-R qrels_jg`). */
export { parseQrelsJg, type QrelsJg } from './qrels-jg.js';
/** Parses preference judgments (`qid jg jsg docno rel`, trec_eval's `-R prefs`). */
export { parsePrefs, type PrefJudgment, type Prefs } from './prefs.js';
/** Parses qrels as preference judgments (trec_eval's `-R qrels_prefs`). */
export { parseQrelsPrefs } from './prefs.js';

/** Parses topics from TSV, JSONL, TREC SGML/XML or cran.qry, detecting the format when omitted. */
export { parseTopics } from './topics.js';
/** Guesses whether topic text is TSV, JSONL, TREC SGML/XML or Cranfield's cran.qry. */
export { detectTopicFormat } from './topics.js';
/** Writes topics as `id<TAB>text` lines. */
export { formatTopicsTsv } from './topics.js';
/** The topic formats parseTopics reads: 'tsv', 'jsonl', 'trec' or 'cranfield'. */
export type { TopicFormat } from './topics.js';
/** Cranfield's cran.qry: queries numbered by position (as cranqrel), with their `.I` numbers. */
export { parseCranfieldQueries, type CranfieldQuery } from './cranfield-queries.js';
/** Conversational topics: earlier turns and the user's background, checked at file:line. */
export {
  parseConversationalTopics,
  parseConversationalTopicsStream,
  topicConversation,
  type ConversationalTopic,
  type ConversationTurn,
  type TopicConversation,
} from './topic-context.js';

/** Reads a run file from disk through a stream. */
export { readRunFile } from './files.js';
/** Reads a qrels file from disk through a stream. */
export { readQrelsFile } from './files.js';
/** Reads a topic file from disk. */
export { readTopicsFile } from './files.js';
/** Parses a document collection (JSONL, TSV or the Cranfield layout) with file:line errors. */
export {
  CollectionDocumentStream,
  forEachCollectionDocument,
  parseCollection,
  parseCollectionStream,
  type CollectionDocument,
  type CollectionFormat,
} from './collection.js';

/**
 * The one rule of which format a document or topic file is in: a format given, else the
 * file's name, else its first line; the format names a format option accepts.
 */
export {
  DOCUMENT_FORMATS,
  TOPIC_FORMATS,
  InputFormatError,
  documentFormatOf,
  documentFormatOfName,
  topicFormatOf,
  type FormatOverride,
} from './input-formats.js';

/** Parses a TREC run from bytes into compact per-topic columns (typed arrays), in chunks. */
export {
  RunColumnsParser,
  parseRunColumns,
  parseRunColumnsStream,
  hashDocno,
  docnoAt,
  docnoStart,
  lineOf,
  type RunColumns,
  type RunColumnsOptions,
  type TopicColumns,
} from './run-columns.js';

/** Parses TREC qrels from bytes into compact per-topic columns (typed arrays), in chunks. */
export {
  QrelsColumnsParser,
  parseQrelsColumns,
  judgedDocnoAt,
  type QrelsColumns,
  type QrelsTopicColumns,
} from './qrels-columns.js';

/** Storage limits checked at parse time: id bytes, name length, 32-bit integers. */
export {
  MAX_GRADE,
  MAX_ID_BYTES,
  MAX_NAME_CHARS,
  MIN_GRADE,
  gradeProblem,
  gradeScaleProblem,
} from './storage-limits.js';
/** Throws `file:line` for the first NUL character of a text (no database text holds one). */
export { refuseNul } from './storage-limits.js';
/** Why a parsed JSONL value cannot be stored (nested too deep, a NUL character), or undefined. */
export { MAX_JSON_DEPTH, unstorableJson } from './json-depth.js';
/** Options of parseQrels: whether to refuse what a database cannot store. */
export type { ParseQrelsOptions } from './qrels.js';
export { Utf8Validator, checkUtf8 } from './utf8.js';
