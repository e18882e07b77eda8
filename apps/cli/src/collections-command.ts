import { deleteCollection, PlatformError } from '@assay/platform';
import { FLAG, getopt, HELP_OPTION, UsageError, type OptionSpec } from './getopt.js';
import { CliError } from './io.js';
import {
  EXIT,
  describeDatabase,
  withDatabase,
  type PlatformCommandIo,
} from './platform-session.js';

export const COLLECTIONS_USAGE = `Usage: assay collections delete NAME [--force]

  delete NAME   delete collection NAME (or its id) from the configured database
                (PostgreSQL when DATABASE_URL is set, else embedded PGlite under
                ASSAY_DATA_DIR) with its documents, topics, runs, label sets, judge jobs,
                campaigns and reports, in one transaction, and say what went; as
                DELETE /api/collections/{collection}
  --force       also when reports of the collection are published as leaderboards,
                which are then unpublished and deleted too (without it such a collection
                is kept and the leaderboards are named)

Exit status: 0 deleted; 1 usage, configuration or database error; 3 no such collection;
4 kept because of published leaderboards (delete again with --force).`;

/** The options of `assay collections delete`. */
const COLLECTIONS_OPTIONS: readonly OptionSpec[] = [
  { long: 'force', key: 'force', kind: FLAG },
  HELP_OPTION,
];

/** `assay collections delete NAME [--force]`. */
export async function collectionsCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help' || rest.includes('--help')) {
    io.stdout(`${COLLECTIONS_USAGE}\n`);
    return what === undefined ? EXIT.usage : 0;
  }
  if (what !== 'delete') throw new UsageError(`unknown collections command '${what}' (delete)`);
  const parsed = getopt(rest, COLLECTIONS_OPTIONS);
  if (parsed.has('help')) {
    io.stdout(`${COLLECTIONS_USAGE}\n`);
    return 0;
  }
  const { positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError("'collections delete' takes one collection NAME");
  const name = positionals[0]!;
  return withDatabase(io, async (db, config) => {
    let deleted;
    try {
      deleted = await deleteCollection(db, name, { force: parsed.has('force') });
    } catch (error) {
      const leaderboards = (error as PlatformError).details?.leaderboards;
      if (
        error instanceof PlatformError &&
        error.code === 'conflict' &&
        Array.isArray(leaderboards)
      )
        throw new CliError(
          `collection "${name}" was kept: its reports are published as leaderboards (${leaderboards.join(', ')}); unpublish them first, or run 'assay collections delete ${name} --force' to delete them too`,
          EXIT.conflict,
        );
      throw error;
    }
    const boards = deleted.leaderboards;
    io.stdout(
      `deleted collection "${deleted.name}" (id ${deleted.id}) from ${describeDatabase(config)}: ` +
        `${deleted.runs} run(s), ${deleted.labelSets} label set(s), ${deleted.reports} report(s)` +
        (boards.length > 0
          ? `, published leaderboard(s) ${boards.join(', ')}`
          : ', no leaderboard') +
        ' with its documents and topics\n',
    );
    return 0;
  });
}
