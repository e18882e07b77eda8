import {
  createNuggetBankWithLlm,
  exportNuggetBank,
  importAssessmentSet,
  importNuggetBank,
  nuggetBankBatchStep,
  type CreateNuggetBankInput,
} from '@assay/platform';
import { readText } from '../eval/evaluate-files.js';
import { EXIT } from '../shell/exit-codes.js';
import {
  commandHelp,
  FILE,
  FLAG,
  integer,
  type OptionSpec,
  type ParsedArgs,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';
import {
  ANSWER_OPTIONS,
  LLM_STEP_OPTIONS,
  parseOptions,
  reportStep,
  required,
  responseSetOf,
  scoreCommand,
  scoreOptions,
  runStepBatch,
  stepRunOptions,
  stepDeps,
  stepSetup,
  stepTemplate,
  runSubcommand,
} from './rag-cli.js';
import { assignCommand } from './assign.js';
import { writeAtomically } from '../shell/write-atomically.js';

const BANK: OptionSpec[] = [
  {
    long: 'collection',
    key: 'collection',
    kind: TEXT,
    arg: 'NAME',
    help: 'the collection the nugget bank belongs to',
  },
  { long: 'bank', key: 'bank', kind: TEXT, arg: 'NAME', help: 'the nugget bank' },
];

const VERSION: OptionSpec = {
  long: 'version',
  key: 'version',
  kind: integer({ min: 1 }),
  arg: 'N',
  help: "the bank's version (default: the latest)",
};

const IMPORT_OPTIONS: OptionSpec[] = [
  ...BANK,
  {
    long: 'create-collection',
    key: 'createCollection',
    kind: FLAG,
    help: 'make the collection (without documents) when there is none of that name',
  },
  {
    long: 'assignments',
    key: 'assignments',
    kind: FLAG,
    help: `FILE holds assignments made elsewhere (e.g. NIST's), in nuggetizer's form:
store them as an assessment set --name of the answers of --responses or
--response-set, matched to the bank's nuggets by topic and text`,
  },
  VERSION,
  ...ANSWER_OPTIONS,
  {
    long: 'name',
    key: 'name',
    kind: TEXT,
    arg: 'NAME',
    help: 'with --assignments: the assessment set',
  },
];

const EXPORT_OPTIONS: OptionSpec[] = [
  ...BANK,
  VERSION,
  { long: 'out', key: 'out', kind: FILE, arg: 'FILE', help: 'write there instead of stdout' },
];

const CREATE_OPTIONS: OptionSpec[] = [
  ...BANK,
  {
    long: 'label-set',
    key: 'labelSet',
    kind: TEXT,
    arg: 'NAME',
    help: 'the label set whose relevant passages the nuggets come from',
  },
  {
    long: 'min-grade',
    key: 'minGrade',
    kind: integer(),
    arg: 'G',
    help: 'a passage graded G or more is relevant (default 1)',
  },
  {
    long: 'topic',
    key: 'topic',
    kind: TEXT,
    arg: 'ID',
    help: 'only this topic (repeatable; default every topic with relevant passages)',
  },
  {
    long: 'batch',
    key: 'batch',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'passages per creation call (default 10)',
  },
  {
    long: 'max-nuggets',
    key: 'maxNuggets',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'most nuggets per topic (default 30)',
  },
  {
    long: 'score-batch',
    key: 'scoreBatch',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'nuggets per importance call (default 10)',
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'the creation prompt (default nugget-create)',
  },
  {
    long: 'importance-judge',
    key: 'importanceJudge',
    kind: TEXT,
    arg: 'ID',
    help: 'the importance prompt (default nugget-importance)',
  },
  ...LLM_STEP_OPTIONS,
];

const ASSIGN_OPTIONS: OptionSpec[] = [
  ...BANK,
  VERSION,
  ...ANSWER_OPTIONS,
  {
    long: 'name',
    key: 'name',
    kind: TEXT,
    arg: 'NAME',
    help: 'the assessment set (default <response set>-<model>); a rerun names the same',
  },
  {
    long: 'batch',
    key: 'batch',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'nuggets per call (default 10)',
  },
  {
    long: 'out',
    key: 'out',
    kind: FILE,
    arg: 'FILE',
    help: `the assignments in nuggetizer's form, one line per topic and system:
{"qid","system","nuggets":[{"text","importance","assignment"}]}`,
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'the assignment prompt (default nugget-assign)',
  },
  ...LLM_STEP_OPTIONS,
];

export const NUGGETS_USAGE = commandHelp({
  usage: `assay nuggets import FILE --collection NAME --bank NAME [--create-collection]
       assay nuggets import FILE --assignments --collection NAME --bank NAME [--version N]
                            (--responses FILE | --response-set NAME) --name NAME
       assay nuggets export --collection NAME --bank NAME [--version N] [--out FILE]
       assay nuggets create --collection NAME --bank NAME --label-set NAME [--min-grade G]
                            [--topic ID]... [--batch N] [--max-nuggets N] [--score-batch N]
                            [--model M] [--dry-run] [--budget USD] [...]
       assay nuggets assign --collection NAME --bank NAME [--version N]
                            (--responses FILE | --response-set NAME) [--name NAME]
                            [--batch N] [--out FILE] [--model M] [--dry-run] [--budget USD] [...]
       assay nuggets score FILE | --collection NAME --set NAME [--store [--publish SLUG]] [...]`,
  about: `Nugget evaluation of generated answers as the TREC RAG track runs it (AutoNuggetizer).
A nugget bank (per collection, in versions) holds each topic's nuggets, vital or okay:
import reads {"qid","nuggets":[{"text","importance",…}]} per line and keeps every other
field (export writes them back); importing the same nuggets again writes no new version.
create makes a bank with an LLM from the passages a label set grades G or more: passages
in batches, the nugget list updated after each, at most 30 nuggets, then each labelled
vital or okay. import --assignments stores assignments made elsewhere (nuggetizer's
form) as an assessment set, to score or to compare with others. assign has an LLM label each nugget of each answer's topic support,
partial_support or not_support, a batch of nuggets per call, into an assessment set of the
collection. Every call is stored: running the same command again sends no request already
answered, and finishes what a crash, Ctrl-C or --budget left.

score reads assignments in nuggetizer's form (a FILE, e.g. NIST's, or a stored set) and
prints per system the mean over topics of strict vital, vital, strict all, all (partial
support counts 0.5 in the non-strict ones) and weighted (vital 1, okay 0.5) with 95%
bootstrap intervals and paired tests with corrections, as assay compare does.`,
  sections: [
    { title: 'import options', specs: IMPORT_OPTIONS },
    { title: 'export options', specs: EXPORT_OPTIONS },
    { title: 'create options', specs: CREATE_OPTIONS },
    { title: 'assign options', specs: ASSIGN_OPTIONS },
    { title: 'score options', specs: scoreOptions('nuggets') },
  ],
  notes: `Exit status: 0 done; 1 usage or configuration; 2 malformed input (file:line); 3 no such
collection, bank, set or response set; 4 a name taken by something else; 5 some items
failed (stored with the raw answer); 6 stopped by --budget with items left.`,
});

function versionOf(p: ParsedArgs): number | undefined {
  return p.number('version');
}

async function importSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const p = parseOptions(argv, IMPORT_OPTIONS);
  if (p.positionals.length !== 1) throw new UsageError('give one nugget bank FILE');
  const collection = required(p, 'collection', '--collection');
  const bank = required(p, 'bank', '--bank');
  const file = p.positionals[0]!;
  const text = readText(file);
  if (p.has('assignments')) return importAssignments(p, io, { collection, bank, file, text });
  return withDatabase(io, async (db) => {
    const stored = await importNuggetBank(db, {
      collection,
      bank,
      text,
      file,
      createCollection: p.has('createCollection'),
    });
    const v = stored.version;
    io.stdout(
      `${stored.created ? 'stored' : 'unchanged:'} nugget bank "${stored.bank.name}" version ${v.version}: ` +
        `${v.topicCount} topics, ${v.nuggets} nuggets (${v.vital} vital, ${v.okay} okay)\n`,
    );
    return EXIT.ok;
  });
}

