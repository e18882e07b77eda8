import {
  agreement,
  agreementText,
  fitGradesToScale,
  MAX_SCALE_GRADES,
  observedScale,
  outlyingGrade,
  scaleWidth,
} from '@assay/platform/analysis';
import { parseQrels, TrecFormatError, type Qrels } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from '../shell/read-input.js';
import {
  commandHelp,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  oneOf,
  type OptionSpec,
  SCALE,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';

export const AGREE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'scale',
    key: 'scale',
    kind: SCALE,
    help: `the grade scale, e.g. 0..3 (or 0-3, 0:3; default: the grades seen in
either file)`,
  },
  {
    long: 'clip',
    key: 'clip',
    kind: FLAG,
    help: `clamp grades outside the scale into it instead of failing; the report
says how many were clamped`,
  },
  {
    long: 'samples',
    key: 'samples',
    kind: integer({ min: 0 }),
    arg: 'N',
    help: 'bootstrap resamples of the 95% intervals (default 1000; 0: no intervals)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: integer(),
    arg: 'S',
    help: 'seed of the bootstrap (default 42)',
  },
  { long: 'format', key: 'format', kind: oneOf('text', 'json'), help: 'text (default) or json' },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const AGREE_USAGE = commandHelp({
  usage: `assay agree A.qrels B.qrels [--scale MIN..MAX] [--clip] [--samples N] [--seed S] [--format text|json]`,
  about: `Compares two label sets (TREC qrels: topic iter docno grade) over the (topic, docno)
pairs both contain: confusion matrix (rows A, columns B), exact agreement, Cohen's kappa
(unweighted, linear, quadratic), Krippendorff's alpha (nominal, ordinal, interval),
Fleiss' kappa, Gwet's AC1 and AC2 (linear, quadratic), PABAK, each with a 95% interval
from a bootstrap over topics (seeded), and kappa, alpha and AC1 after binarising at
every threshold (relevant = grade >= t).

A scale holds at most 1000 grades: a stray grade that stretches the seen scale
beyond that is an input error (exit 2, file:line); give --scale and --clip to clamp it.`,
  sections: [{ specs: AGREE_OPTIONS }],
});

/** The agreement report `assay agree` prints. */
export type { AgreementReport } from '@assay/platform/analysis';

/** `assay agree`: agreement between two label sets. */
export function agreeCommand(argv: readonly string[], io: CommandIo): number {
  const parsed = getopt(argv, AGREE_OPTIONS);
  const { options, positionals } = parsed;
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('help')) {
    io.stdout(`${AGREE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('expected two qrels files, A and B');
  const format = parsed.option('format') ?? 'text';
  const [pathA, pathB] = positionals as [string, string];
  const textA = readText(pathA, encoding);
  const textB = readText(pathB, encoding);
  const a = parseQrels(textA, pathA);
  const b = parseQrels(textB, pathB);
  const scaleText = parsed.option('scale');
  const given = parsed.scale('scale');
  if (given && given.min === given.max)
    throw new UsageError(`--scale ${scaleText}: the lowest grade must be below the highest`);
  const scale = given ?? observedScale(a, b);
  if (scaleWidth(scale) > MAX_SCALE_GRADES) {
    if (scaleText !== undefined)
      throw new UsageError(
        `--scale ${scaleText} holds more than ${MAX_SCALE_GRADES} grades, the most agreement is computed over`,
      );
    const outlier = outlyingGrade(a, b)!;
    const [file, text] = outlier.side === 'a' ? [pathA, textA] : [pathB, textB];
    throw new TrecFormatError(
      file,
      findLine(text, outlier.qid, outlier.docno),
      `grade ${outlier.grade} makes the scale ${scale.min}-${scale.max}, wider than the ${MAX_SCALE_GRADES} grades agreement is computed over (give --scale and --clip to clamp it, or fix the label)`,
    );
  }
  const clip = options.has('clip');
  const clippedA = checkScale(a, scale, clip, pathA, textA);
  const clippedB = checkScale(b, scale, clip, pathB, textB);
  const samples = parsed.number('samples');
  const seed = parsed.number('seed');
  const report = agreement(
    a,
    b,
    scale,
    { a: clippedA, b: clippedB },
    {
      ...(samples === undefined ? {} : { samples }),
      ...(seed === undefined ? {} : { seed }),
    },
  );
  io.stdout(
    format === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : agreementText(report, pathA, pathB, clip),
  );
  return 0;
}

/**
 * Grades outside the scale are an input error naming file and line, unless clipping is on;
 * then they are clamped in place and counted.
 */
function checkScale(
  qrels: Qrels,
  scale: { min: number; max: number },
  clip: boolean,
  file: string,
  text: string,
): number {
  return fitGradesToScale(qrels, scale, clip, (qid, docno, grade) => {
    throw new TrecFormatError(
      file,
      findLine(text, qid, docno),
      `grade ${grade} is outside the scale ${scale.min}-${scale.max} (use --clip to clamp it)`,
    );
  });
}

function findLine(text: string, qid: string, docno: string): number {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i]!.trim().split(/\s+/);
    if (fields[0] === qid && fields[2] === docno) return i + 1;
  }
  return 0;
}
