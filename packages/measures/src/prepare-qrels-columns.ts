// Qrels held as columns (QrelsColumnsParser from @assay/trec) prepared for evaluation.
import { hashDocno, type QrelsColumns } from '@assay/trec';
import { compareIds, type PreparedQrels } from './evaluate.js';
import { rememberJudgmentIndex, type JudgmentIndex } from './rank-columns.js';
import { summarizeGrades, type TopicJudgments } from './ranking.js';

const decoder = new TextDecoder('utf-8');

/**
 * Prepares qrels held as columns (QrelsColumnsParser from @assay/trec) for evaluation, like
 * prepareQrels: the byte index is built straight from the columns, and the docno → grade
 * map of a topic only when something asks for it (ranking runs held as entries).
 */
export function prepareQrelsColumns(qrels: QrelsColumns): PreparedQrels {
  const topics = [...qrels.keys()].sort(compareIds);
  const judgments = new Map<string, TopicJudgments>();
  for (const qid of topics) {
    const topic = qrels.get(qid)!;
    const { levels, numLevels } = summarizeGrades(topic.grades.subarray(0, topic.length));
    let grades: Map<string, number> | undefined;
    const topicJudgments: TopicJudgments = {
      levels,
      numLevels,
      get grades() {
        if (grades === undefined) {
          grades = new Map();
          for (let i = 0; i < topic.length; i++) {
            const start = i === 0 ? 0 : topic.docEnds[i - 1]!;
            grades.set(
              decoder.decode(topic.docBytes.subarray(start, topic.docEnds[i])),
              topic.grades[i]!,
            );
          }
        }
        return grades;
      },
    };
    rememberJudgmentIndex(
      topicJudgments,
      indexColumns(topic.docBytes, topic.docEnds, topic.grades, topic.length),
    );
    judgments.set(qid, topicJudgments);
  }
  return { format: 'qrels', topics, judgments };
}

/** A judgment index over docnos already held as bytes. */
function indexColumns(
  bytes: Uint8Array,
  ends: Uint32Array,
  grades: Float64Array,
  n: number,
): JudgmentIndex {
  let size = 16;
  while (size < n * 2) size *= 2;
  const table = new Int32Array(size);
  const mask = size - 1;
  const hashes = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const h = hashDocno(bytes, k === 0 ? 0 : ends[k - 1]!, ends[k]!);
    hashes[k] = h;
    let slot = h & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = k + 1;
  }
  return { bytes, ends, hashes, grades, table };
}
