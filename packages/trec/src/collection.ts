import { TrecFormatError, jsonType } from './errors.js';
import { unstorableJson } from './json-depth.js';
import {
  type InnerLineBreaks,
  type LineHandler,
  LineSplitter,
  splitLines,
  splitLinesAsync,
} from './lines.js';
import { idProblem } from './storage-limits.js';

/** One document of a collection. */
export interface CollectionDocument {
  id: string;
  title?: string;
  text: string;
  /** Other fields of the source (JSONL keys, Cranfield authors and bibliography). */
  metadata: Record<string, unknown>;
}

/** Formats assay reads collections from. */
export type CollectionFormat = 'jsonl' | 'tsv' | 'cranfield';

const ID_KEYS = ['id', 'docid', 'doc_id', '_id'];
const TEXT_KEYS = ['text', 'contents', 'body', 'doc'];

/**
 * Parses a document collection: JSONL (`{"id", "title"?, "text"}`; the id may also be
 * `docid`, `doc_id` or `_id`, the text `contents`, `body` or `doc`; other keys become metadata),
 * TSV (`id<TAB>text` or `id<TAB>title<TAB>text`) or the Cranfield `cran.all.1400` layout
 * (`.I` id, `.T` title, `.A` authors, `.B` bibliography, `.W` text). Duplicate ids and
 * malformed lines are errors naming `file:line`.
 */
export function parseCollection(
  text: string,
  file: string,
  format: CollectionFormat,
): CollectionDocument[] {
  const reader = documentReader(file, format);
  splitLines(text, reader, { file, innerBreaks: innerBreaksOf(format) });
  return reader.finish();
}

/**
 * Streaming parseCollection: the same documents and errors, from chunks of text or UTF-8
 * bytes (a large upload fed in slices, with other work done between them).
 */
export async function parseCollectionStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  format: CollectionFormat,
): Promise<CollectionDocument[]> {
  const reader = documentReader(file, format);
  await splitLinesAsync(input, reader, { file, innerBreaks: innerBreaksOf(format) });
  return reader.finish();
}

/**
 * Hands the documents of a collection, read from chunks of UTF-8 bytes (a file read a
 * piece at a time), to `onDocument` one by one without keeping them: for collections too
 * large to hold (the on-disk index reads MS MARCO this way). The same documents and errors
 * as {@link parseCollection}. Returns the number of documents.
 */
export function forEachCollectionDocument(
  chunks: Iterable<Uint8Array>,
  file: string,
  format: CollectionFormat,
  onDocument: (doc: CollectionDocument) => void,
): number {
  const stream = new CollectionDocumentStream(file, format, onDocument);
  for (const chunk of chunks) stream.push(chunk);
  return stream.end();
}

/**
 * forEachCollectionDocument for chunks that arrive one call at a time (a file decompressed
 * as it is read): `push` each chunk of UTF-8 bytes, then `end`, which returns the number
 * of documents. The same documents and errors as {@link parseCollection}.
 */
export class CollectionDocumentStream {
  private readonly reader: DocumentReader;
  private readonly splitter: LineSplitter;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    file: string,
    format: CollectionFormat,
    onDocument: (doc: CollectionDocument) => void,
  ) {
    this.reader = documentReader(file, format, onDocument);
    this.splitter = new LineSplitter(this.reader, { file, innerBreaks: innerBreaksOf(format) });
  }

  /** Reads the documents a chunk completes. */
  push(chunk: Uint8Array): void {
    this.splitter.push(this.decoder.decode(chunk, { stream: true }));
  }

  /** Reads the last document; no documents at all is an error. */
  end(): number {
    this.splitter.push(this.decoder.decode());
    this.splitter.end();
    this.reader.finish();
    return this.reader.count;
  }
}

/** Reads documents line by line; `finish` returns them (no documents is an error). */
abstract class DocumentReader implements LineHandler {
  protected readonly docs: CollectionDocument[] = [];
  protected readonly seen: Seen;
  /** Documents read (kept, or handed to the sink). */
  count = 0;

  constructor(
    protected readonly file: string,
    private readonly sink?: (doc: CollectionDocument) => void,
  ) {
    this.seen = new Seen(file);
  }

  /** Keeps a document read, or hands it to the sink. */
  protected emit(doc: CollectionDocument): void {
    this.count++;
    if (this.sink) this.sink(doc);
    else this.docs.push(doc);
  }

  line(text: string, start: number, end: number, lineNo: number): void {
    // Lines end at `\n`; the `\r` of a CRLF file is not part of the line.
    const cr = end > start && text.charCodeAt(end - 1) === 13;
    this.read(text.slice(start, cr ? end - 1 : end), lineNo);
  }

  protected abstract read(line: string, lineNo: number): void;

  finish(): CollectionDocument[] {
    if (this.count === 0) throw new TrecFormatError(this.file, 0, 'no documents');
    return this.docs;
  }
}

function documentReader(
  file: string,
  format: CollectionFormat,
  sink?: (doc: CollectionDocument) => void,
): DocumentReader {
  return format === 'jsonl'
    ? new JsonlReader(file, sink)
    : format === 'tsv'
      ? new TsvReader(file, sink)
      : new CranfieldReader(file, sink);
}

