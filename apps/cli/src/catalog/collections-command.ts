import { deleteCollection, PlatformError } from '@assay/platform';
import { commandHelp, FLAG, getopt, HELP_OPTION, UsageError, type OptionSpec } from '../shell/getopt.js';
import { CliError } from '../shell/io.js';
import {
  EXIT,
  describeDatabase,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';

/** The options of `assay collections delete`. */
export const COLLECTIONS_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'force',
    key: 'force',
    kind: FLAG,
    help: `also when reports of the collection are published as leaderboards,
which are then unpublished and deleted too (without it such a collection
is kept and the leaderboards are named)`,
  },
  HELP_OPTION,
];

export const COLLECTIONS_USAGE = commandHelp({
  usage: 'assay collections delete NAME [--force]',
  about: `Deletes collection NAME (or its id) from the configured database (PostgreSQL when
DATABASE_URL is set, else embedded PGlite under ASSAY_DATA_DIR) with its documents,
topics, runs, label sets, judge jobs, campaigns and reports, in one transaction, and says
what went; as DELETE /api/collections/{collection}.`,
  sections: [{ specs: COLLECTIONS_OPTIONS }],
  notes: `Exit status: 0 deleted; 1 usage, configuration or database error; 3 no such collection;
4 kept because of published leaderboards (delete again with --force).`,
});

/** `assay collections delete NAME [--force]`. */
export async function collectionsCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const parsed = getopt(argv, COLLECTIONS_OPTIONS);
  const [what, ...positionals] = parsed.positionals;
  if (parsed.has('help') || what === undefined) {
    io.stdout(`${COLLECTIONS_USAGE}\n`);
    return parsed.has('help') ? EXIT.ok : EXIT.usage;
  }
  if (what !== 'delete') throw new UsageError(`unknown collections command '${what}' (delete)`);
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
