// Qrels parsed straight from bytes into compact per-topic columns (docno bytes, grades and
// line numbers in typed arrays), for evaluation at TREC scale. It accepts and rejects
// exactly what parseQrels does, with the same `file:line: reason` errors.
import { ByteLineParser, copy, isIntegerBytes, text } from './byte-lines.js';
import { TrecFormatError, quote } from './errors.js';
import {
  TopicColumnsBuilder,
  docnoAt,
  earliestRepeatedDocno,
  type TopicColumns,
} from './run-columns.js';

/** The judgments of one topic as columns, in file order. */
export interface QrelsTopicColumns {
  length: number;
  /** UTF-8 bytes of every docno, back to back. */
  docBytes: Uint8Array;
  /** End offset in docBytes of judgment i's docno (it starts at the previous one's end). */
  docEnds: Uint32Array;
  /** Grade of each judgment (negative: pooled, not judged). */
  grades: Float64Array;
  /** 1-based line of the first judgment. */
  firstLine: number;
  /** Line of each judgment; absent when they sit on consecutive lines. */
  lines?: Int32Array;
}

/** Qrels held as columns: topic id → its judgments, topics in first-seen order. */
export type QrelsColumns = Map<string, QrelsTopicColumns>;

/** The same storage as a run topic's, with grades in place of scores. */
function asRunTopic(topic: QrelsTopicColumns): TopicColumns {
  const { grades, ...rest } = topic;
  return { ...rest, scores: grades };
}

/** Parses `qid iter docno rel` lines from byte chunks (`push`, then `end`) into columns. */
export class QrelsColumnsParser extends ByteLineParser {
  private readonly builders = new Map<string, TopicColumnsBuilder>();
  private current: TopicColumnsBuilder | undefined;
  private lastQid: Uint8Array = new Uint8Array(0);
  private count = 0;

  /** Parses the last line when the input did not end with `\n`, and returns the qrels. */
  end(): QrelsColumns {
    this.finishInput();
    if (this.count === 0) throw new TrecFormatError(this.file, 0, 'no qrels lines');
    const duplicate = this.earlierDuplicate();
    if (duplicate) throw duplicate;
    const qrels: QrelsColumns = new Map();
    for (const [qid, builder] of this.builders) {
      const { scores, ...rest } = builder.finish();
      qrels.set(qid, { ...rest, grades: scores });
    }
    return qrels;
  }

  protected override laterError(error: unknown): unknown {
    return this.earlierDuplicate() ?? error;
  }

  protected entry(buf: Uint8Array, count: number): void {
    const b = this.bounds;
    if (count !== 4) this.fail(`expected 4 fields (qid iter docno rel), found ${count}`);
    const rel = integerOf(buf, b[6]!, b[7]!);
    if (Number.isNaN(rel))
      this.fail(`relevance ${quote(text(buf, b[6]!, b[7]!))} is not an integer`);
    // Qrels are grouped by topic: compare the qid's bytes with the last one's.
    const qidStart = b[0]!;
    const qidEnd = b[1]!;
    const last = this.lastQid;
    let same = last.length === qidEnd - qidStart;
    for (let k = 0; same && k < last.length; k++) same = buf[qidStart + k] === last[k];
    if (!same || this.current === undefined) {
      this.lastQid = copy(buf, qidStart, qidEnd);
      const qid = text(buf, qidStart, qidEnd);
      let builder = this.builders.get(qid);
      if (builder === undefined) {
        const previous = this.current;
        builder = new TopicColumnsBuilder(previous?.length ?? 0, previous?.used ?? 0);
        this.builders.set(qid, builder);
      }
      this.current = builder;
    }
    this.current.add(buf, b[4]!, b[5]!, rel, this.lineNo);
    this.count++;
  }

  /** The error for the earliest line judging a docno twice for a topic, if any. */
  private earlierDuplicate(): TrecFormatError | undefined {
    const found = earliestRepeatedDocno(this.builders);
    if (found === undefined) return undefined;
    return new TrecFormatError(
      this.file,
      found.line,
      `duplicate judgment for topic ${quote(found.qid)} docno ${quote(found.docno)} (first at line ${found.first})`,
    );
  }
}

/** An optional sign then decimal digits as a number (NaN otherwise), as parseQrels reads rel. */
function integerOf(buf: Uint8Array, start: number, end: number): number {
  if (!isIntegerBytes(buf, start, end)) return NaN;
  let i = start;
  const negative = buf[i] === 45;
  if (negative || buf[i] === 43) i++;
  let value = 0;
  for (; i < end; i++) value = value * 10 + (buf[i]! - 48);
  return negative ? -value : value;
}

/** Parses whole qrels held in memory (a string or UTF-8 bytes) into columns. */
export function parseQrelsColumns(input: string | Uint8Array, file = '<qrels>'): QrelsColumns {
  const parser = new QrelsColumnsParser(file);
  parser.push(typeof input === 'string' ? new TextEncoder().encode(input) : input);
  return parser.end();
}

/** Judgment i's docno as a string. */
export function judgedDocnoAt(topic: QrelsTopicColumns, i: number): string {
  return docnoAt(asRunTopic(topic), i);
}
