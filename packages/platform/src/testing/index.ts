// @assay/platform/testing: support for assay's own test suites only, never for the CLI or server.
// It lets the apps' tests open, seed and inspect databases without importing @assay/db:
// a database per engine (PGlite, and Postgres when TEST_DATABASE_URL is set) and a few
// read-only looks at what a process left behind.

/**
 * Test databases: one describe block per engine, an isolated Postgres schema, row counts,
 * and locks held on purpose to force the order of concurrent requests (Postgres).
 */
export {
  OPEN_TIMEOUT_MS,
  countRows,
  createIsolatedSchema,
  forEachDatabase,
  holdTransaction,
  queryRows,
  waitUntilBlockedBy,
  testDatabaseUrl,
  type HeldTransaction,
  type TestDatabase,
} from '@assay/test-support/database';
/** Opens a database at an explicit place (a PGlite folder, `memory://`, or a Postgres URL). */
export { createDb as openTestDatabase } from '@assay/db';
/** Read-only inspection of stored LLM calls and judge tasks. */
export { listJudgeTasks, listLlmCalls } from '@assay/db';
