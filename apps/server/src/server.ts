import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import {
  listCollections,
  type AssayDb,
  ensureAdmin,
  hasJudgeEndpoint,
  judgeEndpointIdentity,
  loadDataset,
  maxHeldTasks,
  openDatabase,
  releaseDeadLocalLeases,
  startJudgeWorker,
  storeDemoRuns,
  type AssayConfig,
} from '@assay/platform';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';
import { webAppBanner } from './core/banner.js';
import { defaultWebDir } from './core/web-app.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  config: AssayConfig;
  /** An open database to serve; by default one is opened (and migrated) from `config`. */
  db?: AssayDb;
  /** Where the server's messages go, one line per call (default: stdout). */
  log?: (line: string) => void;
  /** Where its warnings go, one line per call (default: stderr). */
  warn?: (line: string) => void;
  /** Interface to listen on (default: config.host, else 127.0.0.1). */
  hostname?: string;
  /** The built web app served at `/` (default: apps/web/build of this checkout). */
  webDir?: string;
  /**
   * Socket limits, in ms: `idleMs` closes a connection on which nothing moves (default
   * 120 s), `headersMs` one whose request headers have not all arrived (default 30 s),
   * `requestMs` one whose whole request, body included, has not arrived (default 10 min:
   * a slow client may not hold a connection open with a trickling body).
   */
  timeouts?: { idleMs?: number; headersMs?: number; requestMs?: number };
  /** Items the background judge worker judges at once (default 8). */
  workerConcurrency?: number;
  /** How often the background judge worker looks for new work, in ms (default 2000). */
  workerPollMs?: number;
  /**
   * When the server stops, how long LLM calls in flight may still answer before they are
   * cut off and their items put back to pending, in ms (default 5000).
   */
  workerStopGraceMs?: number;
  /** First pause after the model endpoint could not be reached, in ms (default 30 000; doubles up to 10 min). */
  endpointPauseMs?: number;
  /** How long the background judge worker waits for one answer, in ms (default 120 000). */
  workerTimeoutMs?: number;
}

