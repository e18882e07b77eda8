import { TrecFormatError } from './errors.js';
import { unstorableJson } from './json-depth.js';
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
  const docs =
    format === 'jsonl'
      ? parseJsonl(text, file)
      : format === 'tsv'
        ? parseTsv(text, file)
        : parseCranfield(text, file);
  if (docs.length === 0) throw new TrecFormatError(file, 0, 'no documents');
  return docs;
}

function lines(text: string): string[] {
  const all = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (all[0]?.charCodeAt(0) === 0xfeff) all[0] = all[0].slice(1);
  return all;
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

function parseJsonl(text: string, file: string): CollectionDocument[] {
  const docs: CollectionDocument[] = [];
  const seen = new Seen(file);
  lines(text).forEach((line, i) => {
    const lineNo = i + 1;
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
    seen.add(docId, lineNo);
    const metadata: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj))
      if (k !== idKey && k !== textKey && k !== 'title') metadata[k] = v;
    const doc: CollectionDocument = { id: docId, text: obj[textKey] as string, metadata };
    if (typeof obj.title === 'string') doc.title = obj.title;
    docs.push(doc);
  });
  return docs;
}

function parseTsv(text: string, file: string): CollectionDocument[] {
  const docs: CollectionDocument[] = [];
  const seen = new Seen(file);
  lines(text).forEach((line, i) => {
    const lineNo = i + 1;
    if (line.trim() === '' || line.startsWith('#')) return;
    const fields = line.split('\t');
    if (fields.length < 2 || fields.length > 3)
      throw new TrecFormatError(
        file,
        lineNo,
        `expected id<TAB>text or id<TAB>title<TAB>text, found ${fields.length} fields`,
      );
    const id = fields[0]!.trim();
    if (id === '' || /\s/.test(id))
      throw new TrecFormatError(file, lineNo, 'empty document id or id with spaces');
    seen.add(id, lineNo);
    const doc: CollectionDocument = { id, text: fields[fields.length - 1]!, metadata: {} };
    if (fields.length === 3) doc.title = fields[1]!;
    docs.push(doc);
  });
  return docs;
}

function parseCranfield(text: string, file: string): CollectionDocument[] {
  const docs: CollectionDocument[] = [];
  const seen = new Seen(file);
  let current: { id: string; line: number; fields: Record<string, string[]> } | undefined;
  let field: string | undefined;
  const finish = () => {
    if (!current) return;
    const get = (f: string) => (current!.fields[f] ?? []).join(' ').replace(/\s+/g, ' ').trim();
    const doc: CollectionDocument = { id: current.id, text: get('W'), metadata: {} };
    const title = get('T');
    if (title) doc.title = title;
    if (get('A')) doc.metadata.authors = get('A');
    if (get('B')) doc.metadata.bibliography = get('B');
    docs.push(doc);
  };
  lines(text).forEach((line, i) => {
    const lineNo = i + 1;
    const marker = /^\.([ITABW])(?:\s+(.*))?$/.exec(line.trim());
    if (marker) {
      if (marker[1] === 'I') {
        finish();
        const id = (marker[2] ?? '').trim();
        if (!/^\d+$/.test(id))
          throw new TrecFormatError(
            file,
            lineNo,
            `.I needs a document number, found ${JSON.stringify(id)}`,
          );
        seen.add(id, lineNo);
        current = { id, line: lineNo, fields: {} };
        field = undefined;
      } else {
        if (!current) throw new TrecFormatError(file, lineNo, `.${marker[1]} before the first .I`);
        field = marker[1]!;
        current.fields[field] = marker[2] ? [marker[2]] : [];
      }
      return;
    }
    if (line.trim() === '') return;
    if (!current || !field)
      throw new TrecFormatError(file, lineNo, 'text outside a .T, .A, .B or .W field');
    current.fields[field]!.push(line);
  });
  finish();
  return docs;
}
