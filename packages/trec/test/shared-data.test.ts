// Checks against real TREC data from the shared data folder next to the repository. A clone
// without that folder skips these tests (each says which file it needs).
import { readFileSync } from 'node:fs';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import { describe, expect, it } from 'vitest';
import {
  formatQrels,
  formatRun,
  parseQrels,
  parseRun,
  parseTopics,
  readQrelsFile,
  readRunFile,
  readTopicsFile,
} from '../src/index.js';

const DATA = `${SHARED_DATA.replace(/\/$/, '')}/`;
const TREC_EVAL = `${DATA}trec_eval_tests/`;
const TOPICS = `${DATA}anserini_tools/topics/`;
const missing = (path: string): boolean => missingSharedFile(path);
const why = (path: string): string => `(skipped when ${path} is absent)`;

describe('trec_eval test collection', () => {
  const results = `${TREC_EVAL}results.test`;
  const qrels = `${TREC_EVAL}qrels.test`;

  it.skipIf(missing(results))(
    `results.test: 1500 lines over 3 topics ${why(results)}`,
    async () => {
      const run = await readRunFile(results);
      expect(run.name).toBe('STANDARD');
      expect([...run.topics.keys()]).toEqual(['301', '302', '303']);
      expect([...run.topics.values()].map((entries) => entries.length)).toEqual([500, 500, 500]);
      expect(run.topics.get('301')![0]).toEqual({
        docno: 'FR940202-2-00150',
        rank: 104,
        score: 2.129133,
      });
      const text = readFileSync(results, 'utf8');
      expect(parseRun(text, results)).toEqual(run);
      expect(parseRun(formatRun(run))).toEqual(run);
    },
  );

  it.skipIf(missing(qrels))(`qrels.test: 3681 judgments over 3 topics ${why(qrels)}`, async () => {
    const judged = await readQrelsFile(qrels);
    expect([...judged.keys()]).toEqual(['301', '302', '303']);
    expect([...judged.values()].map((docs) => docs.size)).toEqual([1708, 1061, 912]);
    const relevant = [...judged.values()].flatMap((docs) => [...docs.values()]);
    expect(relevant.filter((rel) => rel > 0)).toHaveLength(561);
    expect(parseQrels(formatQrels(judged))).toEqual(judged);
  });

  const withComments = `${TREC_EVAL}qrels.test.with-comments`;
  it.skipIf(missing(withComments))(
    `qrels.test.with-comments: # starts a comment only at the start of a line ${why(withComments)}`,
    async () => {
      const judged = await readQrelsFile(withComments);
      expect([...judged.values()].map((docs) => docs.size)).toEqual([1708, 1061, 912]);
      // The file's one change beyond its comment lines is a docno with a # inside it.
      expect(judged.get('301')!.get('CR#93E-1860')).toBe(0);
      expect(judged.get('301')!.has('CR93E-1860')).toBe(false);
    },
  );

  const ragRun = `${TREC_EVAL}results.comment.test`;
  const ragQrels = `${TREC_EVAL}qrels.comment.test`;
  it.skipIf(missing(ragRun) || missing(ragQrels))(
    `results/qrels.comment.test: docnos containing # ${why(ragRun)}`,
    async () => {
      const run = await readRunFile(ragRun);
      expect(run.topics.size).toBe(301);
      expect([...run.topics.values()].reduce((n, e) => n + e.length, 0)).toBe(30100);
      expect(run.topics.get('2024-224960')![0]!.docno).toBe(
        'msmarco_v2.1_doc_50_2286987788#13_3087841662',
      );
      const judged = await readQrelsFile(ragQrels);
      expect(judged.size).toBe(31);
      expect([...judged.values()].reduce((n, docs) => n + docs.size, 0)).toBe(5890);
    },
  );
});

describe('Anserini topic files', () => {
  const counts: [string, number][] = [
    ['topics.dl19-passage.txt', 43],
    ['topics.dl20.txt', 200],
    ['topics.dl21.txt', 477],
    ['topics.dl23.txt', 700],
    ['topics.rag25.test.jsonl', 105],
  ];
  for (const [name, count] of counts) {
    const path = `${TOPICS}${name}`;
    it.skipIf(missing(path))(`${name}: ${count} topics ${why(path)}`, async () => {
      const topics = await readTopicsFile(path);
      expect(topics).toHaveLength(count);
      for (const topic of topics) {
        expect(topic.id).toMatch(/^\d+$/);
        expect(topic.text.length).toBeGreaterThan(0);
        expect(topic.text).toBe(topic.text.trim()); // no CR left over from CRLF files
        expect(topic.fields).toBeUndefined();
      }
      expect(parseTopics(readFileSync(path, 'utf8'), path)).toEqual(topics);
    });
  }

  const dl19 = `${TOPICS}topics.dl19-passage.txt`;
  it.skipIf(missing(dl19))(`topics.dl19-passage.txt starts with topic 156493 ${why(dl19)}`, () => {
    expect(parseTopics(readFileSync(dl19, 'utf8'))[0]).toEqual({
      id: '156493',
      text: 'do goldfish grow',
    });
  });
});
