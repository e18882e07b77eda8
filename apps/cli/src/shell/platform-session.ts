import { isAbsolute, resolve } from 'node:path';
import {
  isDatabaseUnavailable,
  type AssayDb,
  ConfigError,
  loadConfig,
  openDatabase,
  PlatformError,
  type AssayConfig,
} from '@assay/platform';
import { EXIT } from './exit-codes.js';
import { CliError, type CommandIo } from './io.js';

/** CommandIo plus the environment to read the configuration from (tests pass their own). */
export interface PlatformCommandIo extends CommandIo {
  env?: Record<string, string | undefined>;
}

/** The exit statuses (also here for the commands that take them from the session). */
export { EXIT };

const EXIT_BY_CODE: Record<PlatformError['code'], number> = {
  invalid_input: EXIT.invalidInput,
  not_found: EXIT.notFound,
  conflict: EXIT.conflict,
  unauthorized: EXIT.usage,
  forbidden: EXIT.usage,
};

/** Turns platform and configuration errors into one-line CLI errors with their exit status. */
export async function asCliErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PlatformError) {
      // A conflict that replacing resolves names the CLI's way of asking for it.
      const hint = error.details?.replaceable === true ? '; use --replace to overwrite it' : '';
      throw new CliError(`${error.message}${hint}`, EXIT_BY_CODE[error.code]);
    }
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/** The configuration from the command's environment. */
export function commandConfig(io: PlatformCommandIo): Promise<AssayConfig> {
  return asCliErrors(async () => loadConfig(io.env ?? process.env));
}

/** Where the configured database is, for messages (never the URL: it may hold a password). */
export function describeDatabase(config: AssayConfig): string {
  if (!config.databaseUrl) return `embedded PGlite in ${resolve(config.dataDir, 'pglite')}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * How a command reaches its database. Through `assay serve` (`via`), a database out of
 * reach for `giveUpMs` means the server stopped: long-running commands give up on it then
 * (a restart of the server within that time is ridden out). Without `via` they wait for the
 * database as long as it takes.
 */
export interface DatabaseSession {
  via?: string;
  giveUpMs?: number;
}

/** How long a command going through `assay serve` waits for it to come back. */
const SERVER_GONE_GIVE_UP_MS = 15_000;

/**
 * Opens the configured database (migrating it), runs `work`, and closes it whatever
 * happens; platform errors become CLI errors.
 */
export async function withDatabase<T>(
  io: PlatformCommandIo,
  work: (db: AssayDb['db'], config: AssayConfig, session: DatabaseSession) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const config = await commandConfig(io);
  let database: AssayDb;
  try {
    database = await openDatabase(config, options);
  } catch (error) {
    throw new CliError(
      `cannot open the database (${describeDatabase(config)}): ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  // Which store a command uses must never be a surprise: say it whenever it depends on
  // the working directory (ASSAY_DATA_DIR unset or relative), or goes through a server.
  const named = (io.env ?? process.env).ASSAY_DATA_DIR?.trim();
  if (database.via) {
    io.stderr(`assay: data directory ${resolve(config.dataDir)}, through ${database.via}\n`);
  } else if (!config.databaseUrl && !(named && isAbsolute(named))) {
    io.stderr(`assay: data directory ${resolve(config.dataDir)}\n`);
  }
  try {
    const session: DatabaseSession = database.via
      ? { via: database.via, giveUpMs: SERVER_GONE_GIVE_UP_MS }
      : {};
    return await asCliErrors(() => work(database.db, config, session));
  } catch (error) {
    if (database.via && isDatabaseUnavailable(error))
      throw new CliError(
        `lost the database: ${database.via} stopped or cut this command off (${(error as Error).message}); run the command again`,
        EXIT.usage,
      );
    throw error;
  } finally {
    await database.close();
  }
}

/** `1234 lines in 0.52 s (2373 lines/s)`; `units` is the plural (`lines`, `documents`). */
export function throughput(count: number, units: string, seconds: number): string {
  const counted = count === 1 ? units.replace(/s$/, '') : units;
  return `${count} ${counted} in ${seconds.toFixed(2)} s (${Math.round(count / Math.max(seconds, 1e-3))} ${units}/s)`;
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}
