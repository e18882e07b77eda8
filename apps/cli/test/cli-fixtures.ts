// The set-up the CLI tests share: scratch folders, a database of their own on each engine
// (embedded PGlite under a temporary ASSAY_DATA_DIR; PostgreSQL in a fresh schema when
// TEST_DATABASE_URL is set), the OpenAI-compatible test double of the running test, and
// `assay retrieve` over a folder's files with the run and its trace read back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticate, loadConfig, openDatabase } from '@assay/platform';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { assay, type CliResult, type Env } from './run-cli.js';

/** A new folder under the system's temporary directory, and a writer of files into it. */
export function scratchDir(prefix: string): {
  dir: string;
  file(name: string, text: string): string;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** The database engines the tests run on. */
type Engine = 'pglite' | 'postgres';

/**
 * One database per engine for a whole test file: embedded PGlite in a temporary
 * ASSAY_DATA_DIR, and PostgreSQL in a schema of its own (made in beforeAll, dropped in
 * afterAll) only when TEST_DATABASE_URL is set. `extra` is added to both environments.
 */
export function databasePerEngine(
  prefix: string,
  extra: Env = {},
): Array<{ kind: Engine; env: () => Env }> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const pgliteEnv: Env = { ASSAY_DATA_DIR: join(root, 'data'), ...extra };
  const engines: Array<{ kind: Engine; env: () => Env }> = [
    { kind: 'pglite', env: () => pgliteEnv },
  ];
  if (testDatabaseUrl()) {
    let postgresEnv: Env = {};
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const schema = await createIsolatedSchema(testDatabaseUrl()!);
      drop = schema.drop;
      postgresEnv = { DATABASE_URL: schema.url, ASSAY_DATA_DIR: join(root, 'unused'), ...extra };
    });
    afterAll(async () => drop?.());
    engines.push({ kind: 'postgres', env: () => postgresEnv });
  }
  return engines;
}

/** Opens the database `env` configures, hands it to `look` (to see what a command left), closes it. */
export async function withDatabase<T>(
  env: Env,
  look: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(loadConfig(env));
  try {
    return await look(database.db);
  } finally {
    await database.close();
  }
}

/** Whether `token` signs in to the database `env` configures: `name/role`, or the error's code. */
export function whoIs(env: Env, token: string): Promise<string | undefined> {
  return withDatabase(env, async (db) => {
    try {
      const user = await authenticate(db, token);
      return `${user.name}/${user.role}`;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  });
}

/**
 * A describe block's folder, the environment that points the CLI at its own database, and
 * the test double of its running test.
 */
interface Workspace {
  /** The temporary folder, removed after the block. */
  readonly dir: string;
  /** ASSAY_DATA_DIR under `dir`, OPENAI_API_KEY, and DATABASE_URL on PostgreSQL. */
  readonly env: Env;
  /** `name` inside `dir`. */
  path(name: string): string;
  /** The OpenAI-compatible test double of the running test, closed after each test. */
  readonly double: TestDouble;
  /**
   * A runner of `assay retrieve ...args --docs <dir>/docs.jsonl --topics <dir>/<topics>
   * --out <dir>/<out> ...extra` against the database and the running double.
   */
  retrieve(
    args: string[],
    topics?: string,
  ): (out: string, ...extra: string[]) => Promise<CliResult>;
  /** The ranking lines of run file `name`: every line but the blank and the `#` header ones. */
  runEntries(name: string): string[];
  /** Run file `name` without its `# trace:` header line (the one line a rerun changes). */
  runWithoutTrace(name: string): string;
  /** The records of the trace file `name` (`.trace.jsonl`), one a line. */
  trace<T = Record<string, unknown>>(name: string): T[];
}

/**
 * Declares the block `name [pglite]`, and `name [postgres]` (skipped unless TEST_DATABASE_URL
 * is set), each with a workspace of its own: before the block a temporary folder holding
 * `files` (name → text) and a database (PGlite in `<dir>/data`, or a fresh PostgreSQL schema);
 * after it both are removed.
 */
export function describeOnEngines(
  name: string,
  options: { prefix: string; files?: Record<string, string>; timeout?: number },
  body: (workspace: Workspace) => void,
): void {
  for (const kind of ['pglite', 'postgres'] as const)
    describe.runIf(kind === 'pglite' || testDatabaseUrl())(
      `${name} [${kind}]`,
      options.timeout === undefined ? {} : { timeout: options.timeout },
      () => body(useWorkspace(kind, options.prefix, options.files ?? {})),
    );
}

function useWorkspace(kind: Engine, prefix: string, files: Record<string, string>): Workspace {
  let dir = '';
  let env: Env = {};
  let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
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
  const double = testDoublePerTest();
  return {
    get dir() {
      return dir;
    },
    get env() {
      return env;
    },
    path: (name) => join(dir, name),
    double,
    retrieve:
      (args, topics = 'topics.tsv') =>
      (out, ...extra) =>
        assay(
          { ...env, OPENAI_BASE_URL: double.server?.baseURL },
          'retrieve',
          ...args,
          '--docs',
          join(dir, 'docs.jsonl'),
          '--topics',
          join(dir, topics),
          '--out',
          join(dir, out),
          ...extra,
        ),
    runEntries: (name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    runWithoutTrace: (name) => readFileSync(join(dir, name), 'utf8').replace(/^# trace: .*$/m, ''),
    trace: <T>(name: string) =>
      readFileSync(join(dir, name), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as T),
  };
}

/** What the test double answers request n (1-based) to `path` with. */
type Script = Parameters<typeof startOpenAITestServer>[0];

/** The test double of the running test: `start` launches it; it is closed after each test. */
export interface TestDouble {
  start(script: Script): Promise<TestServer>;
  /** The running double, if the test started one. */
  readonly server: TestServer | undefined;
}

/** Registers, for the file or block it is called in, the closing of the double after each test. */
export function testDoublePerTest(): TestDouble {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    async start(script) {
      server = await startOpenAITestServer(script);
      return server;
    },
    get server() {
      return server;
    },
  };
}

/**
 * Three documents for the retrieval tests: d1 "alpha beta", d2 "beta", d3 "gamma" (the BM25
 * sums in the tests are worked out over these).
 */
export const ALPHA_BETA_GAMMA_DOCS =
  '{"id":"d1","text":"alpha beta"}\n{"id":"d2","text":"beta"}\n{"id":"d3","text":"gamma"}\n';

/** An environment for checking arguments only: no usable data directory, a placeholder key. */
const ARGUMENTS_ONLY_ENV: Env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };

/**
 * `assay retrieve --docs d.jsonl --topics t.tsv --out o.run ...args` (or `--index i` for
 * `--docs d.jsonl` when `input` says so) with no usable data directory: for the checks that
 * stop at the arguments, before any file is read.
 */
export function retrieveArgumentsOnly(
  args: string[],
  input: 'docs' | 'index' = 'docs',
): Promise<CliResult> {
  const from = input === 'docs' ? ['--docs', 'd.jsonl'] : ['--index', 'i'];
  return assay(
    ARGUMENTS_ONLY_ENV,
    'retrieve',
    ...from,
    '--topics',
    't.tsv',
    '--out',
    'o.run',
    ...args,
  );
}
