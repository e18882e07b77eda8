// Small inline fixtures for the `assay judge` tests: three topics, twelve documents, and a
// pool of every (topic, document) pair that shares the topic's number.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Behaviour } from '@assay/test-support/openai-test-server';

/** Documents per topic; the pool has 3 × DOCS_PER_TOPIC items. */
export const DOCS_PER_TOPIC = 4;
/** Items in the pool. */
export const POOL_SIZE = 3 * DOCS_PER_TOPIC;

/** Writes topics.tsv, docs.jsonl and pool.txt into `dir` and returns their paths. */
export function writeJudgeFixtures(dir: string): { topics: string; docs: string; pool: string } {
  const topics = join(dir, 'topics.tsv');
  writeFileSync(
    topics,
    ['101\ttortoise lifespan', '102\tboiling point of water', '103\tfirst moon landing'].join(
      '\n',
    ) + '\n',
  );
  const docs = join(dir, 'docs.jsonl');
  const pool = join(dir, 'pool.txt');
  const docLines: string[] = [];
  const poolLines: string[] = [];
  for (let k = 0; k < POOL_SIZE; k++) {
    const topic = 101 + (k % 3);
    docLines.push(JSON.stringify({ id: `D${k}`, text: `Passage doc-${k} for topic ${topic}.` }));
    poolLines.push(`${topic}\tD${k}`);
  }
  // One document nobody pooled: it must not be judged.
  docLines.push(JSON.stringify({ id: 'D-unpooled', title: 'Other', text: 'Not in the pool.' }));
  writeFileSync(docs, docLines.join('\n') + '\n');
  writeFileSync(pool, poolLines.join('\n') + '\n');
  return { topics, docs, pool };
}

/**
 * The arguments of `assay judge` that grade `files` with graded-0-3 and gpt-4o-mini into the
 * qrels file `out` (a later `--model` overrides the model).
 */
export function judgeArgs(files: ReturnType<typeof writeJudgeFixtures>, out: string): string[] {
  return [
    ...['--judge', 'graded-0-3', '--model', 'gpt-4o-mini', '--topics', files.topics],
    ...['--docs', files.docs, '--pool', files.pool, '--out', out],
  ];
}

/** The document number a request is about. */
export function docNumber(body: Record<string, unknown>): number {
  const messages = body.messages as Array<{ content: string }>;
  return Number(/doc-(\d+)/.exec(messages[1]!.content)![1]);
}

/** A valid graded-0-3 answer: grade = document number mod 4. */
export function gradedAnswer(body: Record<string, unknown>, delayMs = 0): Behaviour {
  return {
    reply: JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: docNumber(body) % 4 }),
    ...(delayMs ? { delayMs } : {}),
  };
}

/** The qrels a complete run writes, in byte order of topic then docno. */
export function expectedQrels(): string {
  const lines: string[] = [];
  for (let k = 0; k < POOL_SIZE; k++) lines.push(`${101 + (k % 3)} 0 D${k} ${k % 4}`);
  return (
    lines
      .sort((a, b) => {
        const [ta, , da] = a.split(' ');
        const [tb, , db] = b.split(' ');
        return ta! < tb! ? -1 : ta! > tb! ? 1 : da! < db! ? -1 : da! > db! ? 1 : 0;
      })
      .join('\n') + '\n'
  );
}
