import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE: scripted answers, never a model.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  getRetrieveJob,
  importCollection,
  importTopics,
  retrieveStoredModelRun,
  retrieveStoredRun,
  startModelRetrieveJob,
  startRetrieveJob,
  type AssayConfig,
  type RetrieveJob,
} from '../src/index.js';
import { rejection } from './helpers.js';

// Topic 1 asks for "wing flutter", 2 for "shock"; 3 has no term of the collection and 4
// none after analysis (stopwords only).
const DOCS = [
  'd1\twing flutter in wind tunnels',
  'd2\tshock waves and shock layers',
  'd3\tthe flutter of a wing, and wing flutter again',
  'd4\theat transfer in hypersonic flow',
  'd5\tshock',
].join('\n');

const NO_TERM = 'no term of the query occurs in the collection';
const STOPWORDS = 'the query has no term after analysis (empty, or stopwords only)';

function userMessage(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

forEachDatabase('background retrieve jobs: the final phase and counts', (t) => {
  let dataDir: string;
  let llm: TestServer | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assay-retrieve-jobs-'));
    await importCollection(t.db, { name: 'demo', format: 'tsv', file: 'd.tsv', text: DOCS });
    await importTopics(t.db, {
      collection: 'demo',
      file: 't.tsv',
      text: '1\twing flutter\n2\tshock\n3\tzeppelin\n4\tthe of\n5\twing\n',
    });
  });
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Polls a job until it is no longer running. */
  async function finished(job: RetrieveJob): Promise<RetrieveJob> {
    for (;;) {
      const state = getRetrieveJob(job.collectionId, job.id)!;
      if (state.status !== 'running') return state;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  const configFor = (server: TestServer): AssayConfig => ({
    dataDir,
    port: 0,
    openaiBaseUrl: server.baseURL,
  });

  it('a finished job reports phase done with every topic retrieved for, and names the topics without results', async () => {
    const job = await finished(
      await startRetrieveJob(t.db, { collection: 'demo', method: 'bm25', tag: 'bm25' }),
    );
    expect(job.status).toBe('done');
    expect(job.progress).toEqual({ phase: 'done', done: 5, total: 5 });
    expect(job.result).toMatchObject({
      name: 'bm25',
      topics: 3,
      topicsAsked: 5,
      missing: [
        { topic: '3', reason: NO_TERM },
        { topic: '4', reason: STOPWORDS },
      ],
    });
  });

  it('a failed job reports phase failed with the topics retrieved for, and the error names the topics without results', async () => {
    const strict = await finished(
      await startRetrieveJob(t.db, {
        collection: 'demo',
        method: 'bm25',
        tag: 'strict',
        strict: true,
      }),
    );
    expect(strict.status).toBe('failed');
    expect(strict.progress).toEqual({ phase: 'failed', done: 5, total: 5 });
    expect(strict.result).toBeNull();
    expect(strict.error).toEqual({
      code: 'invalid_input',
      message: `bm25: 2 of 5 topics have no results (strict: nothing was stored): 3 (${NO_TERM}), 4 (${STOPWORDS})`,
    });

    const none = await finished(
      await startRetrieveJob(t.db, {
        collection: 'demo',
        method: 'bm25',
        tag: 'none',
        topics: ['3', '4'],
      }),
    );
    expect(none.status).toBe('failed');
    expect(none.progress).toEqual({ phase: 'failed', done: 2, total: 2 });
    expect(none.error).toEqual({
      code: 'invalid_input',
      message: `bm25: none of the 2 topics has results (nothing was stored): 3 (${NO_TERM}), 4 (${STOPWORDS})`,
    });
  });

  it('a retrieval where no topic has results counts and names them all (in the foreground too)', async () => {
    const one = await rejection(
      retrieveStoredRun(t.db, { collection: 'demo', method: 'rm3', tag: 'x', topics: ['3'] }),
    );
    expect(one).toMatchObject({
      code: 'invalid_input',
      message: `rm3: the one topic has no results (nothing was stored): 3 (${NO_TERM})`,
      details: { missing: [{ topic: '3', reason: NO_TERM }] },
    });
  });

  it('refuses a topic asked twice: it would be counted twice and retrieved once', async () => {
    const twice = await rejection(
      retrieveStoredRun(t.db, {
        collection: 'demo',
        method: 'bm25',
        tag: 'x',
        topics: ['1', '2', '1'],
      }),
    );
    expect(twice).toMatchObject({
      code: 'invalid_input',
      message: 'topic "1" is asked more than once',
    });
  });

  it('a finished job with models counts the topics the budget left unrun as not done', async () => {
    // Every call costs $100 (100 prompt tokens at $1 each): once the first calls are paid
    // for, no call is sent. Four topics run at once; the fifth is left unrun.
    writeFileSync(join(dataDir, 'prices.json'), JSON.stringify({ m: { input: 1e6, output: 0 } }));
    llm = await startOpenAITestServer(() => ({ reply: 'shock' }));
    const job = await finished(
      await startModelRetrieveJob(t.db, configFor(llm), {
        collection: 'demo',
        method: 'query2doc',
        tag: 'q2d',
        model: 'm',
        budgetUsd: 1,
      }),
    );
    expect(job.status).toBe('done');
    expect(job.progress).toEqual({ phase: 'done', done: 4, total: 5 });
    expect(job.result).toMatchObject({
      topicsAsked: 5,
      unfinished: ['5'],
      missing: [{ topic: '5', reason: 'not run: the budget was reached' }],
    });
    expect(llm.requests).toHaveLength(4);
  });

  it('a job with models whose every topic fails reports phase failed and names each topic with its reason', async () => {
    llm = await startOpenAITestServer((body) =>
      userMessage(body).includes('Query: wing') ? { reply: ' ' } : { reply: 'shock' },
    );
    const config = configFor(llm);
    const failed = 'failed: query2doc: unusable answer after 3 attempts: empty answer';
    const job = await finished(
      await startModelRetrieveJob(t.db, config, {
        collection: 'demo',
        method: 'query2doc',
        tag: 'q2d',
        model: 'm',
        topics: ['1', '5'],
      }),
    );
    expect(job.status).toBe('failed');
    expect(job.progress).toEqual({ phase: 'failed', done: 2, total: 2 });
    expect(job.error).toEqual({
      code: 'invalid_input',
      message: `query2doc: none of the 2 topics has results (nothing was stored): 1 (${failed}), 5 (${failed})`,
    });
    // The same retrieval in the foreground: the same message, and the topics in its details.
    const foreground = await rejection(
      retrieveStoredModelRun(t.db, config, {
        collection: 'demo',
        method: 'query2doc',
        tag: 'q2d',
        model: 'm',
        topics: ['1', '5'],
      }),
    );
    expect(foreground).toMatchObject({
      message: job.error!.message,
      details: {
        missing: [
          { topic: '1', reason: failed },
          { topic: '5', reason: failed },
        ],
      },
    });
  });
});
