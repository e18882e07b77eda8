import { migrateDatabase } from '@assay/platform';
import { commandHelp, getopt, HELP_OPTION, type OptionSpec, UsageError } from '../shell/getopt.js';
import { CliError } from '../shell/io.js';
import {
  EXIT,
  commandConfig,
  describeDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';

/** The options of `assay db`: only its help. */
const DB_OPTIONS: readonly OptionSpec[] = [HELP_OPTION];

export const DB_USAGE = commandHelp({
  usage: 'assay db migrate',
  about: `Applies pending migrations (migrations/NNNN_verb_noun.sql, each in its own transaction)
to the configured database: PostgreSQL when DATABASE_URL is set, else embedded PGlite
under ASSAY_DATA_DIR (default ./.assay). Safe to run from several processes at once.
Other assay commands migrate on start too; this one only migrates, and says what it did.`,
  sections: [{ specs: DB_OPTIONS }],
  notes: 'Exit status: 0 migrated or up to date; 1 usage, configuration or database error.',
});

/** `assay db migrate`. */
export async function dbCommand(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const parsed = getopt(argv, DB_OPTIONS);
  const [what, ...rest] = parsed.positionals;
  if (parsed.has('help') || what === undefined) {
    io.stdout(`${DB_USAGE}\n`);
    return parsed.has('help') ? EXIT.ok : EXIT.usage;
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
