// The line rules shared by the qrels parsers (`-R qrels` and `-R qrels_jg`): four fields
// `qid second docno rel`, an integer grade, and one judgment per (topic, key, docno), where
// the key is '' for plain qrels and the judgment group for qrels_jg.
import { TrecFormatError, quote } from './errors.js';
import { type LineHandler, parseInteger, scanFields } from './lines.js';
import { gradeProblem, idProblem } from './storage-limits.js';

/** Judgments of one (topic, key): docno → grade, and the line of each in insertion order. */
export interface JudgedDocs {
  grades: Map<string, number>;
  lines: number[];
}

/**
 * Reads 4-field qrels lines and hands each judgment to `judged(qid, second)`'s map. A
 * repeated docno fails with the line of its first judgment (found from the insertion order,
 * so no second map per topic is kept).
 */
export abstract class QrelsLineReader implements LineHandler {
  private readonly file: string;
  private readonly fields: string;
  private readonly bounds = new Int32Array(8);
  private count = 0;
  private last: JudgedDocs | undefined;
  private lastQid = '';
  private lastSecond = '';
  private readonly storage: boolean;
  private readonly scale: { min: number; max: number } | undefined;

  /**
   * `fields` names the four columns in error messages, e.g. `qid iter docno rel`; with
   * `storage`, ids over 512 bytes and grades outside MIN_GRADE..MAX_GRADE are refused too, and
   * with `scale`, grades outside it.
   */
  constructor(file: string, fields: string, storage = false, scale?: { min: number; max: number }) {
    this.file = file;
    this.fields = fields;
    this.storage = storage;
    this.scale = scale;
  }

  private refuse(lineNo: number, problem: string | undefined): void {
    if (problem !== undefined) throw new TrecFormatError(this.file, lineNo, problem);
  }

  /** The judgments a line of this topic and second column goes to. */
  protected abstract judged(qid: string, second: string): JudgedDocs;

  /** Describes the (topic, second column) of a duplicate, e.g. `topic "1"`. */
  protected abstract where(qid: string, second: string): string;

  /** Whether the second column is read (qrels_jg) or ignored (qrels). */
  protected abstract readsSecond: boolean;

  line(text: string, start: number, end: number, lineNo: number, separator: number): void {
    const b = this.bounds;
    const count = scanFields(text, start, end, b, 4, separator);
    if (count === 0) return;
    if (count !== 4) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `expected 4 fields (${this.fields}), found ${count}`,
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
    if (this.storage) this.refuse(lineNo, gradeProblem(rel, text.slice(b[6], b[7])));
    const scale = this.scale;
    if (scale !== undefined && (rel < scale.min || rel > scale.max))
      this.refuse(lineNo, `grade ${rel} is outside the scale ${scale.min}..${scale.max}`);
    // Qrels are grouped by topic: reuse the last line's judgments while the qid (and the
    // judgment group, for qrels_jg) stay the same, without slicing them again.
    let judged = this.last;
    if (
      judged === undefined ||
      !sameText(text, b[0]!, b[1]!, this.lastQid) ||
      (this.readsSecond && !sameText(text, b[2]!, b[3]!, this.lastSecond))
    ) {
      this.lastQid = text.slice(b[0], b[1]);
      if (this.storage) this.refuse(lineNo, idProblem('topic id', this.lastQid));
      this.lastSecond = this.readsSecond ? text.slice(b[2], b[3]) : '';
      judged = this.judged(this.lastQid, this.lastSecond);
      this.last = judged;
    }
    const qid = this.lastQid;
    const second = this.lastSecond;
    const docno = text.slice(b[4], b[5]);
    if (this.storage) this.refuse(lineNo, idProblem('docno', docno));
    const size = judged.grades.size;
    judged.grades.set(docno, rel);
    if (judged.grades.size === size) {
      let k = 0;
      for (const key of judged.grades.keys()) {
        if (key === docno) break;
        k++;
      }
      throw new TrecFormatError(
        this.file,
        lineNo,
        `duplicate judgment for ${this.where(qid, second)} docno ${quote(docno)} (first at line ${judged.lines[k]})`,
      );
    }
    judged.lines.push(lineNo);
    this.count++;
  }

  /** Fails when no judgment line was read. */
  protected checkNotEmpty(): void {
    if (this.count === 0) throw new TrecFormatError(this.file, 0, 'no qrels lines');
  }
}

/** True when `text.slice(start, end)` equals `other` (compared in place). */
function sameText(text: string, start: number, end: number, other: string): boolean {
  if (end - start !== other.length) return false;
  for (let k = 0; k < other.length; k++) {
    if (text.charCodeAt(start + k) !== other.charCodeAt(k)) return false;
  }
  return true;
}
