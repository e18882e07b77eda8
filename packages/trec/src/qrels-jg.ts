import { TrecFormatError, quote } from './errors.js';
import { type LineHandler, parseInteger, scanFields, splitLines } from './lines.js';

/**
 * Qrels with judgment groups (trec_eval's `-R qrels_jg`): topic id → judgment group (the
 * qrels "iter" column, one group per assessor or user) → docno → integer grade.
 */
export type QrelsJg = Map<string, Map<string, Map<string, number>>>;

/** Builds QrelsJg from `qid group docno rel` lines. */
class QrelsJgBuilder implements LineHandler {
  private readonly file: string;
  private readonly bounds = new Int32Array(8);
  private readonly qrels: QrelsJg = new Map();
  /** `group docno` → line number per topic, for duplicate detection. */
  private readonly seen = new Map<string, Map<string, Map<string, number>>>();
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
        `expected 4 fields (qid group docno rel), found ${count}`,
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
    const group = text.slice(b[2], b[3]);
    const docno = text.slice(b[4], b[5]);
    let groups = this.qrels.get(qid);
    let seenGroups = this.seen.get(qid);
    if (groups === undefined || seenGroups === undefined) {
      groups = new Map();
      seenGroups = new Map();
      this.qrels.set(qid, groups);
      this.seen.set(qid, seenGroups);
    }
    let judged = groups.get(group);
    let seen = seenGroups.get(group);
    if (judged === undefined || seen === undefined) {
      judged = new Map();
      seen = new Map();
      groups.set(group, judged);
      seenGroups.set(group, seen);
    }
    const earlier = seen.get(docno);
    if (earlier !== undefined) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `duplicate judgment for topic ${quote(qid)} group ${quote(group)} docno ${quote(docno)} (first at line ${earlier})`,
      );
    }
    seen.set(docno, lineNo);
    judged.set(docno, rel);
    this.lines++;
  }

  finish(): QrelsJg {
    if (this.lines === 0) throw new TrecFormatError(this.file, 0, 'no qrels lines');
    return this.qrels;
  }
}

/**
 * Parses qrels with judgment groups (`qid group docno rel` per line), the input of
 * trec_eval's `-R qrels_jg`: the second column names the judgment group instead of being
 * ignored. The same document may be judged once per group. Same whitespace, CRLF,
 * blank-line and `#` comment rules as parseQrels.
 */
export function parseQrelsJg(text: string, file = '<qrels>'): QrelsJg {
  const builder = new QrelsJgBuilder(file);
  splitLines(text, builder);
  return builder.finish();
}
