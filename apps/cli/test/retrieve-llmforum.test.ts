import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '../../../packages/llm/test/openai-test-server.js';
import { cliWith, type Env } from './run-cli.js';

/** The CLI run in-process against `env`, progress not drawn. */
const assay = (env: Env, ...argv: string[]) => cliWith({ env, stderrIsTTY: false }, ...argv);

/** Forum answers by prompt: every agent says "beta", the supervisor "beta is a letter". */
function forumAnswer(body: Record<string, unknown>): Behaviour {
  const user = (body.messages as Array<{ content: string }>)[1]!.content;
  if (/You are agent \d of 3/.test(user)) return { reply: 'beta' };
  if (user.includes("The forum's discussion")) return { reply: 'beta is a letter' };
  if (user.includes('Answer to check:'))
    return { reply: JSON.stringify({ groundedness: 1, relevance: 1 }) };
  return { status: 400, message: 'unexpected prompt' };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('assay retrieve --method llmforum: arguments', () => {
  it('checks --max-regenerations and --answers', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
    const base = ['retrieve', '--docs', 'd.jsonl', '--topics', 't.tsv', '--out', 'o.run'];
    expect(
      (await assay(env, ...base, '--method', 'amd', '--max-regenerations', '1')).stderr,
    ).toContain('--max-regenerations applies to llmforum only');
    expect((await assay(env, ...base, '--method', 'amd', '--answers', 'a.jsonl')).stderr).toContain(
      '--answers applies to methods that answer (llmforum, srsa, simple-search, react), not amd',
    );
    expect(
      (
        await assay(
          env,
          ...base,
          '--method',
          'llmforum',
          '--model',
          'm',
          '--max-regenerations',
          '-1',
        )
      ).stderr,
    ).toContain("--max-regenerations needs a whole number (0 or more), not '-1'");
    expect((await assay(env, ...base, '--method', 'llmforum')).stderr).toContain(
      '--method llmforum needs --model',
    );
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(
    `assay retrieve llmforum [${kind}]`,
    () => {
      let dir: string;
      let env: Env;
      let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'assay-llmforum-cli-'));
        writeFileSync(
          join(dir, 'docs.jsonl'),
          [
            '{"id":"d1","text":"alpha beta"}',
            '{"id":"d2","text":"beta"}',
            '{"id":"d3","text":"gamma"}',
          ]
            .map((l) => `${l}\n`)
            .join(''),
        );
        writeFileSync(join(dir, 'topics.tsv'), '1\tbeta\n');
        env = { ASSAY_DATA_DIR: join(dir, 'data'), OPENAI_API_KEY: 'test-key' };
        if (kind === 'postgres') {
          schema = await createIsolatedSchema(testDatabaseUrl()!);
          env.DATABASE_URL = schema.url;
        }
      });
      afterAll(async () => {
        await schema?.drop();
        rmSync(dir, { recursive: true, force: true });
      });

      const retrieve = (method: string, out: string, ...extra: string[]) =>
        assay(
          { ...env, OPENAI_BASE_URL: server?.baseURL },
          'retrieve',
          '--method',
          method,
          '--docs',
          join(dir, 'docs.jsonl'),
          '--topics',
          join(dir, 'topics.tsv'),
          '--out',
          join(dir, out),
          ...extra,
        );
      const entries = (file: string) =>
        readFileSync(join(dir, file), 'utf8')
          .split('\n')
          .filter((l) => l && !l.startsWith('#'));

      it('--dry-run counts 3 attempts of 7 answers and their controls', async () => {
        server = await startOpenAITestServer(() => ({ status: 500 }));
        const result = await retrieve('llmforum', 'dry.run', '--model', 'm', '--dry-run');
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('chat calls: at most 42 ');
        expect(server.requests).toHaveLength(0);
      });

      it('writes the weighted-Rocchio run, the trace and the answers; a rerun sends nothing', async () => {
        server = await startOpenAITestServer((body) => forumAnswer(body));
        const first = await retrieve(
          'llmforum',
          'forum.run',
          '--model',
          'm',
          '--answers',
          join(dir, 'answers.jsonl'),
        );
        expect(first.stderr).toContain(`wrote ${join(dir, 'forum.run')}`);
        expect(first.code).toBe(0);
        // Six agents, the supervisor, and a control call for each; an agent's two rounds give
        // the same answer on the same chunk, so round 2's control is the stored one: 7 + 4.
        // No embeddings (sparse).
        expect(server.requests).toHaveLength(11);
        expect(server.requests.every((r) => r.path.endsWith('/chat/completions'))).toBe(true);
        const run = readFileSync(join(dir, 'forum.run'), 'utf8');
        expect(run).toContain('# method: llmforum\n');
        expect(run).toContain('# llmforum.retrieval: sparse\n');
        expect(run).toContain('# llmforum.max-regenerations: 2\n');

        // The ranking is the weighted Rocchio's, as `--method rocchio-weighted` makes it.
        expect((await retrieve('rocchio-weighted', 'rw.run')).code).toBe(0);
        const ranking = entries('rw.run').map((l) => l.split(/\s+/).slice(2, 5).join(' '));
        expect(entries('forum.run').map((l) => l.split(/\s+/).slice(2, 5).join(' '))).toEqual(
          ranking,
        );
        const docnos = ranking.map((l) => l.split(' ')[0]);
        expect(readFileSync(join(dir, 'answers.jsonl'), 'utf8')).toBe(
          `${JSON.stringify({ topic: '1', system: 'llmforum', answer: 'beta is a letter', references: docnos })}\n`,
        );
        const trace = readFileSync(join(dir, 'forum.run.trace.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { step: string; speaker?: string; round?: number });
        expect(
          trace.filter((t) => t.step === 'agent-answer').map((t) => `${t.round}:${t.speaker}`),
        ).toEqual(['1:agent 1', '1:agent 2', '1:agent 3', '2:agent 1', '2:agent 2', '2:agent 3']);
        expect(trace.filter((t) => t.step === 'control')).toHaveLength(7);

        const again = await retrieve(
          'llmforum',
          'again.run',
          '--model',
          'm',
          '--answers',
          join(dir, 'again.jsonl'),
        );
        expect(again.code).toBe(0);
        expect(server.requests).toHaveLength(11);
        expect(again.stderr).toContain('calls sent: 0');
        expect(readFileSync(join(dir, 'again.jsonl'), 'utf8')).toBe(
          readFileSync(join(dir, 'answers.jsonl'), 'utf8'),
        );
      });
    },
  );
}
describeOn('pglite');
describeOn('postgres');