/** A listening server. */
export interface RunningServer {
  /** The port it listens on (the real one when config.port was 0). */
  port: number;
  /** Base URL of the API, e.g. http://localhost:8080/api. */
  url: string;
  /**
   * Stops accepting connections and the background judge worker (it claims nothing more,
   * sends no new call or retry, gives the calls in flight `workerStopGraceMs` to answer,
   * writes what was answered and puts the other items back to pending), lets requests in
   * flight finish (up to `graceMs`, default 10 s), then closes the database if startServer
   * opened it.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Starts assay's API server: opens and migrates the configured database, loads the
 * Cranfield demo into a database without collections, creates the first admin (printing
 * its token once), listens on config.port, and, when a model endpoint is configured (and
 * ASSAY_SERVER_WORKER is not 0), judges the database's judge jobs in the background.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
  // The embedded database is shared with the assay commands run on the same data directory.
  const database = options.db ?? (await openDatabase(config, { share: true }));
  const ownsDatabase = options.db === undefined;
  try {
    const demo = await seedDemo(database, log);
    const admin = await ensureAdmin(
      database.db,
      config.adminToken ? { token: config.adminToken } : {},
    );
    const app = createApp({
      db: database.db,
      config,
      log,
      ...(options.webDir === undefined ? {} : { webDir: options.webDir }),
    });
    const timeouts = options.timeouts ?? {};
    const requestMs = timeouts.requestMs ?? 600_000;
    const headersMs = Math.min(timeouts.headersMs ?? 30_000, requestMs);
    const server = createAdaptorServer({
      fetch: app.fetch,
      serverOptions: {
        requestTimeout: requestMs,
        headersTimeout: headersMs,
        // How often Node checks the two limits above.
        connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(headersMs / 2))),
      },
    }) as Server;
    // A socket idle this long is destroyed (no 'timeout' listener keeps it open).
    server.setTimeout(timeouts.idleMs ?? 120_000);
    const hostname = options.hostname ?? config.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, hostname, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const shown = hostname === '0.0.0.0' || hostname === '::' ? 'localhost' : hostname;
    const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/api`;
    const where =
      database.kind === 'postgres'
        ? 'PostgreSQL (DATABASE_URL)'
        : `embedded PGlite in ${resolve(config.dataDir, 'pglite')}`;
    const reach =
      hostname === '0.0.0.0' || hostname === '::'
        ? 'reachable from other machines'
        : `on ${hostname} only (HOST=0.0.0.0 to accept other machines)`;
    log(
      `assay is serving ${url}, ${reach} (database: ${where}); API reference: ${url}/openapi.json; stop with Ctrl-C`,
    );
    if (database.socket)
      log(
        `assay commands on the data directory ${resolve(config.dataDir)} use this server's database while it runs (socket ${database.socket})`,
      );
    if (database.notShared)
      warn(
        `warning: assay commands on the data directory ${resolve(config.dataDir)} cannot use the database while this server runs: ${database.notShared}`,
      );
    if (admin.created) announceAdmin(admin.token, config, url, log);
    for (const line of webAppBanner({
      apiUrl: url,
      webBuilt: (options.webDir ?? defaultWebDir()) !== undefined,
      ...(admin.created && admin.token !== undefined
        ? { createdAdmin: { token: admin.token, fromEnv: Boolean(config.adminToken) } }
        : {}),
    }))
      log(line);
    if (admin.ignoredToken)
      warn(
        'warning: ASSAY_ADMIN_TOKEN is ignored: an admin exists and the variable is none of its live tokens (it only makes the first admin); ' +
          "manage tokens with 'assay users tokens admin', 'assay users token admin' and 'assay users rotate --token ID'",
      );
    const worker = startBackgroundWorker(database, options, log);
    const demoRuns =
      demo === undefined ? undefined : storeDemoRunsInBackground(database, demo, log);
    return {
      port,
      url,
      close: async ({ graceMs = 10_000 } = {}) => {
        worker?.abort();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(timer);
        // The worker writes its last labels, and the demo its runs, before the database closes.
        await worker?.stopped;
        await demoRuns;
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
}

/** The server's judge worker: abort it, then await `stopped` (it never rejects). */
interface BackgroundWorker {
  abort(): void;
  stopped: Promise<void>;
}

/**
 * Judges the jobs of the database in this process when a model endpoint is configured:
 * those open to workers and recorded at its endpoint (never a job an `assay judge` run
 * keeps for itself, nor one judged at another endpoint). `assay worker` processes may
 * judge beside it: on PostgreSQL, or on embedded PGlite through this server. While the database cannot be reached the worker waits for it
 * (logged once); when the model endpoint cannot be reached it pauses (30 s, doubling up to
 * 10 min, logged with the URL) and tries again; a worker that fails otherwise is logged
 * and started again after 5 s.
 */
function startBackgroundWorker(
  database: AssayDb,
  options: StartServerOptions,
  log: (line: string) => void,
): BackgroundWorker | undefined {
  const { config } = options;
  if (!hasJudgeEndpoint(config) || config.serverWorker === false) {
    const why = config.serverWorker === false ? 'ASSAY_SERVER_WORKER=0' : 'no model endpoint';
    log(
      database.kind === 'postgres'
        ? `judge jobs are not judged by this server (${why}); run \`assay worker\` with the same DATABASE_URL`
        : database.socket
          ? `judge jobs are not judged by this server (${why}); run \`assay worker\` on the same data directory, or restart it with OPENAI_BASE_URL (or OPENAI_API_KEY) set to judge them`
          : `judge jobs are not judged by this server (${why}); restart it with OPENAI_BASE_URL (or OPENAI_API_KEY) set to judge them`,
    );
    return undefined;
  }
  const concurrency = options.workerConcurrency ?? 8;
  const controller = new AbortController();
  const { signal } = controller;
  // Where calls go, never the key (nor credentials or a query in the URL).
  const endpoint = judgeEndpointIdentity(config);
  log(
    `judging judge jobs in this server: the jobs open to workers at ${endpoint}, ${concurrency} items at a time plus up to ${maxHeldTasks(concurrency) - concurrency} claimed ahead (a job's progress.running counts both; ASSAY_SERVER_WORKER=0 turns this off)`,
  );
  const run = async () => {
    while (!signal.aborted) {
      // Failures of this run of the worker already logged.
      let reported = 0;
      try {
        const freed = await releaseDeadLocalLeases(database.db);
        if (freed > 0) log(`judge worker: took back ${freed} items from a stopped process`);
        const result = await startJudgeWorker(database.db, {
          config,
          ...(options.workerTimeoutMs === undefined
            ? {}
            : { endpoint: { timeoutMs: options.workerTimeoutMs } }),
          concurrency,
          follow: true,
          signal,
          cancelAfterMs: options.workerStopGraceMs ?? 5_000,
          ...(options.workerPollMs === undefined ? {} : { pollMs: options.workerPollMs }),
          ...(options.endpointPauseMs === undefined
            ? {}
            : { endpointPauseMs: options.endpointPauseMs }),
          onNotice: (message) => log(`judge worker: ${message}`),
          onProgress: (p) => {
            // The first failure, then each time the count doubles: a bad endpoint stays quiet.
            if (p.failed === 0 || p.failed < Math.max(1, reported * 2)) return;
            reported = p.failed;
            log(
              `judge worker: ${p.failed} items failed so far (GET /api/judge-jobs/{id}/failures lists them)`,
            );
          },
        });
        if (result.unwrittenCalls > 0)
          log(
            `judge worker: ${result.unwrittenCalls} answered calls could not be stored before stopping (the database was out of reach)`,
          );
      } catch (error) {
        if (signal.aborted) break;
        log(`judge worker stopped on an error, restarting in 5 s: ${(error as Error).message}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    }
  };
  const stopped = run().catch((error: unknown) => {
    log(`judge worker failed: ${(error as Error).message}`);
  });
  return { abort: () => controller.abort(), stopped };
}

/**
 * A first start gets something to look at: the Cranfield collection with its judgments,
 * loaded before the server listens (its id is returned; undefined when the database had
 * collections already or the demo could not be loaded).
 */
async function seedDemo(
  database: AssayDb,
  log: (line: string) => void,
): Promise<number | undefined> {
  if ((await listCollections(database.db)).length > 0) return undefined;
  try {
    const loaded = await loadDataset(database.db, 'cranfield');
    log(
      `loaded the Cranfield demo collection: ${loaded.documents} documents, ${loaded.topics} topics, ${loaded.labels} judgments; retrieving its demo runs in the background`,
    );
    return loaded.collectionId;
  } catch (error) {
    // The demo is a convenience: a server without it is still a working server.
    log(`could not load the Cranfield demo collection: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The demo's runs (bm25, rm3, rocchio), retrieved once the server listens so that the
 * first start stays quick; the promise settles when they are stored and never rejects.
 */
function storeDemoRunsInBackground(
  database: AssayDb,
  collectionId: number,
  log: (line: string) => void,
): Promise<void> {
  return storeDemoRuns(database.db, collectionId).then(
    (runs) => log(`stored the demo runs of cranfield: ${runs.map((r) => r.name).join(', ')}`),
    (error: Error) => log(`could not store the demo runs of cranfield: ${error.message}`),
  );
}

function announceAdmin(
  token: string | undefined,
  config: AssayConfig,
  url: string,
  log: (line: string) => void,
): void {
  if (config.adminToken || token === undefined) {
    log('created the admin user with the token from ASSAY_ADMIN_TOKEN');
    return;
  }
  // The one time the token is shown: only its hash is stored.
  log(
    [
      'created the admin user; its API token is shown only this once, so keep it:',
      '',
      `  ${token}`,
      '',
      'send it as a bearer token, for example:',
      `  curl -H "Authorization: Bearer ${token}" ${url}/collections`,
      '',
    ].join('\n'),
  );
}
