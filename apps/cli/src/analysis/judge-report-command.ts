import { writeFileSync } from 'node:fs';
import {
  JUDGE_REPORT_FORMATS,
  judgeReport,
  JudgeReportError,
  MAX_SCALE_GRADES,
  renderJudgeReport,
  type GradeScale,
  type JudgeReportFormat,
  type NamedGrades,
} from '@assay/platform/analysis';
import { parseScoreLines, PlatformError, type AnswerScoreLine } from '@assay/platform';
import { parseQrels, parseRun, type Qrels } from '@assay/trec';
import { qrelsArgument } from './compare-qrels.js';
import { readText } from '../eval/evaluate-files.js';
import { EXIT } from '../shell/exit-codes.js';
import {
  commandHelp,
  FILE,
  getopt,
  HELP_OPTION,
  integer,
  oneOf,
  type OptionSpec,
  SCALE,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { CliError, type CommandIo } from '../shell/io.js';
import { DOCS_FORMAT_OPTION_BESIDE_OUTPUT, readDocuments } from '../shell/input-files.js';

export const JUDGE_REPORT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'human',
    key: 'human',
    kind: TEXT,
    arg: '[NAME=]QRELS',
    help: "people's labels; without them the judges are measured against each other",
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'NAME=QRELS',
    help: "a judge's labels (repeatable; NAME names it in the report)",
  },
  {
    long: 'drift',
    key: 'drift',
    kind: TEXT,
    arg: 'OLD,NEW',
    help: `two judges' NAMEs, versions of one judge (prompt or model): compared
item by item, with the transition matrix of grades and kappa (repeatable)`,
  },
  {
    long: 'runs',
    key: 'runs',
    kind: FILE,
    arg: 'RUN',
    help: `a run (repeatable; RUNs may also follow the options): each judge's
leaderboard is rank-correlated with the human one (or the consensus)`,
  },
  {
    short: 'm',
    long: 'measure',
    key: 'm',
    kind: TEXT,
    arg: 'MEASURE',
    help: 'the measure of the leaderboards (default nDCG@10)',
  },
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    arg: 'FILE',
    help: `the passages (JSONL, TSV or Cranfield, as assay judge reads them): grade
difference against passage length`,
  },
  DOCS_FORMAT_OPTION_BESIDE_OUTPUT,
  {
    long: 'swap',
    key: 'swap',
    kind: TEXT,
    arg: 'A.jsonl,B.jsonl',
    help: `two score files of assay answers score --mode comparative on the same
answers with different --seed (different orders): position-swap
consistency per criterion`,
  },
  {
    long: 'scale',
    key: 'scale',
    kind: SCALE,
    help: `the grade scale, e.g. 0..3 (or 0-3, 0:3; default: the grades seen);
labels outside it are left out and counted`,
  },
  {
    long: 'samples',
    key: 'samples',
    kind: integer({ min: 0 }),
    arg: 'N',
    help: 'bootstrap resamples of every 95% interval (default 1000; 0: none)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: integer(),
    arg: 'S',
    help: 'seed of the bootstrap (default 42)',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf(...JUDGE_REPORT_FORMATS),
    arg: 'F',
    help: 'text (default), json or html',
  },
  { long: 'title', key: 'title', kind: TEXT, arg: 'TEXT', help: 'the HTML page title' },
  { long: 'out', key: 'out', kind: FILE, arg: 'FILE', help: 'write there instead of stdout' },
  HELP_OPTION,
];

export const JUDGE_REPORT_USAGE = commandHelp({
  usage: `assay judge-report [--human [NAME=]QRELS] --judge NAME=QRELS... [--drift OLD,NEW]
                          [--runs RUN]... [-m MEASURE] [--docs FILE [--docs-format F]]
                          [--format text|json|html] [RUN...]`,
  about: `How good LLM judges are, against the same human labels or, without them, against each
other. Per judge: grade usage (a grade used for under 2% of its items is flagged: a
collapsed scale), the confusion matrix, Cohen's kappa (plain, linear, quadratic),
Krippendorff's alpha, Fleiss' kappa, Gwet's AC1/AC2 and PABAK with 95% intervals from a
bootstrap over topics, agreement binarised at every threshold, inverted polarity flagged
(agreement below chance), with runs the rank correlation of its leaderboard with the
human one, with --docs the grade difference against passage length. Without human labels
each judge is measured against the majority of the others. With two or more judges:
Fleiss' kappa and Krippendorff's alpha of all of them, every pair, and the majority
consensus. --drift compares two versions of a judge item by item.`,
  sections: [{ specs: JUDGE_REPORT_OPTIONS }],
  notes: `Exit codes: 1 usage, 2 unreadable or malformed files.`,
});

