import { migrateDatabase } from '@assay/platform';
import { UsageError } from './getopt.js';
import { CliError } from './io.js';
import {
  EXIT,
  commandConfig,
  describeDatabase,
  type PlatformCommandIo,
} from './platform-session.js';

export const DB_USAGE = `Usage: assay db migrate

Applies pending migrations (migrations/NNNN_verb_noun.sql, each in its own transaction)
to the configured database: PostgreSQL when DATABASE_URL is set, else embedded PGlite
under ASSAY_DATA_DIR (default ./.assay). Safe to run from several processes at once.
Other assay commands migrate on start too; this one only migrates, and says what it did.

Exit status: 0 migrated or up to date; 1 usage, configuration or database error.`;

/** `assay db migrate`. */
export async function dbCommand(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help') {
    io.stdout(`${DB_USAGE}\n`);
    return what === undefined ? EXIT.usage : 0;
  }
  if (what !== 'migrate') throw new UsageError(`unknown db command '${what}' (migrate)`);
  if (rest.length > 0) throw new UsageError("'db migrate' takes no arguments");
  const config = await commandConfig(io);
  let result;
  try {
    result = await migrateDatabase(config);
  } catch (error) {
    throw new CliError(
      `cannot migrate the database (${describeDatabase(config)}): ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  for (const name of result.applied) io.stdout(`applied ${name}\n`);
  const total = result.applied.length + result.skipped.length;
  io.stdout(
    result.applied.length > 0
      ? `${describeDatabase(config)}: ${result.applied.length} migration(s) applied, ${total} in all\n`
      : `${describeDatabase(config)}: up to date (${total} migration(s))\n`,
  );
  return 0;
}
