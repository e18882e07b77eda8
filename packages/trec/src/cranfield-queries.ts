// Cranfield's query file, `cran.qry`: `.I` number, then `.W` and the query's text. The
// queries are numbered by their position in the file ("1" … "225"), which is how
// `cranqrel` refers to them: the `.I` numbers skip (001, 002, 004, 008, …).
import { TrecFormatError, quote } from './errors.js';
import type { TopicList } from './topic-list.js';

/** One query of `cran.qry`: its position (the id cranqrel uses), its `.I` number and text. */
export interface CranfieldQuery {
  position: string;
  original: string;
  text: string;
}

/**
 * Queries of the Cranfield `cran.qry` layout (`.I` number, `.W` text; CRLF or LF), numbered
 * by their position in the file ("1" … "225"), which is how `cranqrel` refers to them.
 */
export function parseCranfieldQueries(text: string, file: string): CranfieldQuery[] {
  return queriesWithLines(text, file).map(({ position, original, text }) => ({
    position,
    original,
    text,
  }));
}

/**
 * `cran.qry` read as topics (parseTopics' `cranfield` format): ids by position, the text of
 * `.W`; a query without text fails at its `.I` line.
 */
export function readCranfieldTopics(text: string, file: string, list: TopicList): void {
  for (const query of queriesWithLines(text, file)) {
    if (query.text === '')
      throw new TrecFormatError(
        file,
        query.line,
        `empty query text for topic ${quote(query.position)}`,
      );
    list.add({ id: query.position, text: query.text }, query.line);
  }
}

function queriesWithLines(text: string, file: string): Array<CranfieldQuery & { line: number }> {
  const queries: Array<CranfieldQuery & { line: number }> = [];
  let current: { original: string; parts: string[]; line: number } | undefined;
  const finish = () => {
    if (current)
      queries.push({
        position: String(queries.length + 1),
        original: current.original,
        text: current.parts.join(' ').replace(/\s+/g, ' ').trim(),
        line: current.line,
      });
  };
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const id = /^\.I\s+(\S+)\s*$/.exec(line);
    const w = /^\.W(?:\s+(.*))?$/.exec(line);
    if (id) {
      finish();
      current = { original: id[1]!, parts: [], line: i + 1 };
    } else if (/^\.I\b/.test(line)) {
      throw new TrecFormatError(file, i + 1, '.I needs a query number');
    } else if (w) {
      if (!current) throw new TrecFormatError(file, i + 1, '.W before the first .I');
      if (w[1]) current.parts.push(w[1]);
    } else if (line.trim() !== '') {
      if (!current) throw new TrecFormatError(file, i + 1, 'text before the first .I');
      current.parts.push(line);
    }
  });
  finish();
  if (queries.length === 0) throw new TrecFormatError(file, 0, 'no queries');
  return queries;
}
