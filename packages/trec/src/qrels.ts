import { quote } from './errors.js';
import { splitLines, splitLinesAsync } from './lines.js';
import { type JudgedDocs, QrelsLineReader } from './qrels-lines.js';
import { checkField, formatNumber } from './write.js';
import type { Qrels } from './types.js';

/** Builds Qrels from `qid iter docno rel` lines; shared by the string and stream parsers. */
class QrelsBuilder extends QrelsLineReader {
  private readonly qrels: Qrels = new Map();
  private readonly topics = new Map<string, JudgedDocs>();
  protected readonly readsSecond = false;

  constructor(file: string, options: ParseQrelsOptions) {
    super(file, 'qid iter docno rel', options.storage, options.scale);
  }

  protected judged(qid: string): JudgedDocs {
    let judged = this.topics.get(qid);
    if (judged === undefined) {
      judged = { grades: new Map(), lines: [] };
      this.topics.set(qid, judged);
      this.qrels.set(qid, judged.grades);
    }
    return judged;
  }

  protected where(qid: string): string {
    return `topic ${quote(qid)}`;
  }

  finish(): Qrels {
    this.checkNotEmpty();
    return this.qrels;
  }
}

/** Options of parseQrels. */
export interface ParseQrelsOptions {
  /** Also refuse what a database does not store: ids over 512 bytes, grades outside -1000..1000. */
  storage?: boolean;
  /** Refuse a grade outside this declared scale (inclusive), naming its line. */
  scale?: { min: number; max: number };
}

/**
 * Parses TREC qrels (`qid iter docno rel` per line; `rel` an integer, negative allowed). Same
 * whitespace, CRLF, blank-line and `#` comment rules as parseRun; the iter column is ignored.
 */
export function parseQrels(text: string, file = '<qrels>', options: ParseQrelsOptions = {}): Qrels {
  const builder = new QrelsBuilder(file, options);
  splitLines(text, builder, { file });
  return builder.finish();
}

/** Streaming parseQrels: same result and errors, from chunks of text or UTF-8 bytes. */
export async function parseQrelsStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  options: ParseQrelsOptions = {},
): Promise<Qrels> {
  const builder = new QrelsBuilder(file, options);
  await splitLinesAsync(input, builder, { file });
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
