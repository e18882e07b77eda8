// The analysis behind `assay agree` and stored agreement reports: how far two label sets
// agree on the (topic, document) pairs both contain.
import {
  binarizedKappas,
  cohenKappa,
  confusionMatrix,
  exactAgreement,
  krippendorffAlpha,
} from '@assay/stats';

/** Topic → docno → grade: the labels of one label set (a parsed qrels file). */
export type Grades = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** A grade scale, both ends included. */
export interface GradeScale {
  min: number;
  max: number;
}

/** The agreement between two label sets, as `assay agree` prints it. */
export interface AgreementReport {
  n: number;
  onlyA: number;
  onlyB: number;
  scale: GradeScale;
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

/** Computes the agreement report over the pairs both label sets contain. */
export function agreement(
  a: Grades,
  b: Grades,
  scale: GradeScale,
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

/** The lowest and highest grade seen in either label set (one wider when they are equal). */
export function observedScale(a: Grades, b: Grades): GradeScale {
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

function f4(x: number): string {
  return Number.isNaN(x) ? 'n/a' : x.toFixed(4);
}

/**
 * The report as `assay agree` prints it: both sources, counts, scale (with how many
 * grades were clamped when `clip` is on), the coefficients and the confusion matrix.
 */
export function agreementText(
  r: AgreementReport,
  nameA: string,
  nameB: string,
  clip: boolean,
): string {
  const lines: string[] = [];
  lines.push(`A: ${nameA}`, `B: ${nameB}`);
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
