import { readdirSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One Vitest project per workspace that has a test/ folder, so `npm test` runs them all
// and `npx vitest --project trec` runs one.
const workspaces = ['packages', 'apps'].flatMap((group) =>
  readdirSync(group)
    .filter((name) => existsSync(`${group}/${name}/test`))
    .map((name) => ({ name, dir: `${group}/${name}` })),
);

/**
 * The slow test files: they start real `assay` processes, drive a browser, read the public
 * TREC data beside the checkout or run the benches at a tiny size. `npm test` leaves them
 * out (a fast loop under 5 minutes); ASSAY_TEST_FULL=1 (which `.ci/run` sets) runs them
 * too, and so does naming a file on the command line (`npx vitest run FILE`).
 */
const SLOW_TESTS = [
  // real processes: the CLI bundle, servers, two processes on one data directory
  'apps/cli/test/bin.test.ts',
  'apps/cli/test/conformance.test.ts',
  'apps/cli/test/eval-grades.test.ts',
  'apps/cli/test/eval-inputs.test.ts',
  'apps/cli/test/judge-batch.test.ts',
  'apps/cli/test/judge-endpoints-process.test.ts',
  'apps/cli/test/judge-process.test.ts',
  'apps/cli/test/shared-data-dir-process.test.ts',
  'apps/cli/test/startup.test.ts',
  'apps/server/test/admin-token-warning.test.ts',
  'apps/server/test/database-restart.test.ts',
  'apps/server/test/serve.test.ts',
  'packages/db/test/data-dir-lock.test.ts',
  'packages/db/test/shared-pglite.test.ts',
  'packages/platform/test/worker-leases.test.ts',
  'packages/retrieval/test/disk-index-killed.test.ts',
  // the web app built and driven in Chromium
  'apps/web/test/admin-data-e2e.test.ts',
  'apps/web/test/assessor-workflow-e2e.test.ts',
  'apps/web/test/campaign-admin-e2e.test.ts',
  'apps/web/test/annotate-flow-e2e.test.ts',
  'apps/web/test/campaign-trust-e2e.test.ts',
  'apps/web/test/e2e.test.ts',
  'apps/web/test/rag-e2e.test.ts',
  'apps/web/test/sign-in-link-e2e.test.ts',
  // new embedded databases made the long way (initdb and every migration), cache off
  'packages/db/test/pglite-template.test.ts',
  // a million-line run file, parsed twice per database
  'packages/platform/test/import-run-million.test.ts',
  // public TREC data from ../shared/data
  'packages/platform/test/rag-files.test.ts',
  'packages/pooling/test/dl2019.test.ts',
  'packages/trec/test/shared-data.test.ts',
  'apps/cli/test/compare.test.ts',
  'apps/cli/test/judge-report.test.ts',
  'apps/cli/test/pool.test.ts',
  'apps/cli/test/ppi.test.ts',
  'apps/cli/test/rag-dev-data.test.ts',
  // every bench at a tiny size
  'test/bench-smoke.test.ts',
];

const full = process.env.ASSAY_TEST_FULL === '1';
// `npx vitest run path/to/x.test.ts`: a file named on the command line always runs.
const named = process.argv.some((arg) => /\.test\.ts$/.test(arg));
const fast = !full && !named;
const skipped = fast ? SLOW_TESTS : [];

/**
 * Test files that replace a module (`vi.mock`): they need a module graph of their own. The
 * fast suite runs every other file in a shared one per worker (no re-import of the
 * platform, Kysely, PGlite and the rest for each file), and these apart.
 */
const OWN_MODULES = [
  'apps/cli/test/bad-input-exits.test.ts',
  'packages/platform/test/token-cache-race.test.ts',
];

const common = { testTimeout: 30_000 };

export default defineConfig({
  resolve: { conditions: ['source'] },
  test: {
    // The CLI bundle is built once here; tests that start `assay` run it.
    globalSetup: ['./test/global-setup.ts'],
    // The fast suite keeps both cores of a 2-core machine busy (Vitest's default leaves one
    // idle there); the full suite keeps Vitest's defaults.
    ...(fast ? { maxWorkers: Math.max(2, availableParallelism() - 1) } : {}),
    projects: [
      ...[...workspaces, { name: 'root', dir: '' }].map(({ name, dir }) => ({
        extends: true as const,
        test: {
          name,
          include: [`${dir && `${dir}/`}test/**/*.test.ts`],
          exclude: ['**/node_modules/**', ...skipped, ...(fast ? OWN_MODULES : [])],
          isolate: !fast,
          ...common,
        },
      })),
      ...(fast
        ? [
            {
              extends: true as const,
              test: { name: 'own-modules', include: OWN_MODULES, isolate: true, ...common },
            },
          ]
        : []),
    ],
  },
});