/** `import --assignments`: judgments made elsewhere stored as an imported assessment set. */
function importAssignments(
  p: ReturnType<typeof parseOptions>,
  io: PlatformCommandIo,
  input: { collection: string; bank: string; file: string; text: string },
): Promise<number> {
  const name = required(p, 'name', '--name');
  const version = versionOf(p);
  return withDatabase(io, async (db) => {
    const responseSet = await responseSetOf(p, db, io);
    const set = await importAssessmentSet(db, {
      collection: input.collection,
      kind: 'nuggets',
      name,
      responseSet,
      bank: { name: input.bank, ...(version === undefined ? {} : { version }) },
      text: input.text,
      file: input.file,
    });
    io.stdout(
      `stored nuggets assessment set "${set.name}" (id ${set.id}): ${set.judged} items judged\n`,
    );
    return EXIT.ok;
  });
}

async function exportSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const p = parseOptions(argv, EXPORT_OPTIONS);
  if (p.positionals.length) throw new UsageError(`unexpected argument ${p.positionals[0]}`);
  const collection = required(p, 'collection', '--collection');
  const bank = required(p, 'bank', '--bank');
  const version = versionOf(p);
  return withDatabase(io, async (db) => {
    const text = await exportNuggetBank(db, {
      collection,
      bank,
      ...(version === undefined ? {} : { version }),
    });
    const out = p.option('out');
    if (out === undefined) io.stdout(text);
    else writeAtomically(out, text);
    return EXIT.ok;
  });
}

