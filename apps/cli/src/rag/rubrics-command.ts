import { basename, extname } from 'node:path';
import { importRubricSet } from '@assay/platform';
import { readText } from '../eval/evaluate-files.js';
import {
  commandHelp,
  FILE,
  FLAG,
  integer,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import type { PlatformCommandIo } from '../shell/platform-session.js';
import { assignCommand } from './assign.js';
import {
  ANSWER_OPTIONS,
  LLM_STEP_OPTIONS,
  scoreCommand,
  scoreOptions,
  runSubcommand,
  storedWord,
} from './rag-cli.js';

const ASSIGN_OPTIONS: OptionSpec[] = [
  {
    long: 'collection',
    key: 'collection',
    kind: TEXT,
    arg: 'NAME',
    help: 'the collection the rubrics belong to',
  },
  {
    long: 'rubrics',
    key: 'rubrics',
    kind: FILE,
    arg: 'FILE',
    help: `per-topic rubrics, JSONL {"qid","rubrics":[{"criterion","weight","axis"}]}
(weights -5..5); stored as a rubric set named after the file (the same
file again reuses it)`,
  },
  {
    long: 'rubric-set',
    key: 'rubricSet',
    kind: TEXT,
    arg: 'NAME',
    help: 'a stored rubric set instead of --rubrics',
  },
  {
    long: 'create-collection',
    key: 'createCollection',
    kind: FLAG,
    help: 'with --rubrics: make the collection when there is none of that name',
  },
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
    help: 'criteria per call (default 10)',
  },
  {
    long: 'out',
    key: 'out',
    kind: FILE,
    arg: 'FILE',
    help: `the judgments, one line per topic and system:
{"qid","system","criteria":[{"criterion","weight","axis","judgment"}]}`,
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'the rubric prompt (default rubric-judge)',
  },
  ...LLM_STEP_OPTIONS,
];

export const RUBRICS_USAGE = commandHelp({
  usage: `assay rubrics assign --collection NAME (--rubrics FILE | --rubric-set NAME)
                            (--responses FILE | --response-set NAME) [--name NAME] [--batch N]
                            [--out FILE] [--model M] [--dry-run] [--budget USD] [...]
       assay rubrics score FILE | --collection NAME --set NAME [--store [--publish SLUG]] [...]`,
  about: `Per-topic weighted rubrics (criteria with weights from -5 to 5 on named axes, the form of
ResearchRubrics as TREC RAG 2026 uses it). assign has an LLM judge each criterion of the
answer's topic met, partly_met or not_met, a batch of criteria per call. Every call is
stored: running the same command again sends no request already answered.

score prints per system the mean over topics of the rubric score: the weighted sum over
the criteria an answer meets (partly met counts 0.5; a met criterion of negative weight
subtracts) over the sum of the positive weights; the table and JSON add the mean per axis.`,
  sections: [
    { title: 'assign options', specs: ASSIGN_OPTIONS },
    { title: 'score options', specs: scoreOptions('rubric') },
  ],
  notes: `Exit status: 0 done; 1 usage or configuration; 2 malformed input (file:line); 3 not
found; 4 a name taken by something else; 5 some items failed; 6 stopped by --budget.`,
});

function assignSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  return assignCommand(argv, io, ASSIGN_OPTIONS, {
    kind: 'rubric',
    command: 'assay rubrics assign',
    judge: 'rubric-judgment',
    basis: (p, collection) => {
      const file = p.option('rubrics');
      const named = p.option('rubricSet');
      if ((file === undefined) === (named === undefined))
        throw new UsageError('give either --rubrics FILE or --rubric-set NAME');
      if (file === undefined) return async () => ({ rubricSet: named! });
      const text = readText(file);
      // A rubrics file is stored as a rubric set named after it (the same file reuses it).
      return async (db, io, dryRun) => {
        const stored = await importRubricSet(db, {
          collection,
          name: basename(file, extname(file)),
          text,
          file,
          createCollection: p.has('createCollection'),
        });
        io.stderr(
          `${storedWord(stored.created, dryRun)} rubric set "${stored.name}" (${stored.topicCount} topics, ${stored.criteria} criteria)${stored.created && dryRun ? '; a dry run does not store it' : ''}\n`,
        );
        return { rubricSet: stored.name };
      };
    },
    describe: (result) => `rubric judgment of ${result.answers} answers (${result.items} criteria)`,
  });
}

/** `assay rubrics assign|score`. */
export async function rubricsCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  return runSubcommand(argv, io, RUBRICS_USAGE, {
    assign: (rest) => assignSub(rest, io),
    score: (rest) => scoreCommand('rubric', rest, io, RUBRICS_USAGE),
  });
}
