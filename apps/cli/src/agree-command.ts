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
import { ENCODING_OPTION, inputEncoding, readText } from './read-input.js';
import { FLAG, getopt, optionsHelp, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';

const OPTIONS: OptionSpec[] = [
  {
    long: 'scale',
    key: 'scale',
    kind: TEXT,
    arg: 'MIN-MAX',
    help: 'the grade scale, e.g. 0-3 (default: the grades seen in either file)',
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
    kind: TEXT,
    arg: 'N',
    help: 'bootstrap resamples of the 95% intervals (default 1000; 0: no intervals)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: TEXT,
    arg: 'S',
    help: 'seed of the bootstrap (default 42)',
  },
  { long: 'format', key: 'format', kind: TEXT, arg: 'F', help: 'text (default) or json' },
  ENCODING_OPTION,
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

export const AGREE_USAGE = `Usage: assay agree A.qrels B.qrels [--scale MIN-MAX] [--clip] [--samples N] [--seed S] [--format text|json]

Compares two label sets (TREC qrels: topic iter docno grade) over the (topic, docno)
pairs both contain: confusion matrix (rows A, columns B), exact agreement, Cohen's kappa
(unweighted, linear, quadratic), Krippendorff's alpha (nominal, ordinal, interval),
Fleiss' kappa, Gwet's AC1 and AC2 (linear, quadratic), PABAK, each with a 95% interval
from a bootstrap over topics (seeded), and kappa, alpha and AC1 after binarising at
every threshold (relevant = grade >= t).

A scale holds at most 1000 grades: a stray grade that stretches the seen scale
beyond that is an input error (exit 2, file:line); give --scale and --clip to clamp it.

${optionsHelp(OPTIONS)}`;

/** The agreement report `assay agree` prints. */
export type { AgreementReport } from '@assay/platform/analysis';

/** `assay agree`: agreement between two label sets. */
export function agreeCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('h')) {
    io.stdout(`${AGREE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('expected two qrels files, A and B');
  const format = options.get('format')?.at(-1) ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not '${format}'`);
  const [pathA, pathB] = positionals as [string, string];
  const textA = readText(pathA, encoding);
  const textB = readText(pathB, encoding);
  const a = parseQrels(textA, pathA);
  const b = parseQrels(textB, pathB);
  const scaleText = options.get('scale')?.at(-1);
  const scale = scaleText === undefined ? observedScale(a, b) : parseScale(scaleText);
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
  const samples = wholeOption(options.get('samples')?.at(-1), '--samples', 0);
  const seed = wholeOption(options.get('seed')?.at(-1), '--seed');
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

/** A whole-number option (at least `min` when given), or undefined when absent. */
function wholeOption(text: string | undefined, name: string, min?: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(value) || (min !== undefined && value < min))
    throw new UsageError(
      `${name} must be a whole number${min === undefined ? '' : ` of at least ${min}`}, not '${text}'`,
    );
  return value;
}

function parseScale(text: string): { min: number; max: number } {
  const match = /^\s*(-?\d+)\s*(?:-|\.\.|:)\s*(-?\d+)\s*$/.exec(text);
  if (!match) throw new UsageError(`--scale must look like 0-3, not '${text}'`);
  const min = Number(match[1]);
  const max = Number(match[2]);
  if (min >= max)
    throw new UsageError(`--scale ${text}: the lowest grade must be below the highest`);
  return { min, max };
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
