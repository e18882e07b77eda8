// `assay judge` against an endpoint nothing listens on: it stops after a few items instead
// of trying every item, names the URL, leaves the items pending and pays nothing (and says
// so, for a model without a price too).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE (never a judge), here one that answers too late.
import { startOpenAITestServer } from '@assay/test-support/openai-test-server';
import { runCli } from '../src/main.js';
import type { JudgeCommandIo } from '../src/judging/judge-command.js';
import { gradedAnswer, POOL_SIZE, writeJudgeFixtures } from './judge-fixtures.js';

let dir: string;
let files: ReturnType<typeof writeJudgeFixtures>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-judge-endpoint-'));
  files = writeJudgeFixtures(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port on 127.0.0.1 where nothing listens (connections are refused). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function judge(baseUrl: string, ...extra: string[]) {
  return judgeInto('out.qrels', baseUrl, ...extra);
}

async function judgeInto(out: string, baseUrl: string, ...extra: string[]) {
  let stdout = '';
  let stderr = '';
  const io: JudgeCommandIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { ASSAY_DATA_DIR: join(dir, 'data'), OPENAI_API_KEY: 'test-key' },
    stderrIsTTY: false,
  };
  // A model without a price: what it cost is unknown, yet nothing was paid.
  const argv = ['judge', '--judge', 'graded-0-3', '--model', 'local-model'];
  argv.push('--topics', files.topics, '--docs', files.docs, '--pool', files.pool);
  argv.push('--out', join(dir, out), '--base-url', baseUrl, ...extra);
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe('assay judge: a dead endpoint', () => {
  it('stops after three items in a row cannot connect, names the URL, pays nothing and leaves every item pending', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await judge(baseUrl, '--concurrency', '2');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(
      `assay judge: stopped: connection failed: cannot reach ${baseUrl} (ECONNREFUSED)`,
    );
    expect(r.stderr).toContain(
      `${POOL_SIZE} items not judged yet (the model endpoint cannot be reached); run the same command again to go on`,
    );
    expect(r.stdout).toContain(`labelled 0 of ${POOL_SIZE} items`);
    expect(r.stdout).toContain('0 calls paid, 0 tokens, nothing paid');
    expect(r.stderr).toMatch(/judging .*tokens 0 {2}nothing paid/);
    expect(r.stdout + r.stderr).not.toContain('$0.0000');
    // No item failed: a run against a live endpoint takes them all.
    expect(r.stderr).not.toMatch(/\d+ × /);
    // Opening the embedded database, then up to 15.5 s of backoff between the 6 attempts.
  }, 180_000);

  it('gives up an endpoint that does not answer in time after three items in a row, each call tried once more', async () => {
    const server = await startOpenAITestServer((body) => ({
      delayMs: 10_000,
      then: gradedAnswer(body),
    }));
    try {
      const r = await judgeInto(
        'hang.qrels',
        server.baseURL,
        '--timeout',
        '0.2',
        '--concurrency',
        '1',
      );
      expect(r.code).toBe(6);
      expect(r.stderr).toMatch(
        /assay judge: a call timed out \(timed out: .*\); each call that times out is tried once more, then its item goes back to pending\n/,
      );
      expect(r.stderr).toMatch(
        /assay judge: stopped: timed out: .* \(3 items in a row timed out; the items went back to pending\)\n/,
      );
      expect(r.stderr).toContain(
        `${POOL_SIZE} items not judged yet (the model endpoint does not answer in time); run the same command again to go on`,
      );
      // Three items, two attempts each.
      expect(server.requests).toHaveLength(6);
      expect(r.stderr).not.toMatch(/\d+ items failed/);
    } finally {
      await server.close();
    }
  }, 60_000);
});
