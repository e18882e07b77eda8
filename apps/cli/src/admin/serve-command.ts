import { ConfigError, DatabaseInUseError, loadConfig, PlatformError } from '@assay/platform';
import { EXIT } from '../shell/exit-codes.js';
import { commandHelp, getopt, HELP_OPTION, type OptionSpec, TEXT, UsageError } from '../shell/getopt.js';
import { CliError, type CommandIo } from '../shell/io.js';
import { describeDatabase } from '../shell/platform-session.js';

export const SERVE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'port',
    key: 'port',
    kind: TEXT,
    arg: 'N',
    help: 'listen on port N (overrides PORT; checked as PORT is)',
  },
  HELP_OPTION,
];

export const SERVE_USAGE = commandHelp({
  usage: `assay serve [--port N]`,
  about: `Serves the assay API (npm start runs this) on PORT, default 8080, over PostgreSQL when
DATABASE_URL is set, else over embedded PGlite under ASSAY_DATA_DIR (default ./.assay).
It migrates the database, loads the Cranfield demo collection into an empty one, and on
first start creates the admin user and prints its API token once (or uses
ASSAY_ADMIN_TOKEN). With OPENAI_BASE_URL or OPENAI_API_KEY set it also judges the judge
jobs created through the API (ASSAY_SERVER_WORKER=0 leaves them to 'assay worker').
While it runs, the assay commands run on the same data directory use its embedded
database (and its store of LLM calls). Stop it with Ctrl-C (SIGINT) or SIGTERM.`,
  sections: [{ specs: SERVE_OPTIONS }],
  notes: `Exit status: 0 stopped; 1 usage or configuration error, a port in use, or a data directory
another process holds.`,
});

/** `assay serve`: runs the API server until SIGINT or SIGTERM. */
export async function serveCommand(
  argv: readonly string[],
  io: CommandIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const { options, positionals } = getopt(argv, SERVE_OPTIONS);
  if (options.has('help')) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const port = options.get('port')?.at(-1);
  let config;
  try {
    config = loadConfig(port === undefined ? env : { ...env, PORT: port });
  } catch (error) {
    if (error instanceof ConfigError) {
      const message =
        port !== undefined && /^PORT /.test(error.message)
          ? `--port ${error.message.slice('PORT '.length)}`
          : error.message;
      throw new CliError(message, 1);
    }
    throw error;
  }
  // The server code (Hono, the database drivers) loads only when serving.
  const { startServer } = await import('@assay/server');
  let server;
  try {
    server = await startServer({
      config,
      log: (line) => io.stdout(`${line}\n`),
      warn: (line) => io.stderr(`${line}\n`),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`port ${config.port} is in use; choose another with --port N or PORT`, 1);
    if (code === 'EACCES')
      throw new CliError(`not allowed to listen on port ${config.port}; choose one above 1023`, 1);
    if (error instanceof PlatformError) throw new CliError(error.message, 1);
    // Another process holds the embedded data directory (a second server, say).
    if (error instanceof DatabaseInUseError)
      throw new CliError(
        `cannot open the database (${describeDatabase(config)}): ${error.message}`,
        EXIT.usage,
      );
    throw error;
  }
  const running = server;
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second Ctrl-C does not wait for requests in flight.
        io.stderr(`assay serve: ${signal} again, exiting now\n`);
        process.exit(130);
      }
      stopping = true;
      io.stdout(`${signal}: finishing requests in flight and closing the database…\n`);
      running.close().then(
        () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        },
        (error: unknown) => {
          io.stderr(`assay serve: error while closing: ${(error as Error).message}\n`);
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  io.stdout('assay serve: stopped\n');
  return 0;
}
