import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

/** GRILL's answers by prompt: the rewrite, the binary-filter judge (no to "pear kiwi"), gaps. */
function grillAnswer(body: Record<string, unknown>): Behaviour {
  const user = (body.messages as Array<{ content: string }>)[1]!.content;
  if (user.includes("The user's current request:"))
    return { reply: JSON.stringify({ query: 'apple' }) };
  if (user.startsWith('Query: '))
    return { reply: JSON.stringify({ relevant: user.includes('\npear kiwi\n') ? 0 : 1 }) };
  if (user.startsWith('The information need:'))
    return { reply: JSON.stringify({ gaps: [{ gap: 'citrus', queries: ['lime'] }] }) };
  return { status: 400, message: 'unexpected prompt' };
}

describe('assay retrieve --method grill: arguments', () => {
  it('takes the grill options for grill only and checks them', async () => {
    expect(
      (await retrieveArgumentsOnly(['--method', 'amd', '--model', 'm', '--rounds', '3'])).stderr,
    ).toContain('--rounds applies to grill only, not amd');
    expect((await retrieveArgumentsOnly(['--method', 'bm25', '--decompose'])).stderr).toContain(
      '--decompose applies to grill only',
    );
    expect(
      (await retrieveArgumentsOnly(['--method', 'grill', '--model', 'm', '--min-gain', 'x']))
        .stderr,
    ).toContain("--min-gain needs a whole number from 0 to 100000, not 'x'");
    expect(
      (await retrieveArgumentsOnly(['--method', 'grill', '--model', 'm', '--rerank-budget', '0']))
        .stderr,
    ).toContain("--rerank-budget needs a whole number from 1 to 100000, not '0'");
    const index = await retrieveArgumentsOnly(['--method', 'grill', '--model', 'm'], 'index');
    expect(index.stderr).toContain("--method grill reads the documents' text: give --docs FILE");
  });
});

describeOnEngines(
  'assay retrieve grill',
  {
    prefix: 'assay-grill-cli-',
    files: {
      'docs.jsonl': ['apple pear', 'pear plum', 'pear kiwi', 'plum fig', 'lime', 'lemon']
        .map((text, i) => `${JSON.stringify({ id: `d${i + 1}`, text })}\n`)
        .join(''),
      'topics.tsv': '1\tapple\n',
    },
  },
  (ws) => {
    const retrieve = ws.retrieve(['--method', 'grill', '--model', 'm']);

    it('--dry-run counts the rewrite, one judgment per document at most, the gap call', async () => {
      const server = await ws.double.start(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      // 1 rewrite + 6 documents (the collection bounds the judgments) + 1 gap analysis.
      expect(result.stdout).toContain('chat calls: at most 8 ');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the run, its settings and the trace; a rerun sends zero requests', async () => {
      const server = await ws.double.start((body) => grillAnswer(body));
      const first = await retrieve('grill.run', '--rounds', '10', '--min-gain', '1');
      expect(first.stderr).not.toContain('failed');
      expect(first.code).toBe(0);
      // "apple" → [d1]; d1 → [d1 d3 d2] without d3 (judged no) = [d1 d2]; round 2: d2 →
      // [d2 d4 d3 d1] without d3, d4 new; round 3: d4 → [d4 d2], nothing new (saturated);
      // "lime" → [d5]. RRF (k 60): d1 = 2/61 + 1/63 = .048660, d2 = 1/62 + 1/61 + 1/62 =
      // .048651, d4 = 1/62 + 1/61, d5 = 1/61.
      const run = readFileSync(ws.path('grill.run'), 'utf8');
      const ranking = run
        .split('\n')
        .filter((l) => l.startsWith('1 '))
        .map((l) => l.split(/\s+/)[2]);
      expect(ranking).toEqual(['d1', 'd2', 'd4', 'd5']);
      expect(run).toContain('# method: grill\n');
      expect(run).toContain('# grill.rounds: 10\n');
      expect(run).toContain('# grill.min-gain: 1\n');
      expect(run).toContain('# grill.rerank-budget: 500\n');
      expect(run).toContain('# grill.filter: binary-filter\n');
      // 1 rewrite, 5 judgments (d1 d3 d2 d4 d5), 1 gap analysis.
      expect(server.requests).toHaveLength(7);
      const trace = ws.trace('grill.run.trace.jsonl');
      expect(trace.filter((t) => t.step === 'filtered-out')).toEqual([
        {
          topic: '1',
          method: 'grill',
          stage: 'expansion',
          round: 1,
          docno: 'd3',
          step: 'filtered-out',
          prompt: 'binary-filter',
          text: 'apple',
        },
      ]);
      expect(trace.filter((t) => t.step === 'round').map((t) => t.stop)).toEqual([
        undefined,
        undefined,
        'saturated',
      ]);

      const second = await retrieve('again.run', '--rounds', '10', '--min-gain', '1');
      expect(server.requests).toHaveLength(7);
      expect(second.stderr).toContain('calls sent: 0');
      expect(ws.runWithoutTrace('again.run')).toBe(ws.runWithoutTrace('grill.run'));
      // Two runs, each opening (and the first migrating) the database: slow on a busy machine.
    }, 120_000);
  },
);
