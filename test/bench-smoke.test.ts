import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sharedData, SHARED_DATA_SKIP } from '@assay/test-support/shared-data';

// Every bench at a tiny size: it starts, runs and prints its figures, so that none stops
// working unnoticed when the code it drives changes. Sizes are the smallest that still go
// through every phase; timings are not checked (the machine may be busy).
const root = fileURLToPath(new URL('../', import.meta.url));
const postgresUrl = process.env.TEST_DATABASE_URL;
const engines = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];
const dlRuns = sharedData('syndl/TREC-DLs-files/TREC-DL-2021/passages-runs');

/** Runs `node ARGS` from the checkout; resolves with its output, rejects with it on failure. */
function node(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: root,
        env: { ...process.env, ...(postgresUrl ? { DATABASE_URL: postgresUrl } : {}), ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 480_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

const number = String.raw`\d[\d,]*(?:\.\d+)?`;
const TIMEOUT = 600_000;

describe('every bench at a tiny size', () => {
  it('bench/startup.mjs prints start-up CPU against bare node', { timeout: TIMEOUT }, async () => {
    const out = await node(['bench/startup.mjs', '--repeats', '1']);
    expect(out).toMatch(new RegExp(`node -e 0 +${number} s CPU`));
    expect(out).toMatch(new RegExp(`assay --version +${number} s CPU.*${number}x node's CPU`));
    expect(out).toMatch(new RegExp(`assay --help +${number} s CPU.*${number}x node's CPU`));
  });

  it(
    'bench/eval.mjs times assay eval (and trec_eval when found)',
    { timeout: TIMEOUT },
    async () => {
      const out = await node(['bench/eval.mjs', '1', '--skip-dl', '--topics', '3']);
      expect(out).toMatch(/2\. one run of 3 topics x 1,000 documents/);
      expect(out).toMatch(new RegExp(`assay: +${number} s wall, ${number} s CPU`));
      if (out.includes('assay/trec_eval:')) expect(out).toMatch(/byte-identical/);
    },
  );

  it('bench/import.mjs prints the ratio to a plain COPY', { timeout: TIMEOUT }, async () => {
    const out = await node(['bench/import.mjs', ...engines, '--lines', '2000']);
    for (const label of postgresUrl ? ['PGlite', 'PostgreSQL'] : ['PGlite'])
      expect(out).toMatch(new RegExp(`${label}.*: 2,000 lines`));
    expect(out.match(new RegExp(`assay/plain COPY: ${number}x`, 'g'))).toHaveLength(engines.length);
  });

  it('bench/judge.mjs judges against the test double', { timeout: TIMEOUT }, async () => {
    const out = await node([
      'bench/judge.mjs',
      'baseline',
      ...engines,
      ...['--items', '20', '--concurrency', '4', '--latency', '5'],
    ]);
    for (const engine of ['baseline', ...engines])
      expect(out).toMatch(new RegExp(`${engine} +20 items.*${number} judgments/s`));
  });

  it(
    'bench/answers.mjs scores, rescores from the store and reports',
    { timeout: TIMEOUT },
    async () => {
      const out = await node([
        'bench/answers.mjs',
        ...['--systems', '2', '--topics', '2', '--trials', '1', '--concurrency', '2'],
        ...['--latency', '5', '--report-topics', '3'],
      ]);
      expect(out).toMatch(new RegExp(`first run: +${number} s wall`));
      expect(out).toMatch(/rerun: .*0 calls \(all from the call store\)/);
      expect(out).toMatch(new RegExp(`report: .* ${number} s wall`));
    },
  );

  it('bench/dense.mjs prints queries per second', { timeout: TIMEOUT }, async () => {
    const out = await node([
      'bench/dense.mjs',
      ...['--docs', '200', '--dims', '8'],
      '--queries',
      '2',
      '--k',
      '10',
    ]);
    expect(out).toMatch(new RegExp(`dense exact cosine: 200 docs x 8 dims.*${number} queries/s`));
  });

  it(
    'bench/ann.mjs prints HNSW build, latency and recall against exact',
    { timeout: TIMEOUT },
    async () => {
      const out = await node([
        'bench/ann.mjs',
        ...['--docs', '300', '--dims', '8', '--queries', '3', '--k', '10', '--ef-search', '20,40'],
      ]);
      expect(out).toMatch(/300 docs x 8 dims.*3 queries, top 10/);
      expect(out).toMatch(new RegExp(`exact cosine: +p50 ${number} ms, p95 ${number} ms`));
      expect(out).toMatch(new RegExp(`hnsw build \\(M 16, efConstruction 200\\): ${number} s`));
      for (const ef of [20, 40])
        expect(out).toMatch(
          new RegExp(
            `hnsw efSearch ${ef}: p50 ${number} ms, p95 ${number} ms, recall@10 ${number}`,
          ),
        );
      // pgvector is measured, or the bench says why not.
      expect(out).toMatch(/pgvector( ef_search \d+: .*recall@10|: not measured)/);
    },
  );

  it(
    'bench/health-under-import.mjs samples health during an import',
    { timeout: TIMEOUT },
    async () => {
      const out = await node(['bench/health-under-import.mjs', ...engines, '--lines', '2000']);
      for (const engine of engines)
        expect(out).toMatch(new RegExp(`${engine} +import of 2,000 lines: ${number} s; health`));
    },
  );

  it('bench/health-under-pool.mjs samples health during a pool', { timeout: TIMEOUT }, async () => {
    const out = await node([
      'bench/health-under-pool.mjs',
      ...engines,
      ...['--lines', '2000', '--runs', '2'],
    ]);
    for (const engine of engines)
      expect(out).toMatch(
        new RegExp(
          `${engine} +pool 2 of 2,000 candidates \\(2 runs\\): ${number} s, ${number} items; health .* max ${number} ms, 0 failed`,
        ),
      );
  });

  it(
    'bench/annotators.mjs labels through the API and loses nothing',
    { timeout: TIMEOUT },
    async () => {
      const out = await node([
        'bench/annotators.mjs',
        ...engines,
        ...['--annotators', '2', '--seconds', '1', '--items-per-annotator', '2', '--think-ms', '0'],
      ]);
      expect(out).toMatch(/p50/);
      expect(out).toMatch(/lost/);
      expect(out).not.toMatch(/lost[^\n]*[1-9]\d* of/);
    },
  );

  it.skipIf(!existsSync(process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium'))(
    'bench/annotate-latency.mjs times key → next item painted in Chromium, losing no label',
    { timeout: TIMEOUT },
    async () => {
      const out = await node(['bench/annotate-latency.mjs', '--items', '4', '--think-ms', '0']);
      for (const engine of engines)
        expect(out).toMatch(
          new RegExp(
            `${engine} +3 key presses: key → next item painted p50 ${number} ms, p95 ${number} ms, max ${number} ms; labels stored 4 of 4, lost 0`,
          ),
        );
    },
  );

  it('bench/retrieval.mjs runs its scale test', { timeout: TIMEOUT }, async () => {
    const out = await node([
      'bench/retrieval.mjs',
      '--skip-cranfield',
      ...['--docs', '300', '--queries', '3', '--minisearch-queries', '2'],
    ]);
    expect(out).toMatch(/assay vs MiniSearch: indexing/);
  });

  it('bench/bm25-disk.mjs builds and searches an on-disk index', { timeout: TIMEOUT }, async () => {
    const out = await node([
      'bench/bm25-disk.mjs',
      ...['--docs', '300', '--queries', '4', '--k', '20', '--vocabulary', '2000'],
    ]);
    expect(out).toMatch(new RegExp(`index: ${number} s .*MiB on disk`));
    expect(out).toMatch(new RegExp(`search maxscore +: p50 ${number} ms, p95 ${number} ms`));
  });

  it.skipIf(dlRuns === undefined)(
    `bench/ppi.mjs prints coverage on the TREC DL data (${SHARED_DATA_SKIP})`,
    { timeout: TIMEOUT },
    async () => {
      const out = await node([
        'bench/ppi.mjs',
        ...['--samples', '2', '--topics', '5', '--pair-samples', '2', '--pairs', '30'],
      ]);
      expect(out).toMatch(/coverage/i);
      expect(out).toMatch(new RegExp(`\\n${number} s\\n?$`));
    },
  );

  it('packages/db/bench/bulk-insert.ts prints rows per second', { timeout: TIMEOUT }, async () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        npm,
        ['run', '--silent', 'bench', '-w', '@assay/db'],
        {
          cwd: root,
          env: {
            ...process.env,
            BENCH_ROWS: '2000',
            ...(postgresUrl ? { BENCH_DATABASE_URL: postgresUrl } : {}),
          },
          timeout: 480_000,
        },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    expect(out).toMatch(/rows\/s/);
  });
});