/** `assay judge-report`: the judge-quality report from label files. */
export function judgeReportCommand(argv: readonly string[], io: CommandIo): number {
  const parsed = getopt(argv, JUDGE_REPORT_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${JUDGE_REPORT_USAGE}\n`);
    return 0;
  }
  const last = (key: string) => options.get(key)?.at(-1);
  const format = (last('format') ?? 'text') as JudgeReportFormat;
  const judgeArgs = options.get('judge') ?? [];
  const swapArg = last('swap');
  if (judgeArgs.length === 0 && swapArg === undefined)
    throw new UsageError('give at least one --judge NAME=QRELS (or --swap A.jsonl,B.jsonl)');
  const read = (arg: string): NamedGrades => {
    const { name, path } = qrelsArgument(arg);
    return { name, grades: parseQrels(readText(path), path) };
  };
  const humanArg = last('human');
  const human = humanArg === undefined ? undefined : read(humanArg);
  const judges = judgeArgs.map(read);
  if (!human && judges.length === 1)
    throw new UsageError('without --human, give at least two --judge label sets to compare');
  let swap: { first: AnswerScoreLine[]; second: AnswerScoreLine[] } | undefined;
  if (swapArg !== undefined) {
    const files = swapArg.split(',');
    if (files.length !== 2)
      throw new UsageError(`--swap ${swapArg}: give two score files, A.jsonl,B.jsonl`);
    const [first, second] = files.map((f) => {
      try {
        return parseScoreLines(readText(f), f);
      } catch (error) {
        if (error instanceof PlatformError) throw new CliError(error.message, EXIT.invalidInput);
        throw error;
      }
    });
    swap = { first: first!, second: second! };
  }
  const names = judges.map((j) => j.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new UsageError(`two judges are called ${duplicate}`);
  const drift = (options.get('drift') ?? []).map((arg): [string, string] => {
    const parts = arg.split(',');
    if (parts.length !== 2 || parts.some((p) => !names.includes(p)))
      throw new UsageError(
        `--drift ${arg}: give two judge names, OLD,NEW (judges: ${names.join(', ')})`,
      );
    return [parts[0]!, parts[1]!];
  });
  const scaleText = last('scale');
  const scale =
    scaleText !== undefined
      ? givenScale(scaleText, parsed.scale('scale')!)
      : judges.length === 0
        ? { min: 0, max: 1 }
        : seenScale([human, ...judges]);
  if (scale.max - scale.min + 1 > MAX_SCALE_GRADES)
    throw new CliError(
      `the grades seen run from ${scale.min} to ${scale.max}, more than ${MAX_SCALE_GRADES} grades; give --scale MIN..MAX (labels outside it are left out)`,
      EXIT.invalidInput,
    );
  const runPaths = [...(options.get('runs') ?? []), ...positionals];
  const runs = runPaths.map((path) => parseRun(readText(path), path));
  const docsPath = last('docs');
  let lengths: Map<string, number> | undefined;
  if (docsPath !== undefined) {
    lengths = new Map();
    const format = last('docsFormat');
    for (const doc of readDocuments(docsPath, { format, option: '--docs-format' }))
      lengths.set(doc.id, doc.text.split(/\s+/).filter((w) => w !== '').length);
  }
  const samples = parsed.number('samples');
  const seed = parsed.number('seed');
  let report;
  try {
    report = judgeReport({
      ...(human ? { human } : {}),
      judges,
      scale,
      drift,
      ...(runs.length > 0 ? { runs } : {}),
      ...(last('m') === undefined ? {} : { measure: last('m')! }),
      ...(lengths ? { lengths } : {}),
      ...(samples === undefined ? {} : { samples }),
      ...(seed === undefined ? {} : { seed }),
      ...(swap ? { swap } : {}),
    });
  } catch (error) {
    if (error instanceof JudgeReportError) throw new CliError(error.message, EXIT.invalidInput);
    throw error;
  }
  const text = renderJudgeReport(report, format, last('title'));
  const out = last('out');
  if (out === undefined) io.stdout(text);
  else {
    try {
      writeFileSync(out, text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new CliError(`${out}: cannot write file (${code})`, EXIT.invalidInput);
    }
  }
  return 0;
}

/** The lowest and highest grade (0 or more: negative grades are pooled, not judged) of any set. */
function seenScale(sets: ReadonlyArray<NamedGrades | undefined>): GradeScale {
  let min = Infinity;
  let max = -Infinity;
  for (const set of sets) {
    if (!set) continue;
    for (const docs of (set.grades as Qrels).values())
      for (const g of docs.values()) {
        if (g < 0) continue;
        min = Math.min(min, g);
        max = Math.max(max, g);
      }
  }
  if (min === Infinity) throw new CliError('no label is graded 0 or more', EXIT.invalidInput);
  return { min, max: max === min ? min + 1 : max };
}

/** A --scale of judge grades: from 0 up, the lowest below the highest. */
function givenScale(text: string, scale: GradeScale): GradeScale {
  if (scale.min < 0)
    throw new UsageError(`--scale ${text}: grades start at 0 (a negative grade is unjudged)`);
  if (scale.min >= scale.max)
    throw new UsageError(`--scale ${text}: the lowest grade must be below the highest`);
  return scale;
}
