// Tiny TREC-text readers for the pooling tests: whitespace-separated fields, no validation.
import type { Qrels, Run } from '../src/types.js';

/** `qid Q0 docno rank score tag` lines → Run named after the first line's tag. */
export function parseRun(text: string): Run {
  const topics = new Map<string, { docno: string; rank: number; score: number }[]>();
  let name = '';
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const [qid, , docno, rank, score, tag] = f as [string, string, string, string, string, string];
    if (name === '') name = tag;
    let entries = topics.get(qid);
    if (entries === undefined) topics.set(qid, (entries = []));
    entries.push({ docno, rank: Number(rank), score: Number(score) });
  }
  return { name, topics };
}

/** `qid iter docno grade` lines → Qrels. */
export function parseQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    const [qid, , docno, grade] = f as [string, string, string, string];
    let docs = qrels.get(qid);
    if (docs === undefined) qrels.set(qid, (docs = new Map()));
    docs.set(docno, Number(grade));
  }
  return qrels;
}
