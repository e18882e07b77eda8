import {
  binarizedKappas,
  cohenKappa,
  confusionMatrix,
  exactAgreement,
  krippendorffAlpha,
} from '@assay/stats';
import { parseQrels, TrecFormatError, type Qrels } from '@assay/trec';
import { readText } from './evaluate-files.js';
import { getopt, UsageError, type OptionSpec } from './getopt.js';
import type { CommandIo } from './io.js';

const OPTIONS: OptionSpec[] = [
  { long: 'scale', key: 'scale', takesValue: true },
  { long: 'clip', key: 'clip', takesValue: false },
  { long: 'format', key: 'format', takesValue: true },
  { short: 'h', long: 'help', key: 'h', takesValue: false },
];

export const AGREE_USAGE = `Usage: assay agree A.qrels B.qrels [--scale MIN-MAX] [--clip] [--format text|json]

Compares two label sets (TREC qrels: topic iter docno grade) over the (topic, docno)
pairs both contain: confusion matrix (rows A, columns B), exact agreement, Cohen's kappa
(unweighted, linear, quadratic), Krippendorff's alpha (nominal, ordinal, interval) and
kappa after binarising at every threshold (relevant = grade >= t).

  --scale MIN-MAX  the grade scale, e.g. 0-3 (default: the grades seen in either file)
  --clip           clamp grades outside the scale into it instead of failing; the report
                   says how many were clamped
  --format F       text (default) or json`;

/** The agreement report `assay agree` prints. */
export interface AgreementReport {
  n: number;
  onlyA: number;
  onlyB: number;
  scale: { min: number; max: number };
  clipped: { a: number; b: number };
  exactAgreement: number;
  cohenKappa: { unweighted: number; linear: number; quadratic: number };
  krippendorffAlpha: { nominal: number; ordinal: number; interval: number };
  /**
   * Per threshold t (relevant = grade >= t): Cohen's kappa, exact agreement, and
   * Krippendorff's ordinal alpha of the binarised labels.
   */
  binarized: Array<{ threshold: number; kappa: number; agreement: number; alpha: number }>;
  confusion: { labels: number[]; matrix: number[][] };
}

/** `assay agree`: agreement between two label sets. */
export function agreeCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  if (options.has('h')) {
    io.stdout(`${AGREE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('expected two qrels files, A and B');
  const format = options.get('format')?.at(-1) ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not '${format}'`);
  const [pathA, pathB] = positionals as [string, string];
  const textA = readText(pathA);
  const textB = readText(pathB);
  const a = parseQrels(textA, pathA);
  const b = parseQrels(textB, pathB);
  const scaleText = options.get('scale')?.at(-1);
  const scale = scaleText === undefined ? observedScale(a, b) : parseScale(scaleText);
  const clip = options.has('clip');
  const clippedA = checkScale(a, scale, clip, pathA, textA);
  const clippedB = checkScale(b, scale, clip, pathB, textB);
  const report = agreement(a, b, scale, { a: clippedA, b: clippedB });
  io.stdout(
    format === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : formatReport(report, pathA, pathB, clip),
  );
  return 0;
}

/** Computes the agreement report over the pairs both label sets contain. */
export function agreement(
  a: Qrels,
  b: Qrels,
  scale: { min: number; max: number },
  clipped = { a: 0, b: 0 },
): AgreementReport {
  const gradesA: number[] = [];
  const gradesB: number[] = [];
  let onlyA = 0;
  let onlyB = 0;
  for (const [qid, docs] of a) {
    const other = b.get(qid);
    for (const [docno, grade] of docs) {
      const g = other?.get(docno);
      if (g === undefined) onlyA++;
      else {
        gradesA.push(grade);
        gradesB.push(g);
      }
    }
  }
  for (const [qid, docs] of b) {
    const other = a.get(qid);
    for (const docno of docs.keys()) if (other?.get(docno) === undefined) onlyB++;
  }
  const labels = range(scale.min, scale.max);
  const pair = [gradesA, gradesB];
  return {
    n: gradesA.length,
    onlyA,
    onlyB,
    scale,
    clipped,
    exactAgreement: exactAgreement(gradesA, gradesB),
    cohenKappa: {
      unweighted: cohenKappa(gradesA, gradesB, { weights: 'none', labels }),
      linear: cohenKappa(gradesA, gradesB, { weights: 'linear', labels }),
      quadratic: cohenKappa(gradesA, gradesB, { weights: 'quadratic', labels }),
    },
    krippendorffAlpha: {
      nominal: krippendorffAlpha(pair, 'nominal'),
      ordinal: krippendorffAlpha(pair, 'ordinal'),
      interval: krippendorffAlpha(pair, 'interval'),
    },
    binarized: binarizedKappas(gradesA, gradesB, labels).map((b) => ({
      ...b,
      alpha: krippendorffAlpha(
        [
          gradesA.map((g) => (g >= b.threshold ? 1 : 0)),
          gradesB.map((g) => (g >= b.threshold ? 1 : 0)),
        ],
        'ordinal',
      ),
    })),
    confusion: confusionMatrix(gradesA, gradesB, labels),
  };
}

