// Query-term highlighting as data: the passage is cut into text segments, some marked.
// The page renders each segment as text (never as HTML), so a passage containing markup
// shows the markup as characters.

/** A piece of the passage, marked when it is one of the query's terms. */
export interface Segment {
  text: string;
  mark: boolean;
}

const STOPWORDS = new Set(
  'a an and are as at be by for from has have how in is it its of on or that the this to was were what when where which who why with'.split(
    ' ',
  ),
);

/** The query's terms worth marking: lower-cased words of two or more letters, no stopwords. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 2 && !STOPWORDS.has(w)))];
}

/** Cuts `text` into segments, marking whole words equal to a query term (any case). */
export function highlight(text: string, query: string): Segment[] {
  const terms = new Set(queryTerms(query));
  const segments: Segment[] = [];
  let plain = '';
  let last = 0;
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!terms.has(match[0].toLowerCase())) continue;
    plain += text.slice(last, match.index);
    if (plain) segments.push({ text: plain, mark: false });
    plain = '';
    segments.push({ text: match[0], mark: true });
    last = match.index + match[0].length;
  }
  plain += text.slice(last);
  if (plain) segments.push({ text: plain, mark: false });
  return segments;
}
