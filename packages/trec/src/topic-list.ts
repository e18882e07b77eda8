import { TrecFormatError, quote } from './errors.js';
import { idProblem } from './storage-limits.js';
import type { Topic } from './types.js';

/** Keys that may hold a JSONL topic's id, in order of preference. */
export const TOPIC_ID_KEYS = ['id', 'qid', 'query_id', 'topic_id'] as const;
/** Keys (JSONL) or tags (TREC) that may hold a topic's query text, in order of preference. */
export const TOPIC_TEXT_KEYS = ['text', 'query', 'title', 'question'] as const;

/** Collects topics and rejects repeated ids. */
export class TopicList {
  readonly topics: Topic[] = [];
  /** The line each topic starts on, by position (as `topics`). */
  readonly lines: number[] = [];
  private readonly file: string;
  private readonly lineOf = new Map<string, number>();

  constructor(file: string) {
    this.file = file;
  }

  add(topic: Topic, lineNo: number): void {
    const tooLong = idProblem('topic id', topic.id);
    if (tooLong !== undefined) throw new TrecFormatError(this.file, lineNo, tooLong);
    const earlier = this.lineOf.get(topic.id);
    if (earlier !== undefined) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `duplicate topic id ${quote(topic.id)} (first at line ${earlier})`,
      );
    }
    this.lineOf.set(topic.id, lineNo);
    this.topics.push(topic);
    this.lines.push(lineNo);
  }

  finish(): Topic[] {
    if (this.topics.length === 0) throw new TrecFormatError(this.file, 0, 'no topics');
    return this.topics;
  }
}
