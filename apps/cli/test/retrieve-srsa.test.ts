import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResponses } from '@assay/platform';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';
import { assay } from './run-cli.js';

const userOf = (body: Record<string, unknown>) =>
  (body.messages as Array<{ content: string }>)[1]!.content;

/** SRSA's answers by prompt: the direct route; the judges' grades for `assay answers`. */
function answer(user: string): Behaviour {
  const json = (value: unknown): Behaviour => ({ reply: JSON.stringify(value) });
  if (user.startsWith('Today is '))
    return json({
      strategy: 'direct',
      search_query: user.includes('gamma') ? 'gamma' : 'beta',
      suggestions: [`look up ${user.includes('gamma') ? 'gamma' : 'beta'}`],
    });
  if (user.includes('Reference material'))
    return user.includes('[d3]')
      ? json({ answer: 'Gamma, see [d3].', references: ['d3'] })
      : json({ answer: 'Beta, see [d2] and [d1].', references: ['d2', 'd1', 'd7'] });
  if (user.includes('Retrieved context:'))
    return json({ groundedness: 5, answer_relevance: 4, correctness: 3, justification: 'ok' });
  return { status: 400, message: 'unexpected prompt' };
}

describe('assay retrieve srsa: arguments', () => {
  it('checks the search-agent options against the method', async () => {
    expect(
      (await retrieveArgumentsOnly(['--method', 'amd', '--answers', 'a.jsonl'])).stderr,
    ).toContain(
      '--answers applies to methods that answer (llmforum, srsa, simple-search, react), not amd',
    );
    expect((await retrieveArgumentsOnly(['--method', 'bm25', '--search-k', '3'])).stderr).toContain(
      '--search-k applies to srsa, simple-search and react',
    );
    expect(
      (await retrieveArgumentsOnly(['--method', 'simple-search', '--max-rounds', '3'])).stderr,
    ).toContain('--max-rounds applies to srsa and react');
    expect(
      (await retrieveArgumentsOnly(['--method', 'react', '--max-rounds', '0'])).stderr,
    ).toContain("--max-rounds needs a whole number from 1 to 50, not '0'");
    expect(
      (await retrieveArgumentsOnly(['--method', 'srsa', '--today', '2026-02-30'])).stderr,
    ).toContain("--today needs a date YYYY-MM-DD, not '2026-02-30'");
    expect(
      (await retrieveArgumentsOnly(['--method', 'srsa', '--model', 'm'], 'index')).stderr,
    ).toContain(
      "--method srsa reads the documents' text: give --docs FILE (alone, or with --index for the texts)",
    );
  });
});

describeOnEngines(
  'assay retrieve srsa',
  {
    prefix: 'assay-srsa-cli-',
    files: {
      'docs.jsonl': ALPHA_BETA_GAMMA_DOCS,
      'topics.tsv': '1\ttell me about beta\n2\tand gamma\n',
    },
  },
  (ws) => {
    it('--answers writes the answers as responses that assay answers scores; a rerun sends nothing', async () => {
      const server = await ws.double.start((body) => answer(userOf(body)));
      const retrieve = (out: string) =>
        ws.retrieve(['--method', 'srsa', '--model', 'm'])(
          out,
          ...['--tag', 'srsa-run', '--today', '2026-03-01'],
          ...['--answers', ws.path(`${out}.answers.jsonl`)],
        );
      const first = await retrieve('srsa.run');
      expect(first.code).toBe(0);
      // Two topics × (router, answer): direct search asks nothing more.
      expect(server.requests).toHaveLength(4);
      expect(first.stderr).toContain('  routes: direct 2\n');
      expect(userOf(server.requests[0]!.body).startsWith('Today is 2026-03-01.\n')).toBe(true);
      const run = readFileSync(ws.path('srsa.run'), 'utf8');
      expect(run).toContain('# method: srsa\n');
      expect(run).toContain('# routes: 1:direct 2:direct\n');
      expect(run).toContain('# srsa.today: 2026-03-01\n');
      expect(run).toContain('# srsa.search-k: 5\n');
      // beta → d2 (shorter), d1; gamma → d3.
      expect(ws.runEntries('srsa.run').map((l) => l.split(/\s+/).slice(0, 4).join(' '))).toEqual([
        '1 Q0 d2 1',
        '1 Q0 d1 2',
        '2 Q0 d3 1',
      ]);

      const text = readFileSync(ws.path('srsa.run.answers.jsonl'), 'utf8');
      expect(text).toBe(
        '{"topic":"1","system":"srsa-run","answer":"Beta, see [d2] and [d1].","references":["d2","d1"],"route":"direct"}\n' +
          '{"topic":"2","system":"srsa-run","answer":"Gamma, see [d3].","references":["d3"],"route":"direct"}\n',
      );
      // The reader of assay answers takes the file as it is.
      expect(parseResponses(text, 'answers.jsonl')).toEqual([
        {
          topic: '1',
          system: 'srsa-run',
          answer: 'Beta, see [d2] and [d1].',
          references: ['d2', 'd1'],
          route: 'direct',
        },
        {
          topic: '2',
          system: 'srsa-run',
          answer: 'Gamma, see [d3].',
          references: ['d3'],
          route: 'direct',
        },
      ]);
      const trace = readFileSync(ws.path('srsa.run.trace.jsonl'), 'utf8');
      expect(trace).toContain('"step":"dropped-reference","text":"d7"');

      const again = await retrieve('again.run');
      expect(again.code).toBe(0);
      expect(server.requests).toHaveLength(4);
      expect(readFileSync(ws.path('again.run.answers.jsonl'), 'utf8')).toBe(text);

      // assay answers scores the file: the request from --topics, the references resolved
      // through --docs.
      const scored = await assay(
        { ...ws.env, OPENAI_BASE_URL: server.baseURL },
        'answers',
        'score',
        '--judge',
        'rag-groundedness',
        '--model',
        'judge',
        '--responses',
        ws.path('srsa.run.answers.jsonl'),
        '--topics',
        ws.path('topics.tsv'),
        '--docs',
        ws.path('docs.jsonl'),
        '--out',
        ws.path('scores.jsonl'),
      );
      expect(scored.stderr).toContain('2 of 2 answer evaluations scored');
      expect(scored.code).toBe(0);
      const judged = server.requests.slice(4).map((r) => userOf(r.body));
      expect(judged.find((u) => u.includes('tell me about beta'))).toContain(
        'Retrieved context:\n[1] beta\n[2] alpha beta',
      );
    }, 120_000);
  },
);
