import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

/** Forum answers by prompt: every agent says "beta", the supervisor "beta is a letter". */
function forumAnswer(body: Record<string, unknown>): Behaviour {
  const user = (body.messages as Array<{ content: string }>)[1]!.content;
  if (/You are agent \d of 3/.test(user)) return { reply: 'beta' };
  if (user.includes('Restate the question as a single structured query')) return { reply: 'beta' };
  if (user.includes("The forum's discussion")) return { reply: 'beta is a letter' };
  if (user.includes('Answer to check:'))
    return { reply: JSON.stringify({ groundedness: 1, relevance: 1 }) };
  return { status: 400, message: 'unexpected prompt' };
}

describe('assay retrieve --method llmforum: arguments', () => {
  it('checks --max-regenerations and --answers', async () => {
    expect(
      (await retrieveArgumentsOnly(['--method', 'amd', '--max-regenerations', '1'])).stderr,
    ).toContain('--max-regenerations applies to llmforum only');
    expect(
      (await retrieveArgumentsOnly(['--method', 'amd', '--answers', 'a.jsonl'])).stderr,
    ).toContain(
      '--answers applies to methods that answer (llmforum, srsa, simple-search, react), not amd',
    );
    expect(
      (
        await retrieveArgumentsOnly([
          '--method',
          'llmforum',
          '--model',
          'm',
          '--max-regenerations',
          '-1',
        ])
      ).stderr,
    ).toContain("--max-regenerations needs a whole number from 0 to 50, not '-1'");
    expect((await retrieveArgumentsOnly(['--method', 'llmforum'])).stderr).toContain(
      'llmforum needs a chat model (--model)',
    );
  });
});

describeOnEngines(
  'assay retrieve llmforum',
  {
    prefix: 'assay-llmforum-cli-',
    files: { 'docs.jsonl': ALPHA_BETA_GAMMA_DOCS, 'topics.tsv': '1\tbeta\n' },
  },
  (ws) => {
    const retrieve = (method: string, out: string, ...extra: string[]) =>
      ws.retrieve(['--method', method])(out, ...extra);

    it('--dry-run counts 6 attempts of the 8 texts and their controls', async () => {
      const server = await ws.double.start(() => ({ status: 500 }));
      const result = await retrieve('llmforum', 'dry.run', '--model', 'm', '--dry-run');
      expect(result.code).toBe(0);
      // The reformed query, 6 agent answers, the supervisor's: (1 + 5 regenerations) × 2.
      expect(result.stdout).toContain('chat calls: at most 96 ');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the weighted-Rocchio run, the trace and the answers; a rerun sends nothing', async () => {
      const server = await ws.double.start((body) => forumAnswer(body));
      const first = await retrieve(
        'llmforum',
        'forum.run',
        '--model',
        'm',
        '--answers',
        ws.path('answers.jsonl'),
      );
      expect(first.stderr).toContain(`wrote ${ws.path('forum.run')}`);
      expect(first.code).toBe(0);
      // Without an embeddings model the run says loudly it is not the paper's method.
      const warning =
        "llmforum without an embeddings model (--embedding-model) is not the paper's method: it ranks by sparse tf-idf weighted Rocchio over BM25 and its control block compares texts by their words, not by embeddings";
      expect(first.stderr).toContain(`warning: ${warning}\n`);
      // The reformed query and its control; six agents, the supervisor, and a control call
      // for each; an agent's two rounds give the same answer on the same chunk, so round 2's
      // control is the stored one; and the agent whose chunk is "beta" gets the reformed
      // query's control prompt (beta, beta, beta): 2 + 7 + 4 − 1. No embeddings (sparse).
      expect(server.requests).toHaveLength(12);
      expect(server.requests.every((r) => r.path.endsWith('/chat/completions'))).toBe(true);
      const run = readFileSync(ws.path('forum.run'), 'utf8');
      expect(run).toContain('# method: llmforum\n');
      expect(run).toContain('# llmforum.retrieval: sparse\n');
      expect(run).toContain('# llmforum.max-regenerations: 5\n');
      expect(run).toContain(`# warning: ${warning}\n`);

      // The ranking is the weighted Rocchio's, as `--method rocchio-weighted` makes it.
      expect((await retrieve('rocchio-weighted', 'rw.run')).code).toBe(0);
      const ranking = ws.runEntries('rw.run').map((l) => l.split(/\s+/).slice(2, 5).join(' '));
      expect(ws.runEntries('forum.run').map((l) => l.split(/\s+/).slice(2, 5).join(' '))).toEqual(
        ranking,
      );
      const docnos = ranking.map((l) => l.split(' ')[0]);
      expect(readFileSync(ws.path('answers.jsonl'), 'utf8')).toBe(
        `${JSON.stringify({ topic: '1', system: 'llmforum', answer: 'beta is a letter', references: docnos })}\n`,
      );
      const trace = ws.trace<{ step: string; speaker?: string; round?: number }>(
        'forum.run.trace.jsonl',
      );
      expect(
        trace.filter((t) => t.step === 'agent-answer').map((t) => `${t.round}:${t.speaker}`),
      ).toEqual(['1:agent 1', '1:agent 2', '1:agent 3', '2:agent 1', '2:agent 2', '2:agent 3']);
      expect(trace.filter((t) => t.step === 'control')).toHaveLength(8);

      const again = await retrieve(
        'llmforum',
        'again.run',
        '--model',
        'm',
        '--answers',
        ws.path('again.jsonl'),
      );
      expect(again.code).toBe(0);
      expect(server.requests).toHaveLength(12);
      expect(again.stderr).toContain('calls sent: 0');
      expect(readFileSync(ws.path('again.jsonl'), 'utf8')).toBe(
        readFileSync(ws.path('answers.jsonl'), 'utf8'),
      );
    }, 120_000);
  },
);
