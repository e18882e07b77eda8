// Three small runs over two topics with score ties, shared by the pooling tests.
//
// trec_eval rankings (score descending, ties by docno descending; the rank column is ignored):
//   topic 1  A: d1 d3 d2 d4    (d2, d3 tie at 2.0 → d3 first)
//            B: d5 d1 d2 d6    (d1, d5 tie at 5 → d5 first, although the file ranks d1 first)
//            C: d9 d3 d10 d7   (three-way tie at 1.0: "d9" > "d3" > "d10" in strcmp order)
//   topic 2  A: e1 e2
//            B: e3 e2          (tie at 0.9 → e3 first)
//            C: e4
import { parseRun } from './trec-text.js';

export const runA = parseRun(`
1 Q0 d1 1 3.0 A
1 Q0 d2 2 2.0 A
1 Q0 d3 3 2.0 A
1 Q0 d4 4 1.0 A
2 Q0 e1 1 1.0 A
2 Q0 e2 2 0.5 A
`);

export const runB = parseRun(`
1 Q0 d1 1 5 B
1 Q0 d5 2 5 B
1 Q0 d2 3 4 B
1 Q0 d6 4 1 B
2 Q0 e2 1 0.9 B
2 Q0 e3 2 0.9 B
`);

export const runC = parseRun(`
1 Q0 d10 1 1.0 C
1 Q0 d3 2 1.0 C
1 Q0 d9 3 1.0 C
1 Q0 d7 4 0.5 C
2 Q0 e4 1 2.0 C
`);

export const runs = [runA, runB, runC];
