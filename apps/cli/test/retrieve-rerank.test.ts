import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

describe('assay retrieve --reranker: arguments', () => {
  it.each([
    [['--method', 'rerank'], 'rerank needs --reranker (cross-encoder or rankgpt)'],
    [
      ['--method', 'rerank', '--reranker', 'mono'],
      "--reranker needs one of cross-encoder, rankgpt, not 'mono'",
    ],
    [
      ['--method', 'rerank', '--reranker', 'cross-encoder'],
      'the cross-encoder reranker needs its model (--reranker-model)',
    ],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt'],
      'rerank with the rankgpt reranker needs a chat model (--model)',
    ],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--reranker-model', 'x'],
      '--reranker-model applies to the cross-encoder; rankgpt uses the chat model (--model, or a step model for rankgpt)',
    ],
    [
      [
        '--method',
        'rerank',
        '--reranker',
        'cross-encoder',
        '--reranker-model',
        'x',
        '--rankgpt-window',
        '5',
      ],
      '--rankgpt-window applies to --reranker rankgpt',
    ],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--rankgpt-window', '5'],
      '--rankgpt-step (10) must not exceed --rankgpt-window (5)',
    ],
    [
      ['--method', 'amd', '--model', 'm', '--rerank-depth', '5'],
      '--rerank-depth applies to gr-* and rerank only, not amd',
    ],
    [
      ['--method', 'gr-qr', '--model', 'm', '--rerank-depth', '5'],
      '--rerank-depth needs --reranker',
    ],
    [
      ['--method', 'bm25', '--reranker', 'rankgpt'],
      '--reranker applies to grill, gr-* and rerank only, not bm25',
    ],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--rerank-depth', '0'],
      "--rerank-depth needs a whole number from 1 to 100000, not '0'",
    ],
  ])('%j', async (extra, message) => {
    const result = await retrieveArgumentsOnly(extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it('a reranker reads the documents: --index is refused', async () => {
    const result = await retrieveArgumentsOnly(
      ['--method', 'rerank', '--reranker', 'cross-encoder', '--reranker-model', 'x'],
      'index',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--method rerank reads the documents' text: give --docs FILE");
  });
});

// Generous timeouts: the first command creates the embedded database.
describeOnEngines(
  'assay retrieve rerank',
  {
    prefix: 'assay-rerank-cli-',
    files: { 'docs.jsonl': ALPHA_BETA_GAMMA_DOCS, 'topics.tsv': '1\tbeta\n' },
    timeout: 120_000,
  },
  (ws) => {
    const retrieve = ws.retrieve([]);
    const rankGpt = ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm'];
    const crossEncoder = [
      '--method',
      'rerank',
      '--reranker',
      'cross-encoder',
      '--reranker-model',
      'minilm',
    ];

    it('cross-encoder: reorders BM25 by the endpoint scores; a rerun sends nothing', async () => {
      const scores: Record<string, number> = { 'alpha beta': 0.8, beta: 0.3 };
      const server = await ws.double.start((body) => ({
        json: {
          results: (body.documents as string[]).map((d, index) => ({
            index,
            relevance_score: scores[d],
          })),
        },
      }));
      const first = await retrieve('ce.run', ...crossEncoder);
      expect(first.code).toBe(0);
      // BM25 "beta": d2 (dl 1) above d1 (dl 2); d3 does not match.
      expect(server.requests.map((r) => [r.path, r.body.documents])).toEqual([
        ['/v1/rerank', ['beta', 'alpha beta']],
      ]);
      const run = readFileSync(ws.path('ce.run'), 'utf8');
      expect(run).toContain('# reranker: cross-encoder:minilm\n');
      expect(run).toContain('# rerank.rerank-depth: 100\n');
      expect(ws.runEntries('ce.run').map((l) => l.split(/\s+/).slice(2, 5).join(' '))).toEqual([
        'd1 1 0.8',
        'd2 2 0.3',
      ]);
      await retrieve('ce-again.run', ...crossEncoder);
      expect(server.requests).toHaveLength(1);
    });

    it('rankgpt: one window with --model; settings in the header', async () => {
      const server = await ws.double.start(() => ({ reply: '[2] > [1]' }));
      const result = await retrieve('gpt.run', ...rankGpt, '--rankgpt-words', '50');
      expect(result.stderr + result.code).not.toMatch(/[1-9]$/);
      expect(server.requests).toHaveLength(1);
      const run = readFileSync(ws.path('gpt.run'), 'utf8');
      expect(run).toContain('# reranker: rankgpt:m\n');
      expect(run).toContain('# rerank.rankgpt-words: 50\n');
      expect(run).toContain('# rerank.rankgpt-window: 20\n');
      expect(ws.runEntries('gpt.run').map((l) => l.split(/\s+/)[2])).toEqual(['d1', 'd2']);
      const trace = readFileSync(ws.path('gpt.run.trace.jsonl'), 'utf8');
      expect(JSON.parse(trace.trim())).toMatchObject({
        topic: '1',
        method: 'rankgpt',
        step: 'permutation',
        text: '1-2: [2] > [1]',
      });
    });

    it('--dry-run counts the RankGPT windows of --rerank-depth and sends nothing', async () => {
      const server = await ws.double.start(() => ({ status: 500 }));
      const rankgpt = await retrieve('dry.run', ...rankGpt, '--dry-run');
      // Depth 100, window 20, step 10: windows start at 80, 70, …, 0.
      expect(rankgpt.stdout).toContain('chat calls: at most 9 ');
      const cross = await retrieve('dry.run', ...crossEncoder, '--dry-run');
      expect(cross.stdout).toContain('rerank requests (minilm) are not counted or priced.');
      expect(server.requests).toHaveLength(0);
    });

    it('--budget runs an embedding method with a priced embeddings model', async () => {
      const vectors: Record<string, number[]> = {
        'alpha beta': [1, 0],
        beta: [0, 1],
        gamma: [1, 1],
      };
      await ws.double.start((body) => ({
        json: {
          data: (body.input as string[]).map((t, index) => ({ index, embedding: vectors[t] })),
          usage: { prompt_tokens: 10 },
        },
      }));
      const result = await retrieve(
        'dense.run',
        '--method',
        'dense',
        '--embedding-model',
        'text-embedding-3-small',
        '--budget',
        '1',
      );
      expect(result.stderr).not.toContain('does not know');
      expect(result.stderr + result.code).not.toMatch(/[1-9]$/);
      expect(readFileSync(ws.path('dense.run'), 'utf8')).toContain('# budget-usd: 1\n');
    });
  },
);
