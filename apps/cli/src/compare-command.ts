import { writeFileSync } from 'node:fs';
import { resolveMeasures } from '@assay/measures';
import type { PValueAdjustment } from '@assay/stats';
import { parseQrels } from '@assay/trec';
import {
  compareRuns,
  correlateLeaderboards,
  type CompareSettings,
  type Comparison,
  type RankCorrelation,
  type TestName,
} from './compare.js';
import {
  comparisonCsv,
  comparisonHtml,
  comparisonJson,
  comparisonLatex,
  comparisonTable,
} from './compare-report.js';
import { evaluateRunFiles, readText } from './evaluate-files.js';
import { getopt, UsageError, type OptionSpec } from './getopt.js';
import type { CommandIo } from './io.js';

const OPTIONS: OptionSpec[] = [
  { short: 'm', long: 'measure', key: 'm', takesValue: true },
  { long: 'qrels', key: 'qrels', takesValue: true },
  { long: 'test', key: 'test', takesValue: true },
  { long: 'permutations', key: 'permutations', takesValue: true },
  { long: 'seed', key: 'seed', takesValue: true },
  { long: 'correction', key: 'correction', takesValue: true },
  { long: 'alpha', key: 'alpha', takesValue: true },
  { long: 'baseline', key: 'baseline', takesValue: true },
  { long: 'format', key: 'format', takesValue: true },
  { long: 'out', key: 'out', takesValue: true },
  { short: 'h', long: 'help', key: 'h', takesValue: false },
];

export const COMPARE_USAGE = `Usage: assay compare QRELS RUN... -m MEASURE... [options]
       assay compare --qrels HUMAN --qrels LLM RUN... -m MEASURE... [options]

A leaderboard (mean per measure over topics, Judged@10, 95% bootstrap intervals) and
paired significance tests between every two runs (or each run and --baseline) on per-topic
values, with corrected p-values. Every qrels topic counts, as with trec_eval -c: a topic a
run did not retrieve for scores 0. With two --qrels, both leaderboards and their rank
correlation (Kendall tau-b, tau-AP with the first qrels as truth, Spearman, RBO).

  -m MEASURE          measures as in assay eval (nDCG@10, P@10, AP, ndcg_cut.10 ...); repeatable
  --test T            t (paired t-test, default), wilcoxon or randomization
  --permutations N    randomization test permutations (default 10000)
  --seed S            seed of the randomization test and bootstrap (default 42)
  --correction C      holm (default), bonferroni, bh or none; applied per measure
  --alpha A           significance level (default 0.05)
  --baseline RUN      test each run against RUN only
  --format F          table (default), json, csv, latex or html
  --out FILE          write there instead of stdout`;

