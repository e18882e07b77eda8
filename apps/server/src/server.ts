import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listCollections, type AssayDb } from '@assay/db';
import { ensureAdmin, loadDataset, openDatabase, type AssayConfig } from '@assay/platform';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  config: AssayConfig;
  /** An open database to serve; by default one is opened (and migrated) from `config`. */
  db?: AssayDb;
  /** Where the server's messages go, one line per call (default: stdout). */
  log?: (line: string) => void;
  /** Interface to listen on (default: all). */
  hostname?: string;
}

/** A listening server. */
export interface RunningServer {
  /** The port it listens on (the real one when config.port was 0). */
  port: number;
  /** Base URL of the API, e.g. http://localhost:8080/api. */
  url: string;
  /**
   * Stops accepting connections, lets requests in flight finish (up to `graceMs`, default
   * 10 s), then closes the database if startServer opened it.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Starts assay's API server: opens and migrates the configured database, loads the
 * Cranfield demo into a database without collections, creates the first admin (printing
 * its token once), and listens on config.port.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const database = options.db ?? (await openDatabase(config));
  const ownsDatabase = options.db === undefined;
  try {
    await seedDemo(database, log);
    const admin = await ensureAdmin(
      database.db,
      config.adminToken ? { token: config.adminToken } : {},
    );
    const app = createApp({ db: database.db, config, log });
    const server = createAdaptorServer({ fetch: app.fetch }) as Server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, options.hostname, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const url = `http://localhost:${port}/api`;
    const where =
      database.kind === 'postgres'
        ? 'PostgreSQL (DATABASE_URL)'
        : `embedded PGlite in ${config.dataDir}/pglite`;
    log(
      `assay is serving ${url} (database: ${where}); API reference: ${url}/openapi.json; stop with Ctrl-C`,
    );
    if (admin.created) announceAdmin(admin.token, config, url, log);
    return {
      port,
      url,
      close: async ({ graceMs = 10_000 } = {}) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(timer);
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
}

/** A first start gets something to look at: the Cranfield collection with its judgments. */
async function seedDemo(database: AssayDb, log: (line: string) => void): Promise<void> {
  if ((await listCollections(database.db)).length > 0) return;
  try {
    const loaded = await loadDataset(database.db, 'cranfield');
    log(
      `loaded the Cranfield demo collection: ${loaded.documents} documents, ${loaded.topics} topics, ${loaded.labels} judgments`,
    );
  } catch (error) {
    // The demo is a convenience: a server without it is still a working server.
    log(`could not load the Cranfield demo collection: ${(error as Error).message}`);
  }
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
