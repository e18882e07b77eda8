import { writeFileSync } from 'node:fs';
import {
  COMPARE_FORMATS,
  compareRuns,
  comparisonReport,
  renderComparison,
  type CompareFormat,
  CompareError,
  testableMeasures as testableMeasureColumns,
  type CompareReport,
  type CompareSettings,
} from '@assay/platform/analysis';
import { chooseTopics, readNamedQrels, topicChoice } from './compare-qrels.js';
import { COMPARE_SETTING_OPTIONS, compareSettingsOf } from './compare-options.js';
import { evaluateRunFiles } from '../eval/evaluate-files.js';
import { ENCODING_OPTION, inputEncoding } from '../shell/read-input.js';
import {
  commandHelp,
  FILE,
  getopt,
  HELP_OPTION,
  integer,
  number,
  oneOf,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { EXIT } from '../shell/exit-codes.js';
import { CliError, type CommandIo } from '../shell/io.js';

export const COMPARE_OPTIONS: readonly OptionSpec[] = [
  {
    short: 'm',
    long: 'measure',
    key: 'm',
    kind: TEXT,
    arg: 'MEASURE',
    help: `as in assay eval (nDCG@10, P@10, AP, ndcg_cut.10 ...); repeatable;
measures that are not per-topic means (num_ret, gm_map ...) are skipped`,
  },
  {
    long: 'qrels',
    key: 'qrels',
    kind: TEXT,
    arg: '[NAME=]QRELS',
    help: 'a qrels file (twice: two leaderboards side by side), named NAME',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: TEXT,
    arg: 'T',
    help: `common (topics both qrels judge), first (the first qrels' topics) or
a topic FILE; a chosen topic a qrels does not judge scores 0 there.
Without it each leaderboard uses its own qrels' topics, with a
warning when the two sets differ`,
  },
  ...COMPARE_SETTING_OPTIONS,
  {
    long: 'baseline',
    key: 'baseline',
    kind: TEXT,
    arg: 'RUN',
    help: 'test each run against RUN (a run tag or one of the RUN paths) only',
  },
  {
    long: 'top-runs',
    key: 'topRuns',
    kind: integer({ min: 2 }),
    arg: 'K',
    help: "two qrels: tau@K is Kendall tau-b over the first leaderboard's top K runs (default 10)",
  },
  {
    long: 'tau-tolerance',
    key: 'tolerance',
    kind: number({ min: 0 }),
    arg: 'D',
    help: `two qrels: the gap-aware tau charges a swap of runs within D of each
other in proportion to their gap (default 0.01)`,
  },
  {
    long: 'correlation-samples',
    key: 'correlationSamples',
    kind: integer({ min: 0 }),
    arg: 'N',
    help: `two qrels: bootstrap resamples of the rank correlations' 95% intervals,
topics drawn with replacement (default 1000; 0: none)`,
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf(...COMPARE_FORMATS),
    arg: 'F',
    help: 'table (default), json, csv, latex or html (one self-contained file)',
  },
  {
    long: 'out',
    key: 'out',
    kind: FILE,
    arg: 'FILE',
    help: 'write there instead of stdout',
  },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const COMPARE_USAGE = commandHelp({
  usage: `assay compare QRELS RUN... -m MEASURE... [options]
       assay compare --qrels [NAME=]QRELS --qrels [NAME=]QRELS RUN... -m MEASURE... [options]`,
  about: `A leaderboard (mean of each measure over topics, Judged@10, 95% bootstrap intervals) and
paired significance tests between every two runs (or each run and --baseline) on per-topic
values: raw and corrected p-values, and per run the runs it is significantly better than
and different from. Topics as assay eval -c: every qrels topic counts, and a topic a run
has no results for scores 0. The first -m measure orders the leaderboard (best first).

With two --qrels (e.g. --qrels NIST=human.qrels --qrels LLM=llm.qrels): both leaderboards,
both rankings side by side, and per measure their rank correlation from full-precision
means: Kendall tau-b, tau-AP (first qrels as ground truth), Spearman, RBO (p = 0.9) of
the two orderings, tau-b over the top runs and a gap-aware tau, each with a 95% interval
from a bootstrap over topics. Every output names each leaderboard by its NAME (else by
its path).`,
  sections: [{ specs: COMPARE_OPTIONS }],
  notes: `CSV holds sections separated by a blank line, each with its own header: one row per
(run, measure), then one row per test, then (two qrels) one row per measure of rank
correlations; with two qrels the first two sections start with a qrels column.`,
});

/** `assay compare`: a significance-tested leaderboard, or two leaderboards side by side. */
export async function compareCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = getopt(argv, COMPARE_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${COMPARE_USAGE}\n`);
    return 0;
  }
  const last = (key: string) => options.get(key)?.at(-1);
  const qrelsPaths = [...(options.get('qrels') ?? [])];
  let runPaths = positionals;
  if (qrelsPaths.length === 0) {
    if (positionals.length === 0) throw new UsageError('expected QRELS and at least two RUNs');
    qrelsPaths.push(positionals[0]!);
    runPaths = positionals.slice(1);
  }
  if (qrelsPaths.length > 2) throw new UsageError('give one or two --qrels files');
  if (runPaths.length < 2) {
    throw new UsageError(
      `pairwise tests need at least two runs; got ${runPaths.length === 0 ? 'none' : `only ${runPaths[0]}`}`,
    );
  }
  const measureSpecs = parsed.all('m');
  if (measureSpecs.length === 0) throw new UsageError('give at least one -m MEASURE');

  const checked = compareSettingsOf(parsed);
  const format = (last('format') ?? 'table') as CompareFormat;
  const measures = testableMeasures(measureSpecs, io);
  const baselineArg = last('baseline');

  const encoding = inputEncoding(options.get('encoding'));
  const chosen = chooseTopics(
    readNamedQrels(qrelsPaths, encoding),
    topicChoice(last('topics')),
    encoding,
  );
  if (chosen.warning !== undefined) io.stderr(`assay compare: ${chosen.warning}\n`);
  const leaderboards: CompareReport['leaderboards'] = [];
  for (const { name: qrelsName, qrels } of chosen.qrels) {
    const evaluated = await evaluateRunFiles(
      qrels,
      runPaths,
      [...measureSpecs, 'Judged@10'],
      { completeTopics: true },
      io.parallelism,
      undefined,
      encoding,
    );
    const results = evaluated.map((r) => r.result);
    checkDistinctTags(
      results.map((r) => r.runid),
      runPaths,
    );
    const baseline =
      baselineArg === undefined
        ? undefined
        : resolveBaseline(
            baselineArg,
            results.map((r) => r.runid),
            runPaths,
          );
    const settings: CompareSettings = {
      ...checked,
      ...(baseline === undefined ? {} : { baseline }),
    };
    try {
      leaderboards.push({ qrels: qrelsName, comparison: compareRuns(results, measures, settings) });
    } catch (error) {
      if (error instanceof CompareError)
        throw new CliError(`${qrelsName}: ${error.message}`, EXIT.usage);
      throw error;
    }
  }
  const topRuns = parsed.number('topRuns');
  const samples = parsed.number('correlationSamples');
  const correlation = {
    ...(topRuns === undefined ? {} : { topRuns }),
    ...(samples === undefined ? {} : { samples }),
  };
  const tolerance = parsed.number('tolerance');
  const output = renderComparison(
    comparisonReport(leaderboards, measures, {
      ...correlation,
      ...(tolerance === undefined ? {} : { tolerance }),
    }),
    format,
  );
  const out = last('out');
  if (out === undefined) io.stdout(output);
  else {
    try {
      writeFileSync(out, output);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new CliError(`${out}: cannot write file (${code})`, EXIT.invalidInput);
    }
  }
  return 0;
}

/**
 * The output columns to test, in -m order (the first orders the leaderboard). Measures
 * that are not a mean of per-topic values (counts, sums, geometric means, relstring) cannot
 * be tested topic by topic; they are skipped with a note.
 */
function testableMeasures(specs: readonly string[], io: CommandIo): string[] {
  const { measures, skipped } = testableMeasureColumns(specs);
  if (skipped.length > 0) {
    io.stderr(`assay compare: skipping ${skipped.join(', ')} (not a mean of per-topic values)\n`);
  }
  if (measures.length === 0)
    throw new UsageError('none of the measures is a mean of per-topic values that can be tested');
  return measures;
}

function checkDistinctTags(tags: string[], paths: readonly string[]): void {
  for (let i = 0; i < tags.length; i++) {
    const j = tags.indexOf(tags[i]!);
    if (j !== i) {
      throw new CliError(
        `${paths[j]} and ${paths[i]} both carry the run tag '${tags[i]}'; runs are told apart by tag`,
        EXIT.invalidInput,
      );
    }
  }
}

/** --baseline names a run by its tag or by the path it was given as. */
function resolveBaseline(arg: string, tags: string[], paths: readonly string[]): string {
  if (tags.includes(arg)) return arg;
  const i = paths.indexOf(arg);
  if (i >= 0) return tags[i]!;
  throw new UsageError(`--baseline ${arg} is none of the runs (tags: ${tags.join(', ')})`);
}
