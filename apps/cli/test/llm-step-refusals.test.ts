// What every LLM step of the command line refuses before it sends anything, in the words
// the API uses too (the platform's): a budget for a model without a price, and no model.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeOnEngines } from './cli-fixtures.js';
import { assay } from './run-cli.js';

const RESPONSES = [
  { topic: 'q1', system: 'a', answer: 'An answer.' },
  { topic: 'q1', system: 'b', answer: 'Another answer.' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

describeOnEngines(
  'LLM step refusals',
  { prefix: 'assay-llm-step-refusals-', files: { 'responses.jsonl': `${RESPONSES}\n` } },
  (ws) => {
    it('refuses --budget for a model without a price, naming the price flags and prices.json', async () => {
      const r = await assay(
        ws.env,
        'support',
        'assign',
        '--collection',
        'rag',
        '--response-set',
        'answers',
        '--model',
        'house-model',
        '--budget',
        '1',
        '--base-url',
        'http://127.0.0.1:9/v1',
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `--budget needs the price of house-model: give --price-in and --price-out (USD per million tokens), or add it to ${join(ws.dir, 'data', 'prices.json')} ({"house-model": {"input": USD, "output": USD}} per million tokens)`,
      );
      // With its price on the command line the same budget is taken (and then the response
      // set is looked up: there is none).
      const priced = await assay(
        ws.env,
        'support',
        'assign',
        '--collection',
        'rag',
        '--response-set',
        'answers',
        '--model',
        'house-model',
        '--budget',
        '1',
        '--price-in',
        '1',
        '--price-out',
        '2',
        '--base-url',
        'http://127.0.0.1:9/v1',
      );
      expect(priced.stderr).not.toContain('needs the price');
      expect(priced.code).toBe(3);
    });

    it('refuses to score answers without a model, as every step does', async () => {
      const r = await assay(
        ws.env,
        'answers',
        'score',
        '--judge',
        'answer-quality',
        '--responses',
        ws.path('responses.jsonl'),
        '--out',
        ws.path('scores.jsonl'),
        '--base-url',
        'http://127.0.0.1:9/v1',
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "no model: give --model, set ASSAY_JUDGE_MODEL, or name one in the judge's front matter (model: { name })",
      );
    });
  },
);