function range(min: number, max: number): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
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

function observedScale(a: Qrels, b: Qrels): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const q of [a, b]) {
    for (const docs of q.values()) {
      for (const g of docs.values()) {
        if (g < min) min = g;
        if (g > max) max = g;
      }
    }
  }
  if (min === max) max = min + 1;
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
  let clipped = 0;
  for (const [qid, docs] of qrels) {
    for (const [docno, grade] of docs) {
      if (grade >= scale.min && grade <= scale.max) continue;
      if (!clip) {
        throw new TrecFormatError(
          file,
          findLine(text, qid, docno),
          `grade ${grade} is outside the scale ${scale.min}-${scale.max} (use --clip to clamp it)`,
        );
      }
      docs.set(docno, Math.min(scale.max, Math.max(scale.min, grade)));
      clipped++;
    }
  }
  return clipped;
}

function findLine(text: string, qid: string, docno: string): number {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i]!.trim().split(/\s+/);
    if (fields[0] === qid && fields[2] === docno) return i + 1;
  }
  return 0;
}

function f4(x: number): string {
  return Number.isNaN(x) ? 'n/a' : x.toFixed(4);
}

function formatReport(r: AgreementReport, pathA: string, pathB: string, clip: boolean): string {
  const lines: string[] = [];
  lines.push(`A: ${pathA}`, `B: ${pathB}`);
  lines.push(`pairs in both: ${r.n}    only in A: ${r.onlyA}    only in B: ${r.onlyB}`);
  const clipNote = clip
    ? `  (clamped into the scale: ${r.clipped.a} grades of A, ${r.clipped.b} of B)`
    : '';
  lines.push(`scale: ${r.scale.min}-${r.scale.max}${clipNote}`);
  lines.push('');
  lines.push(`exact agreement        ${f4(r.exactAgreement)}`);
  lines.push(
    `Cohen's kappa          unweighted ${f4(r.cohenKappa.unweighted)}   linear ${f4(r.cohenKappa.linear)}   quadratic ${f4(r.cohenKappa.quadratic)}`,
  );
  lines.push(
    `Krippendorff's alpha   nominal ${f4(r.krippendorffAlpha.nominal)}   ordinal ${f4(r.krippendorffAlpha.ordinal)}   interval ${f4(r.krippendorffAlpha.interval)}`,
  );
  lines.push('');
  lines.push('binarised (relevant = grade >= t)');
  lines.push('  t   kappa    alpha    agreement');
  for (const b of r.binarized) {
    lines.push(
      `  ${String(b.threshold).padEnd(3)} ${f4(b.kappa).padStart(7)}  ${f4(b.alpha).padStart(7)}  ${f4(b.agreement).padStart(9)}`,
    );
  }
  lines.push('');
  lines.push('confusion matrix (rows A, columns B)');
  const width = Math.max(6, ...r.confusion.matrix.flat().map((v) => String(v).length + 2));
  lines.push(
    `${'A\\B'.padEnd(5)}${r.confusion.labels.map((l) => String(l).padStart(width)).join('')}${'total'.padStart(width + 2)}`,
  );
  r.confusion.matrix.forEach((row, i) => {
    const total = row.reduce((s, v) => s + v, 0);
    lines.push(
      `${String(r.confusion.labels[i]).padEnd(5)}${row.map((v) => String(v).padStart(width)).join('')}${String(total).padStart(width + 2)}`,
    );
  });
  const totals = r.confusion.labels.map((_, j) =>
    r.confusion.matrix.reduce((s, row) => s + row[j]!, 0),
  );
  lines.push(
    `${'total'.padEnd(5)}${totals.map((v) => String(v).padStart(width)).join('')}${String(r.n).padStart(width + 2)}`,
  );
  return `${lines.join('\n')}\n`;
}