async function createSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const p = parseOptions(argv, CREATE_OPTIONS);
  if (p.positionals.length) throw new UsageError(`unexpected argument ${p.positionals[0]}`);
  const collection = required(p, 'collection', '--collection');
  const bank = required(p, 'bank', '--bank');
  const labelSet = required(p, 'labelSet', '--label-set');
  const creator = stepTemplate(p, 'nugget-create', 'nugget-creation');
  const scorer = stepTemplate(p, 'nugget-importance', 'nugget-importance', 'importanceJudge');
  const minGrade = p.number('minGrade');
  const batchSize = p.number('batch');
  const maxNuggets = p.number('maxNuggets');
  const scoreBatch = p.number('scoreBatch');
  const numbers = {
    ...(batchSize === undefined ? {} : { batchSize }),
    ...(maxNuggets === undefined ? {} : { maxNuggets }),
    ...(scoreBatch === undefined ? {} : { scoreBatch }),
  };
  const topics = p.all('topic');
  const setup = await stepSetup(p, io, creator);
  return withDatabase(io, async (db) => {
    const deps = stepDeps(setup, db);
    const input: CreateNuggetBankInput = {
      collection,
      bank,
      labelSet,
      ...(minGrade === undefined ? {} : { minGrade }),
      ...(topics.length ? { topics } : {}),
      creator,
      scorer,
      ...numbers,
      ...stepRunOptions(setup),
    };
    const batched = await runStepBatch(
      io,
      'assay nuggets create',
      setup,
      db,
      deps,
      nuggetBankBatchStep(db, deps, input),
    );
    if (batched !== undefined) return batched;
    const result = await createNuggetBankWithLlm(db, deps, input);
    for (const s of result.skipped) io.stderr(`topic ${s.topic} left out: ${s.reason}\n`);
    if (result.missingPassages)
      io.stderr(
        `${result.missingPassages} relevant passages are not in the collection and were left out\n`,
      );
    reportStep(io, `nuggets for ${result.topics.length} topics`, setup.model, result.report);
    if (setup.dryRun) return EXIT.ok;
    const failed = result.topics.flatMap((t) => (t.status === 'failed' ? [t] : []));
    for (const f of failed)
      io.stderr(
        `failed: topic ${f.topicId}: ${f.reason}${f.raw === undefined ? '' : `\n  raw answer: ${JSON.stringify(f.raw.slice(0, 300))}`}\n`,
      );
    const pending = result.topics.filter((t) => t.status === 'not_sent').length;
    if (pending > 0) {
      io.stderr(
        `${pending} topics not finished (the budget was reached); nothing stored: run the same command again\n`,
      );
      return EXIT.judgeStopped;
    }
    if (result.stored) {
      const v = result.stored.version;
      io.stdout(
        `${result.stored.created ? 'stored' : 'unchanged:'} nugget bank "${result.stored.bank.name}" version ${v.version}: ` +
          `${v.topicCount} topics, ${v.nuggets} nuggets (${v.vital} vital, ${v.okay} okay)\n`,
      );
    }
    return failed.length ? EXIT.judgeFailed : EXIT.ok;
  });
}

function assignSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  return assignCommand(argv, io, ASSIGN_OPTIONS, {
    kind: 'nuggets',
    command: 'assay nuggets assign',
    judge: 'nugget-assignment',
    basis: (p) => {
      const bank = required(p, 'bank', '--bank');
      const version = versionOf(p);
      return async () => ({ bank: { name: bank, ...(version === undefined ? {} : { version }) } });
    },
    describe: (result) =>
      `nugget assignment of ${result.answers} answers (${result.items} nuggets)`,
  });
}

/** `assay nuggets import|export|create|assign|score`. */
export async function nuggetsCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  return runSubcommand(argv, io, NUGGETS_USAGE, {
    import: (rest) => importSub(rest, io),
    export: (rest) => exportSub(rest, io),
    create: (rest) => createSub(rest, io),
    assign: (rest) => assignSub(rest, io),
    score: (rest) => scoreCommand('nuggets', rest, io, NUGGETS_USAGE),
  });
}