class Seen {
  private readonly lines = new Map<string, number>();
  constructor(private readonly file: string) {}
  add(id: string, line: number): void {
    const tooLong = idProblem('document id', id);
    if (tooLong !== undefined) throw new TrecFormatError(this.file, line, tooLong);
    const first = this.lines.get(id);
    if (first !== undefined)
      throw new TrecFormatError(
        this.file,
        line,
        `duplicate document id ${JSON.stringify(id)} (first at line ${first})`,
      );
    this.lines.set(id, line);
  }
}

class JsonlReader extends DocumentReader {
  protected read(line: string, lineNo: number): void {
    const file = this.file;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TrecFormatError(file, lineNo, 'invalid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TrecFormatError(file, lineNo, 'expected a JSON object');
    const obj = value as Record<string, unknown>;
    const unstorable = unstorableJson(obj, 'document');
    if (unstorable !== undefined) throw new TrecFormatError(file, lineNo, unstorable);
    const idKey = ID_KEYS.find((k) => obj[k] !== undefined);
    const textKey = TEXT_KEYS.find((k) => typeof obj[k] === 'string');
    const id = idKey === undefined ? undefined : obj[idKey];
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new TrecFormatError(file, lineNo, `no document id (one of ${ID_KEYS.join(', ')})`);
    if (textKey === undefined)
      throw new TrecFormatError(file, lineNo, `no document text (one of ${TEXT_KEYS.join(', ')})`);
    const docId = String(id);
    if (docId.trim() === '' || /\s/.test(docId))
      throw new TrecFormatError(
        file,
        lineNo,
        `document id ${JSON.stringify(docId)} is empty or has spaces`,
      );
    // A title that is there but not text would otherwise be dropped without a word.
    if (obj.title !== undefined && obj.title !== null && typeof obj.title !== 'string')
      throw new TrecFormatError(
        file,
        lineNo,
        `"title" must be a string, not ${jsonType(obj.title)}`,
      );
    this.seen.add(docId, lineNo);
    const metadata: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj))
      if (k !== idKey && k !== textKey && k !== 'title') metadata[k] = v;
    const doc: CollectionDocument = { id: docId, text: obj[textKey] as string, metadata };
    if (typeof obj.title === 'string') doc.title = obj.title;
    this.emit(doc);
  }
}

class TsvReader extends DocumentReader {
  protected read(line: string, lineNo: number): void {
    if (line.trim() === '' || line.startsWith('#')) return;
    const fields = line.split('\t');
    if (fields.length < 2 || fields.length > 3)
      throw new TrecFormatError(
        this.file,
        lineNo,
        `expected id<TAB>text or id<TAB>title<TAB>text, found ${fields.length} fields`,
      );
    const id = fields[0]!.trim();
    if (id === '' || /\s/.test(id))
      throw new TrecFormatError(this.file, lineNo, 'empty document id or id with spaces');
    this.seen.add(id, lineNo);
    const doc: CollectionDocument = { id, text: fields[fields.length - 1]!, metadata: {} };
    if (fields.length === 3) doc.title = fields[1]!;
    this.emit(doc);
  }
}

class CranfieldReader extends DocumentReader {
  private current: { id: string; fields: Record<string, string[]> } | undefined;
  private field: string | undefined;

  protected read(line: string, lineNo: number): void {
    const marker = /^\.([ITABW])(?:\s+(.*))?$/.exec(line.trim());
    if (marker) {
      if (marker[1] === 'I') {
        this.finishDocument();
        const id = (marker[2] ?? '').trim();
        if (!/^\d+$/.test(id))
          throw new TrecFormatError(
            this.file,
            lineNo,
            `.I needs a document number, found ${JSON.stringify(id)}`,
          );
        this.seen.add(id, lineNo);
        this.current = { id, fields: {} };
        this.field = undefined;
      } else {
        if (!this.current)
          throw new TrecFormatError(this.file, lineNo, `.${marker[1]} before the first .I`);
        this.field = marker[1]!;
        this.current.fields[this.field] = marker[2] ? [marker[2]] : [];
      }
      return;
    }
    if (line.trim() === '') return;
    if (!this.current || !this.field)
      throw new TrecFormatError(this.file, lineNo, 'text outside a .T, .A, .B or .W field');
    this.current.fields[this.field]!.push(line);
  }

  override finish(): CollectionDocument[] {
    this.finishDocument();
    return super.finish();
  }

  private finishDocument(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const get = (f: string) => (current.fields[f] ?? []).join(' ').replace(/\s+/g, ' ').trim();
    const doc: CollectionDocument = { id: current.id, text: get('W'), metadata: {} };
    const title = get('T');
    if (title) doc.title = title;
    if (get('A')) doc.metadata.authors = get('A');
    if (get('B')) doc.metadata.bibliography = get('B');
    this.emit(doc);
  }
}

/** JSON Lines documents may hold U+2028 in their text; the line formats may not. */
function innerBreaksOf(format: CollectionFormat): InnerLineBreaks {
  return format === 'jsonl' ? 'keep' : 'refuse';
}
