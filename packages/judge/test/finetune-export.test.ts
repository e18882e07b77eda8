import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkBinaryTemplate,
  formatFinetuneJsonl,
  loadJudgeTemplates,
  selectFinetunePairs,
  type FinetunePair,
} from '../src/index.js';

const templates = loadJudgeTemplates(fileURLToPath(new URL('../../../judges', import.meta.url)));
const binary = templates.get('binary-filter')!;

const SYSTEM =
  'You decide quickly and consistently whether a passage is relevant to a search query. Answer only with the JSON object requested.';
const QUESTION =
  'Is any part of the passage useful for answering the query? Answer with JSON only:\n' +
  '{"relevant": 1} if it is, {"relevant": 0} if it is not.';

describe('formatFinetuneJsonl', () => {
  it("renders binary-filter's prompts and answers yes at or above the cut", () => {
    const pairs: FinetunePair[] = [
      { topic: '1', docno: 'a', grade: 2, values: { query: 'q', description: 'd', passage: 'P' } },
      { topic: '1', docno: 'b', grade: 1, values: { query: 'q', passage: 'Q' } },
    ];
    const lines = formatFinetuneJsonl(binary, pairs, { binaryAt: 2 })
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      {
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Query: q\nDetails: d\n\nPassage:\nP\n\n${QUESTION}` },
          { role: 'assistant', content: '{"relevant":1}' },
        ],
      },
      {
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Query: q\n\nPassage:\nQ\n\n${QUESTION}` },
          { role: 'assistant', content: '{"relevant":0}' },
        ],
      },
    ]);
  });

  it('refuses a judge with more than two grades', () => {
    expect(() => checkBinaryTemplate(templates.get('graded-0-3')!)).toThrow(
      'judge graded-0-3 grades 0..3; fine-tuning examples need a yes/no judge (two grades)',
    );
    expect(() => checkBinaryTemplate(binary)).not.toThrow();
  });
});

describe('selectFinetunePairs', () => {
  // Two relevant pairs (grade 1) among eight.
  const pairs: FinetunePair[] = Array.from({ length: 8 }, (_, i) => ({
    topic: 't',
    docno: `d${i}`,
    grade: i === 2 || i === 5 ? 1 : 0,
    values: {},
  }));
  const docnos = (list: FinetunePair[]) => list.map((p) => p.docno);

  it('keeps every pair by default', () => {
    expect(selectFinetunePairs(pairs, { binaryAt: 1 })).toEqual(pairs);
  });

  it('balance keeps both relevant pairs and two of the six others, in order', () => {
    const kept = selectFinetunePairs(pairs, { binaryAt: 1, balance: true, seed: 3 });
    expect(kept).toHaveLength(4);
    expect(docnos(kept)).toEqual(expect.arrayContaining(['d2', 'd5']));
    expect(kept.filter((p) => p.grade === 0)).toHaveLength(2);
    const positions = kept.map((p) => pairs.indexOf(p));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The same seed draws the same pairs.
    expect(selectFinetunePairs(pairs, { binaryAt: 1, balance: true, seed: 3 })).toEqual(kept);
  });

  it('sample keeps that many distinct pairs in order; more than there are keeps all', () => {
    const kept = selectFinetunePairs(pairs, { binaryAt: 1, sample: 3, seed: 9 });
    expect(new Set(docnos(kept)).size).toBe(3);
    const positions = kept.map((p) => pairs.indexOf(p));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(selectFinetunePairs(pairs, { binaryAt: 1, sample: 20 })).toEqual(pairs);
  });
});
