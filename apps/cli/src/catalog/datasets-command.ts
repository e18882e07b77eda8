import { listDatasets, loadDataset } from '@assay/platform';
import { commandHelp, getopt, HELP_OPTION, type OptionSpec, UsageError } from '../shell/getopt.js';
import {
  EXIT,
  describeDatabase,
  secondsSince,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';

/** The options of `assay datasets`: only its help. */
const DATASETS_OPTIONS: readonly OptionSpec[] = [HELP_OPTION];

export const DATASETS_USAGE = commandHelp({
  usage: `assay datasets list
       assay datasets load NAME`,
  about: `Datasets shipped with assay in datasets/ (see datasets/<name>/README.md for provenance,
licence and how assay maps ids and grades).

  list        the shipped datasets: name, then description
  load NAME   load one into the configured database (PostgreSQL when DATABASE_URL is
              set, else embedded PGlite under ASSAY_DATA_DIR) as collection NAME with its
              topics and judgments, in one transaction`,
  sections: [{ specs: DATASETS_OPTIONS }],
  notes: `Exit status: 0 done; 1 usage, configuration or database error; 3 unknown dataset;
4 already loaded.`,
});

/** `assay datasets list|load NAME`. */
export async function datasetsCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const parsed = getopt(argv, DATASETS_OPTIONS);
  const [what, ...rest] = parsed.positionals;
  if (parsed.has('help') || what === undefined) {
    io.stdout(`${DATASETS_USAGE}\n`);
    return parsed.has('help') ? EXIT.ok : EXIT.usage;
  }
  if (what === 'list') {
    if (rest.length > 0) throw new UsageError("'datasets list' takes no arguments");
    for (const d of listDatasets()) io.stdout(`${d.name}\t${d.description}\n`);
    return 0;
  }
  if (what === 'load') {
    if (rest.length !== 1) throw new UsageError("'datasets load' takes one dataset NAME");
    const name = rest[0]!;
    return withDatabase(io, async (db, config) => {
      const started = performance.now();
      const r = await loadDataset(db, name);
      io.stdout(
        `loaded dataset "${name}" into ${describeDatabase(config)} in ${secondsSince(started).toFixed(1)} s: collection "${r.name}" (id ${r.collectionId}) with ${r.documents} documents and ${r.topics} topics, label set "${r.labelSet}" with ${r.labels} judgments\n`,
      );
      return 0;
    });
  }
  throw new UsageError(`unknown datasets command '${what}' (list or load)`);
}
