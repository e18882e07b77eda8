import { TrecFormatError, quote } from './errors.js';
import {
  type LineHandler,
  parseInteger,
  scanFields,
  splitLines,
  splitLinesAsync,
} from './lines.js';
import { checkField, formatNumber } from './write.js';
import type { Qrels } from './types.js';

/** Builds Qrels from `qid iter docno rel` lines; shared by the string and stream parsers. */
class QrelsBuilder implements LineHandler {
  private readonly file: string;
  private readonly bounds = new Int32Array(8);
  private readonly qrels: Qrels = new Map();
  /** docno → line number per topic, for duplicate detection. */
  private readonly seen = new Map<string, Map<string, number>>();
  private lines = 0;

  constructor(file: string) {
    this.file = file;
  }

  line(text: string, start: number, end: number, lineNo: number, separator: number): void {
    const b = this.bounds;
    const count = scanFields(text, start, end, b, 4, separator);
    if (count === 0) return;
    if (count !== 4) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `expected 4 fields (qid iter docno rel), found ${count}`,
      );
    }
    const rel = parseInteger(text, b[6]!, b[7]!);
    if (Number.isNaN(rel)) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `relevance ${quote(text.slice(b[6], b[7]))} is not an integer`,
      );
    }
    const qid = text.slice(b[0], b[1]);
    const docno = text.slice(b[4], b[5]);
    let judged = this.qrels.get(qid);
    let seen = this.seen.get(qid);
    if (judged === undefined || seen === undefined) {
      judged = new Map();
      seen = new Map();
      this.qrels.set(qid, judged);
      this.seen.set(qid, seen);
    }
    const earlier = seen.get(docno);
    if (earlier !== undefined) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `duplicate judgment for topic ${quote(qid)} docno ${quote(docno)} (first at line ${earlier})`,
      );
    }
    seen.set(docno, lineNo);
    judged.set(docno, rel);
    this.lines++;
  }

  finish(): Qrels {
    if (this.lines === 0) throw new TrecFormatError(this.file, 0, 'no qrels lines');
    return this.qrels;
  }
}

/**
 * Parses TREC qrels (`qid iter docno rel` per line; `rel` an integer, negative allowed). Same
 * whitespace, CRLF, blank-line and `#` comment rules as parseRun; the iter column is ignored.
 */
export function parseQrels(text: string, file = '<qrels>'): Qrels {
  const builder = new QrelsBuilder(file);
  splitLines(text, builder);
  return builder.finish();
}

/** Streaming parseQrels: same result and errors, from chunks of text or UTF-8 bytes. */
export async function parseQrelsStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
): Promise<Qrels> {
  const builder = new QrelsBuilder(file);
  await splitLinesAsync(input, builder);
  return builder.finish();
}

/** Writes qrels as `qid 0 docno rel` lines ending in `\n`, in map order. */
export function formatQrels(qrels: Qrels): string {
  let out = '';
  for (const [qid, judged] of qrels) {
    checkField('qid', qid);
    for (const [docno, rel] of judged) {
      checkField('docno', docno);
      if (!Number.isInteger(rel)) {
        throw new RangeError(`relevance ${rel} of ${quote(docno)} is not an integer`);
      }
      out += `${qid} 0 ${docno} ${formatNumber(rel)}\n`;
    }
  }
  return out;
}
