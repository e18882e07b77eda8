import { commandHelp, FILE, type OptionSpec, TEXT } from '../shell/getopt.js';
import type { PlatformCommandIo } from '../shell/platform-session.js';
import { assignCommand } from './assign.js';
import {
  ANSWER_OPTIONS,
  LLM_STEP_OPTIONS,
  runSubcommand,
  scoreCommand,
  scoreOptions,
} from './rag-cli.js';

const ASSIGN_OPTIONS: OptionSpec[] = [
  {
    long: 'collection',
    key: 'collection',
    kind: TEXT,
    arg: 'NAME',
    help: 'the collection holding the cited passages (their ids are its document ids)',
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
    long: 'out',
    key: 'out',
    kind: FILE,
    arg: 'FILE',
    help: `the assessments, one line per topic and system:
{"qid","system","sentences":[{"text","citations":[{"docid","support"}]}]}`,
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'the support prompt (default citation-support)',
  },
  ...LLM_STEP_OPTIONS,
];

export const SUPPORT_USAGE = commandHelp({
  usage: `assay support assign --collection NAME (--responses FILE | --response-set NAME)
                            [--name NAME] [--out FILE] [--model M] [--dry-run] [--budget USD] [...]
       assay support score FILE | --collection NAME --set NAME [--first-citation-only]
                            [--store [--publish SLUG]] [...]`,
  about: `Support of citations as the TREC 2024 RAG track assessed it: for each answer sentence and
each passage it cites, full, partial or no support. assign asks an LLM, one sentence with
its cited passages per call (the passages' text comes from the collection; a passage it
lacks is "cannot assess", with no call, counted in the account; when no cited passage is
there the run is refused: add the documents with assay import documents --collection NAME
FILE). Answers need their sentences and citations (the TREC RAG answer forms, or assay's
form with "answer" as [{"text","citations"}]); one in plain text cites nothing and scores
0. Every call is stored: running the same command again sends no request already answered.

score prints per system the mean over topics of weighted support precision (supported
citations over citations: full 1, partial 0.5), weighted support recall (sentences by
their best citation over sentences, uncited ones 0) and their strict forms (full support
only), with intervals and paired tests; citations that cannot be assessed count in
neither (stderr says how many). --first-citation-only counts each sentence's first
citation only.`,
  sections: [
    { title: 'assign options', specs: ASSIGN_OPTIONS },
    { title: 'score options', specs: scoreOptions('support') },
  ],
  notes: `Exit status: 0 done; 1 usage or configuration; 2 malformed input (file:line); 3 not
found; 4 a name taken by something else; 5 some items failed; 6 stopped by --budget.`,
});

function assignSub(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  return assignCommand(argv, io, ASSIGN_OPTIONS, {
    kind: 'support',
    command: 'assay support assign',
    judge: 'citation-support',
    describe: (result) => `support of ${result.items} citations in ${result.answers} answers`,
  });
}

/** `assay support assign|score`. */
export async function supportCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  return runSubcommand(argv, io, SUPPORT_USAGE, {
    assign: (rest) => assignSub(rest, io),
    score: (rest) => scoreCommand('support', rest, io, SUPPORT_USAGE),
  });
}
