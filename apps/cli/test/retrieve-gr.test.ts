import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

describe('assay retrieve gr-*: arguments', () => {
  it('checks --first-stage-k and --rerank-depth', async () => {
    const bm25 = await retrieveArgumentsOnly(['--method', 'bm25', '--first-stage-k', '10']);
    expect(bm25.code).toBe(1);
    expect(bm25.stderr).toContain('--first-stage-k applies to gr-* only, not bm25');
    // A rerank depth means nothing without a reranker.
    const depth = await retrieveArgumentsOnly(['--method', 'gr-qd', '--rerank-depth', '10']);
    expect(depth.code).toBe(1);
    expect(depth.stderr).toContain('--rerank-depth needs --reranker');
    const zero = await retrieveArgumentsOnly(['--method', 'gr-qd', '--first-stage-k', '0']);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("--first-stage-k needs a whole number from 1 to 100000, not '0'");
    // AQD_A reranks against the answer: without a reranker it would be AQD.
    const noReranker = await retrieveArgumentsOnly(['--method', 'gr-aqd-a', '--model', 'm']);
    expect(noReranker.code).toBe(1);
    expect(noReranker.stderr).toContain(
      'gr-aqd-a reranks the interleaved list against the answer: give --reranker (cross-encoder or rankgpt); without a reranker it would be gr-aqd',
    );
    const noModel = await retrieveArgumentsOnly(['--method', 'gr-aqd-a', '--reranker', 'rankgpt']);
    expect(noModel.stderr).toContain('gr-aqd-a needs a chat model (--model)');
  });
});

describeOnEngines(
  'assay retrieve gr-qd',
  {
    prefix: 'assay-gr-cli-',
    files: {
      'docs.jsonl': ALPHA_BETA_GAMMA_DOCS,
      'topics.jsonl': '{"id":"1","text":"beta"}\n{"id":"2","text":"broken"}\n',
    },
  },
  (ws) => {
    const retrieve = ws.retrieve(['--method', 'gr-qd', '--model', 'm'], 'topics.jsonl');

    it('--dry-run counts one queries call per topic and sends nothing', async () => {
      const server = await ws.double.start(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('chat calls: at most 2 ');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the interleaved run and the trace; a topic without results is named, an error with --strict; a rerun sends nothing', async () => {
      const server = await ws.double.start((body) => {
        const user = (body.messages as Array<{ content: string }>)[1]!.content;
        return user.includes('User question: broken')
          ? { reply: 'not JSON' }
          : { reply: JSON.stringify({ queries: ['alpha', 'gamma', 'beta'] }) };
      });
      const first = await retrieve('gr.run', '--first-stage-k', '50');
      // Topic 2's queries stay unusable: its raw request "broken" is searched, and finds
      // nothing (no term of the collection). Not an error without --strict.
      expect(first.code).toBe(0);
      expect(first.stderr).toContain('3 entries; results for 1 of 2 topics (gr-qd)');
      expect(first.stderr).toContain('  no results for 1 topic: 2 (no document was found)\n');
      // One call for topic 1, three attempts for topic 2.
      expect(server.requests).toHaveLength(4);
      const run = readFileSync(ws.path('gr.run'), 'utf8');
      expect(run).toContain('# method: gr-qd\n');
      expect(run).toContain('# gr.first-stage-k: 50\n');
      expect(run).toContain('# gr.max-queries: 5\n');
      expect(run).toContain('# topics without results: 2\n');
      // No reranker: BM25 lists alpha [d1], gamma [d3], beta [d2 d1] (d2 is shorter);
      // round robin: d1, d3, d2.
      const entries = ws.runEntries('gr.run');
      expect(entries.map((l) => l.split(/\s+/).slice(0, 5).join(' '))).toEqual([
        '1 Q0 d1 1 3',
        '1 Q0 d3 2 2',
        '1 Q0 d2 3 1',
      ]);
      const trace = ws.trace<{ topic: string; step: string; text: string }>('gr.run.trace.jsonl');
      expect(trace.filter((t) => t.step === 'generated-query').map((t) => t.text)).toEqual([
        'alpha',
        'gamma',
        'beta',
      ]);
      expect(trace.at(-1)).toEqual({
        topic: '2',
        method: 'gr-qd',
        step: 'query-fallback',
        prompt: 'gr-queries',
        text: 'broken',
        reason: 'gr-queries: unusable answer after 3 attempts: answer is not JSON',
      });

      const second = await retrieve('again.run', '--first-stage-k', '50', '--strict');
      expect(server.requests).toHaveLength(4);
      expect(second.stderr).toContain('calls sent: 0');
      expect(second.stderr).toContain('  no results for 1 topic: 2 (no document was found)\n');
      expect(second.code).toBe(4);
      expect(ws.runWithoutTrace('again.run')).toBe(ws.runWithoutTrace('gr.run'));
    }, 300_000);
  },
);
