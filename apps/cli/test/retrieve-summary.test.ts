import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines } from './cli-fixtures.js';

describeOnEngines(
  'assay retrieve: topics without results, --strict, --budget with prices.json',
  {
    prefix: 'assay-retrieve-summary-',
    files: {
      'docs.jsonl': ALPHA_BETA_GAMMA_DOCS,
      // Topic 2 has no term of the collection; topic 3 only stopwords.
      'topics.tsv': '1\tbeta\n2\tzeppelin\n3\tthe of\n',
    },
  },
  (ws) => {
    it('bm25 counts the topics with results and names the others, and why', async () => {
      const run = ws.retrieve(['--method', 'bm25']);
      const plain = await run('bm25.run');
      expect(plain.code).toBe(0);
      expect(plain.stderr).toMatch(
        /wrote .*bm25\.run: 2 entries; results for 1 of 3 topics \(bm25,/,
      );
      expect(plain.stderr).toContain(
        '  no results for 2 topics: 2 (no term of the query occurs in the collection), ' +
          '3 (the query has no term after analysis (empty, or stopwords only))\n',
      );
      expect(ws.runWithoutTrace('bm25.run')).toContain('# topics without results: 2 3\n');
      const strict = await run('strict.run', '--strict');
      expect(strict.code).toBe(4);
      // Two runs, the first creating the database: slow on a busy machine.
    }, 120_000);

    it("--budget prices the models from the data directory's prices.json", async () => {
      const server = await ws.double.start(() => ({ reply: 'beta gamma' }));
      const run = ws.retrieve(['--method', 'query2doc', '--model', 'house-model', '--k', '2']);
      const unpriced = await run('unpriced.run', '--budget', '1');
      expect(unpriced.code).toBe(1);
      expect(unpriced.stderr).toMatch(
        /--budget needs the price of house-model: add it to .*prices\.json/,
      );
      expect(server.requests).toHaveLength(0);
      mkdirSync(ws.path('data'), { recursive: true });
      writeFileSync(
        ws.path('data/prices.json'),
        JSON.stringify({ 'house-model': { input: 1, output: 2 } }),
      );
      const priced = await run('priced.run', '--budget', '1');
      expect(priced.stderr).not.toContain('needs the price');
      // 100 prompt and 10 completion tokens a call at $1 and $2 per million.
      expect(priced.stderr).toContain('calls sent: 3, 330 tokens, $0.0004;');
      expect(ws.runWithoutTrace('priced.run')).toContain('# budget-usd: 1\n');
    }, 120_000);
  },
);
