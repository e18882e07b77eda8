import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE: scripted answers and injected faults.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

const QUESTIONS = JSON.stringify({
  clarification: 'Which beta?',
  assumption_probing: 'Is it Greek?',
  implication_probing: 'What follows?',
});

/** AMD's answers by prompt; topic "broken" gets prose where JSON is expected. */
function amdAnswer(user: string): Behaviour {
  if (user.startsWith('A user searched for:\nbroken')) return { reply: 'no JSON here' };
  if (user.startsWith('A user searched for:')) return { reply: QUESTIONS };
  if (user.includes('clarification dimension')) return { reply: 'alpha' };
  if (user.includes('assumption probing dimension')) return { reply: 'beta' };
  if (user.includes('implication probing dimension')) return { reply: 'gamma' };
  if (user.startsWith('The user searched for:'))
    return {
      reply: JSON.stringify({
        clarification: 'alpha',
        assumption_probing: 'beta',
        implication_probing: 'gamma',
      }),
    };
  return { status: 400, message: 'unexpected prompt' };
}

describe('assay retrieve with models: arguments', () => {
  it('needs the models a method uses and checks --aggregation', async () => {
    expect((await retrieveArgumentsOnly(['--method', 'bm25', '--model', 'm'])).stderr).toContain(
      '--model applies to methods with models',
    );
    expect(
      (await retrieveArgumentsOnly(['--method', 'amd', '--aggregation', 'mean'])).stderr,
    ).toContain("--aggregation needs one of sparse, dense, rrf, not 'mean'");
    expect(
      (await retrieveArgumentsOnly(['--method', 'query2doc', '--no-feedback'])).stderr,
    ).toContain('--no-feedback applies to amd only, not query2doc');
  });

  it('checks --dense-index and the HNSW parameters', async () => {
    expect(
      (await retrieveArgumentsOnly(['--method', 'bm25', '--dense-index', 'hnsw'])).stderr,
    ).toContain('--dense-index applies to dense and hybrid only, not bm25');
    expect(
      (await retrieveArgumentsOnly(['--method', 'dense', '--dense-index', 'faiss'])).stderr,
    ).toContain("--dense-index needs one of exact, hnsw, not 'faiss'");
    expect((await retrieveArgumentsOnly(['--method', 'dense', '--hnsw-m', '8'])).stderr).toContain(
      '--hnsw-m applies to --dense-index hnsw',
    );
    expect(
      (
        await retrieveArgumentsOnly([
          ...['--method', 'hybrid', '--dense-index', 'hnsw', '--hnsw-ef-search', '0'],
        ])
      ).stderr,
    ).toContain("--hnsw-ef-search needs a whole number from 1 to 10000, not '0'");
  });
});

describeOnEngines(
  'assay retrieve amd',
  {
    prefix: 'assay-methods-cli-',
    files: { 'docs.jsonl': ALPHA_BETA_GAMMA_DOCS, 'topics.tsv': '1\tbeta\n2\tbroken\n' },
  },
  (ws) => {
    const retrieve = ws.retrieve(['--method', 'amd', '--model', 'm']);

    it('--dry-run prints the estimate and sends nothing', async () => {
      const server = await ws.double.start(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('chat calls: at most 10 ');
      expect(result.stdout).toContain('nothing was sent.');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the run, the trace and the failed topic; a rerun sends zero requests', async () => {
      const server = await ws.double.start((body, n) =>
        n === 1
          ? { status: 429, retryAfter: '0' }
          : amdAnswer((body.messages as Array<{ content: string }>)[1]!.content),
      );
      const first = await retrieve('amd.run');
      expect(first.stderr).toContain(
        'topic 2 failed: amd-questions: unusable answer after 3 attempts: answer is not JSON',
      );
      expect(first.code).toBe(5);
      // 1 refused + 5 for topic 1 + 3 attempts for topic 2.
      expect(server.requests).toHaveLength(9);
      const run = readFileSync(ws.path('amd.run'), 'utf8');
      expect(run).toContain('# method: amd\n');
      expect(run).toContain('# amd.aggregation: sparse\n');
      expect(run).toContain('# failed topics: 2\n');
      const entries = ws.runEntries('amd.run');
      // BM25 (k1 0.9, b 0.4; N 3, avgdl 4/3) of beta×4 alpha gamma: idf(beta) = ln 1.6,
      // idf(alpha) = idf(gamma) = ln(8/3); tf parts 1.9/2.08 (d1, dl 2) and 1.9/1.81 (dl 1):
      // d1 = (4·0.470 + 0.981)·0.913 = 2.61, d2 = 4·0.470·1.050 = 1.97, d3 = 0.981·1.050 = 1.03.
      expect(entries.map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
        '1 Q0 d1',
        '1 Q0 d2',
        '1 Q0 d3',
      ]);
      const trace = ws.trace<{ topic: string; step: string; text: string }>('amd.run.trace.jsonl');
      expect(trace.find((t) => t.step === 'query')).toMatchObject({
        topic: '1',
        text: 'beta [SEP] beta [SEP] beta [SEP] alpha [SEP] beta [SEP] gamma',
      });
      expect(trace.at(-1)).toMatchObject({ topic: '2', step: 'failed' });

      const second = await retrieve('again.run');
      expect(server.requests).toHaveLength(9);
      expect(second.stderr).toContain('calls sent: 0');
      expect(ws.runWithoutTrace('again.run')).toBe(ws.runWithoutTrace('amd.run'));
    });

    it('hybrid: embeds the collection once; a rerun sends nothing', async () => {
      const vectors: Record<string, number[]> = {
        'alpha beta': [1, 0],
        beta: [0, 1],
        gamma: [1, 1],
        broken: [1, 0],
      };
      const server = await ws.double.start((body) => ({
        json: {
          data: (body.input as string[]).map((t, index) => ({ index, embedding: vectors[t] })),
        },
      }));
      const hybrid = ws.retrieve(['--method', 'hybrid', '--embedding-model', 'e']);
      const first = await hybrid('hybrid.run');
      expect(first.code).toBe(0);
      // The collection in one request; "beta" (topic 1) is d2's text, "broken" is new.
      expect(server.requests.map((r) => r.body.input)).toEqual([
        ['alpha beta', 'beta', 'gamma'],
        ['broken'],
      ]);
      const run = readFileSync(ws.path('hybrid.run'), 'utf8');
      expect(run).toContain('# embedding-model: e\n');
      // Topic 1 "beta": BM25 [d2, d1]; dense [0,1] → d2 (1), then d3 and d1 (1/√2 and 0):
      // d2 = 2/61, d1 = 1/62 + 1/63, d3 = 1/62.
      const topic1 = run
        .split('\n')
        .filter((l) => l.startsWith('1 '))
        .map((l) => l.split(/\s+/)[2]);
      expect(topic1).toEqual(['d2', 'd1', 'd3']);
      await hybrid('hybrid-again.run');
      expect(server.requests).toHaveLength(2);
    });
  },
);
