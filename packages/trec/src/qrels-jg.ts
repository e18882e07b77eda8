import { quote } from './errors.js';
import { splitLines } from './lines.js';
import { type JudgedDocs, QrelsLineReader } from './qrels-lines.js';

/**
 * Qrels with judgment groups (trec_eval's `-R qrels_jg`): topic id → judgment group (the
 * qrels "iter" column, one group per assessor or user) → docno → integer grade.
 */
export type QrelsJg = Map<string, Map<string, Map<string, number>>>;

/** Builds QrelsJg from `qid group docno rel` lines. */
class QrelsJgBuilder extends QrelsLineReader {
  private readonly qrels: QrelsJg = new Map();
  private readonly groups = new Map<string, Map<string, JudgedDocs>>();
  protected readonly readsSecond = true;

  constructor(file: string) {
    super(file, 'qid group docno rel');
  }

  protected judged(qid: string, group: string): JudgedDocs {
    let byGroup = this.groups.get(qid);
    if (byGroup === undefined) {
      byGroup = new Map();
      this.groups.set(qid, byGroup);
      this.qrels.set(qid, new Map());
    }
    let judged = byGroup.get(group);
    if (judged === undefined) {
      judged = { grades: new Map(), lines: [] };
      byGroup.set(group, judged);
      this.qrels.get(qid)!.set(group, judged.grades);
    }
    return judged;
  }

  protected where(qid: string, group: string): string {
    return `topic ${quote(qid)} group ${quote(group)}`;
  }

  finish(): QrelsJg {
    this.checkNotEmpty();
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
  splitLines(text, builder, { file });
  return builder.finish();
}