/** `assay compare`: a significance-tested leaderboard, or two leaderboards side by side. */
export async function compareCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { options, positionals } = getopt(argv, OPTIONS);
  if (options.has('h')) {
    io.stdout(`${COMPARE_USAGE}\n`);
    return 0;
  }
  const last = (key: string) => options.get(key)?.at(-1);
  const qrelsPaths = options.get('qrels') ?? [];
  let runPaths = positionals;
  if (qrelsPaths.length === 0) {
    if (positionals.length < 2) throw new UsageError('expected QRELS and at least two RUNs');
    qrelsPaths.push(positionals[0]!);
    runPaths = positionals.slice(1);
  }
  if (qrelsPaths.length > 2) throw new UsageError('give at most two --qrels');
  if (runPaths.length < 2) throw new UsageError('comparing needs at least two runs');
  const measureSpecs = options.get('m') ?? [];
  if (measureSpecs.length === 0) throw new UsageError('give at least one -m MEASURE');
  const measures = resolveMeasures(measureSpecs)
    .filter((m) => m.definition.output !== 'string' && m.definition.aggregate === 'mean')
    .flatMap((m) => m.names);
  if (measures.length === 0)
    throw new UsageError('none of the measures is a per-topic mean that can be tested');

  const test = (last('test') ?? 't') as TestName;
  if (!['t', 'wilcoxon', 'randomization'].includes(test))
    throw new UsageError(`--test must be t, wilcoxon or randomization, not '${test}'`);
  const correction = (last('correction') ?? 'holm') as PValueAdjustment;
  if (!['holm', 'bonferroni', 'bh', 'none'].includes(correction)) {
    throw new UsageError(`--correction must be holm, bonferroni, bh or none, not '${correction}'`);
  }
  const alpha = Number(last('alpha') ?? 0.05);
  if (!(alpha > 0 && alpha < 1)) throw new UsageError('--alpha must be between 0 and 1');
  const permutations = Number(last('permutations') ?? 10000);
  if (!Number.isInteger(permutations) || permutations < 1)
    throw new UsageError('--permutations must be a positive integer');
  const seed = Number(last('seed') ?? 42);
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be an integer');
  const format = last('format') ?? 'table';
  if (!['table', 'json', 'csv', 'latex', 'html'].includes(format)) {
    throw new UsageError(`--format must be table, json, csv, latex or html, not '${format}'`);
  }
  const baseline = last('baseline');
  const settings: CompareSettings = {
    test,
    correction,
    alpha,
    permutations,
    seed,
    ...(baseline === undefined ? {} : { baseline }),
  };

  const specs = [...measureSpecs, 'Judged@10'];
  const comparisons: Comparison[] = [];
  for (const path of qrelsPaths) {
    const qrels = parseQrels(readText(path), path);
    const evaluated = await evaluateRunFiles(
      qrels,
      runPaths,
      specs,
      { completeTopics: true },
      io.parallelism,
    );
    comparisons.push(
      compareRuns(
        evaluated.map((e) => e.result),
        measures,
        settings,
      ),
    );
  }
  const byMeasure: Record<string, RankCorrelation> | undefined =
    comparisons.length === 2
      ? Object.fromEntries(
          measures.map((m) => [m, correlateLeaderboards(comparisons[0]!, comparisons[1]!, m)]),
        )
      : undefined;

  const output = render(format, comparisons, qrelsPaths, byMeasure);
  const out = last('out');
  if (out === undefined) io.stdout(output);
  else writeFileSync(out, output);
  return 0;
}

function render(
  format: string,
  comparisons: Comparison[],
  qrelsPaths: string[],
  byMeasure?: Record<string, RankCorrelation>,
): string {
  const [first, second] = comparisons as [Comparison, Comparison | undefined];
  switch (format) {
    case 'json':
      if (!second) return `${JSON.stringify(comparisonJson(first), null, 2)}\n`;
      return `${JSON.stringify(
        {
          topicHandling: first.topicHandling,
          leaderboards: comparisons.map((c, i) => ({
            qrels: qrelsPaths[i],
            ...(comparisonJson(c) as object),
          })),
          rankCorrelation: byMeasure,
        },
        null,
        2,
      )}\n`;
    case 'csv':
      return comparisons
        .map((c, i) => (second ? `# qrels: ${qrelsPaths[i]}\n` : '') + comparisonCsv(c))
        .join('\n');
    case 'latex':
      return comparisons
        .map((c, i) => (second ? `% qrels: ${qrelsPaths[i]}\n` : '') + comparisonLatex(c))
        .join('\n');
    case 'html':
      return comparisonHtml(first, second && byMeasure ? { other: second, byMeasure } : undefined);
    default: {
      const tables = comparisons
        .map((c, i) => comparisonTable(c, second ? `qrels ${qrelsPaths[i]}` : 'leaderboard'))
        .join('\n');
      if (!byMeasure) return tables;
      const corr = Object.entries(byMeasure).map(
        ([m, r]) =>
          `${m}: Kendall tau-b ${r.kendallTauB.toFixed(4)}, tau-AP ${r.tauAP.toFixed(4)}, Spearman ${r.spearman.toFixed(4)}, RBO ${r.rbo.toFixed(4)}`,
      );
      return `${tables}\nrank correlation of the two leaderboards (first qrels as truth for tau-AP):\n${corr.join('\n')}\n`;
    }
  }
}
