import type { Qrels, Run, RunEntry } from '@assay/trec';

/** Builds qrels from `qid docno grade` triples written inline in a test. */
export function qrelsOf(lines: string): Qrels {
  const qrels: Qrels = new Map();
  for (const line of lines.trim().split('\n')) {
    const [qid, docno, grade] = line.trim().split(/\s+/);
    if (!qrels.has(qid!)) qrels.set(qid!, new Map());
    qrels.get(qid!)!.set(docno!, Number(grade));
  }
  return qrels;
}

/** Builds a run from `qid docno score` triples written inline in a test. */
export function runOf(lines: string, name = 'test'): Run {
  const topics = new Map<string, RunEntry[]>();
  for (const line of lines.trim().split('\n')) {
    const [qid, docno, score] = line.trim().split(/\s+/);
    if (!topics.has(qid!)) topics.set(qid!, []);
    const list = topics.get(qid!)!;
    list.push({ docno: docno!, rank: list.length + 1, score: Number(score) });
  }
  return { name, topics };
}
