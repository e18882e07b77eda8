import { TrecFormatError, quote } from './errors.js';
import { type LineHandler, parseDecimal, scanFields, splitLines } from './lines.js';

/**
 * One line of a preference file: within judgment sub-group `jsg` of judgment group `jg`,
 * `docno` has relevance level `rel`. Documents of one sub-group are preferred to those of
 * the same sub-group with a lower level; level 0 means non-relevant.
 */
export interface PrefJudgment {
  /** Judgment group: one user's (or assessor's) consistent set of preferences. */
  jg: string;
  /** Judgment sub-group: the documents these levels rank against each other. */
  jsg: string;
  docno: string;
  /** Relevance level; only its order within the sub-group matters, except 0 (non-relevant). */
  rel: number;
}

/** Preference judgments per topic id, lines in file order. */
export type Prefs = Map<string, PrefJudgment[]>;

/** Builds Prefs from `qid jg jsg docno rel` lines, or from qrels lines when `fromQrels`. */
class PrefsBuilder implements LineHandler {
  private readonly file: string;
  private readonly fromQrels: boolean;
  private readonly bounds = new Int32Array(10);
  private readonly prefs: Prefs = new Map();
  private lines = 0;

  constructor(file: string, fromQrels: boolean) {
    this.file = file;
    this.fromQrels = fromQrels;
  }

  line(text: string, start: number, end: number, lineNo: number, separator: number): void {
    const b = this.bounds;
    const want = this.fromQrels ? 4 : 5;
    const count = scanFields(text, start, end, b, want, separator);
    if (count === 0) return;
    if (count !== want) {
      const layout = this.fromQrels ? 'qid iter docno rel' : 'qid jg jsg docno rel';
      throw new TrecFormatError(
        this.file,
        lineNo,
        `expected ${want} fields (${layout}), found ${count}`,
      );
    }
    const relField = text.slice(b[2 * want - 2], b[2 * want - 1]);
    const rel = parseDecimal(relField);
    if (Number.isNaN(rel)) {
      throw new TrecFormatError(this.file, lineNo, `relevance ${quote(relField)} is not a number`);
    }
    const qid = text.slice(b[0], b[1]);
    const jg = text.slice(b[2], b[3]);
    const judgment: PrefJudgment = this.fromQrels
      ? { jg, jsg: '0', docno: text.slice(b[4], b[5]), rel }
      : { jg, jsg: text.slice(b[4], b[5]), docno: text.slice(b[6], b[7]), rel };
    let list = this.prefs.get(qid);
    if (list === undefined) this.prefs.set(qid, (list = []));
    list.push(judgment);
    this.lines++;
  }

  finish(): Prefs {
    if (this.lines === 0) {
      throw new TrecFormatError(this.file, 0, this.fromQrels ? 'no qrels lines' : 'no prefs lines');
    }
    return this.prefs;
  }
}

/**
 * Parses a preference file (`qid jg jsg docno rel` per line), the input of trec_eval's
 * `-R prefs`. `rel` is a real number. Same whitespace, CRLF, blank-line and `#` comment
 * rules as parseQrels. Consistency between lines (a document at two levels of one
 * sub-group, contradicting preferences within a group) is checked when preferences are
 * evaluated, as trec_eval does.
 */
export function parsePrefs(text: string, file = '<prefs>'): Prefs {
  const builder = new PrefsBuilder(file, false);
  splitLines(text, builder, { file });
  return builder.finish();
}

/**
 * Parses a qrels file as preferences (trec_eval's `-R qrels_prefs`): each `qid iter docno
 * rel` line becomes a preference line of judgment group `iter` and the single sub-group
 * `0`, so every document is preferred to those with a lower grade. Grades may be reals.
 */
export function parseQrelsPrefs(text: string, file = '<qrels>'): Prefs {
  const builder = new PrefsBuilder(file, true);
  splitLines(text, builder, { file });
  return builder.finish();
}
