import { writeFileSync } from 'node:fs';
import {
  COMPARE_CORRECTIONS,
  pairUnits,
  PPI_DEFAULTS,
  PPI_FORMATS,
  PPI_SAMPLINGS,
  PpiError,
  ppiLeaderboard,
  renderPpi,
  sampleSize,
  sampleUnits,
  testableMeasures,
  topicUnits,
  type PpiFormat,
  type PpiSampling,
  type PpiUnits,
} from '@assay/platform/analysis';
import type { PValueAdjustment } from '@assay/stats';
import { formatTopicsTsv, parseQrels, parseRun, type Qrels } from '@assay/trec';
import { readTopics } from '../shell/input-files.js';
import { evaluateRunFiles, readText } from '../eval/evaluate-files.js';
import { EXIT } from '../shell/exit-codes.js';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  number,
  oneOf,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { CliError, type CommandIo } from '../shell/io.js';

const DEFAULT_MEASURE = 'nDCG@10';

export const PPI_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'human',
    key: 'human',
    kind: FILE,
    arg: 'QRELS',
    help: `people's labels: every judged pair of a random sample of topics (or,
with --sampling pairs, a random sample of the LLM's pairs)`,
  },
  {
    long: 'llm',
    key: 'llm',
    kind: FILE,
    arg: 'QRELS',
    help: "the LLM's labels on every topic; the estimates are of the mean over its topics",
  },
  {
    short: 'm',
    long: 'measure',
    key: 'm',
    kind: TEXT,
    arg: 'MEASURE',
    help: `as in assay eval (default ${DEFAULT_MEASURE}); repeatable; the first orders the leaderboard`,
  },
  {
    long: 'sampling',
    key: 'sampling',
    kind: oneOf(...PPI_SAMPLINGS),
    arg: 'S',
    help: `topics (default: people labelled whole topics) or pairs (a sample of
the LLM's pairs; only measures linear in the labels: P@k, SetP, dcg,
Judged@k)`,
  },
  {
    long: 'alpha',
    key: 'alpha',
    kind: number({ above: 0, below: 1 }),
    arg: 'A',
    help: 'intervals at level 1 - A; a difference is significant when its corrected p < A (0.05)',
  },
  {
    long: 'correction',
    key: 'correction',
    kind: oneOf(...COMPARE_CORRECTIONS),
    arg: 'C',
    help: 'holm (default), bonferroni, bh or none; one family per measure',
  },
  {
    long: 'target-half-width',
    key: 'target',
    kind: number({ above: 0 }),
    arg: 'H',
    help: 'say how many labelled topics (pairs) each estimate likely needs for a half-width of H',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf(...PPI_FORMATS),
    arg: 'F',
    help: 'text (default), json or csv',
  },
  { long: 'out', key: 'out', kind: FILE, arg: 'FILE', help: 'write there instead of stdout' },
  HELP_OPTION,
];

export const PPI_SAMPLE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'llm',
    key: 'llm',
    kind: FILE,
    arg: 'QRELS',
    help: "the LLM's labels: the topics (and pairs) to choose from",
  },
  {
    long: 'topics',
    key: 'topics',
    kind: number({ above: 0 }),
    arg: 'N|F',
    help: 'choose N topics, or a fraction F of them (0.3)',
  },
  {
    long: 'pairs',
    key: 'pairs',
    kind: number({ above: 0 }),
    arg: 'N|F',
    help: "choose N of the LLM's labelled pairs, or a fraction F of them",
  },
  {
    long: 'seed',
    key: 'seed',
    kind: integer(),
    arg: 'S',
    help: 'seed of the choice (default 42)',
  },
  {
    long: 'stratify',
    key: 'stratify',
    kind: FLAG,
    help: `topics: spread the choice over the LLM's per-topic scores (the mean
over RUNs of the first -m measure under --llm); each topic keeps the
same chance of being chosen`,
  },
  {
    short: 'm',
    long: 'measure',
    key: 'm',
    kind: TEXT,
    arg: 'MEASURE',
    help: `the score --stratify orders topics by (default ${DEFAULT_MEASURE})`,
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('items', 'ids', 'topics'),
    arg: 'F',
    help: `items (default): topic<TAB>docno of every LLM-labelled pair to label
(a campaign's item list, as assay pool writes); ids: one topic id a
line; topics: the chosen topics of --topic-file as id<TAB>text`,
  },
  {
    long: 'topic-file',
    key: 'topicFile',
    kind: FILE,
    arg: 'FILE',
    help: 'the topics (any format assay import topics reads), for --format topics',
  },
  { long: 'out', key: 'out', kind: FILE, arg: 'FILE', help: 'write there instead of stdout' },
  HELP_OPTION,
];

export const PPI_USAGE = commandHelp({
  usage: `assay ppi --human QRELS --llm QRELS [-m MEASURE]... [options] RUN...
       assay ppi sample --llm QRELS (--topics N | --pairs N) [--seed S] [--stratify -m MEASURE RUN...]`,
  about: `A leaderboard from a few human labels and LLM labels on everything: prediction-powered
inference (PPI++). Per run and measure: the estimate of the mean over every LLM-labelled
topic with its interval, the weight lambda of the LLM labels (tuned in [0, 1] to minimise
the variance), the human-only estimate and interval from the labelled topics, and the
LLM-only mean; per measure every pair of runs: the estimated difference, its interval and
a two-sided test, corrected over the measure's pairs. Measures per topic are computed as
assay eval -c computes them (a topic a run lacks scores 0).

assay ppi sample chooses what people label: topics (uniformly, or spread over the LLM's
per-topic scores with --stratify) or pairs, seeded; a summary goes to stderr.`,
  sections: [
    { specs: PPI_OPTIONS },
    { title: 'assay ppi sample options', specs: PPI_SAMPLE_OPTIONS },
  ],
  notes: `Exit codes: 1 usage (bad options, too few human topics, a measure pair sampling cannot
estimate), 2 unreadable or malformed files, or human labels outside the LLM's.`,
});

/** `assay ppi` and `assay ppi sample`. */
export async function ppiCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  if (argv[0] === 'sample') return sampleCommand(argv.slice(1), io);
  const parsed = getopt(argv, PPI_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${PPI_USAGE}\n`);
    return 0;
  }
  const last = (key: string) => options.get(key)?.at(-1);
  const humanPath = last('human');
  const llmPath = last('llm');
  if (humanPath === undefined || llmPath === undefined)
    throw new UsageError('give --human QRELS and --llm QRELS');
  if (positionals.length === 0) throw new UsageError('give at least one RUN');
  const sampling = (last('sampling') ?? 'topics') as PpiSampling;
  const format = (last('format') ?? 'text') as PpiFormat;
  const alpha = parsed.number('alpha') ?? PPI_DEFAULTS.alpha;
  const correction = (last('correction') ?? PPI_DEFAULTS.correction) as PValueAdjustment;
  const target = parsed.number('target');
  const specs = options.get('m') ?? [DEFAULT_MEASURE];
  const human = parseQrels(readText(humanPath), humanPath);
  const llm = parseQrels(readText(llmPath), llmPath);

  let units: PpiUnits;
  try {
    if (sampling === 'pairs') {
      const runs = positionals.map((path) => parseRun(readText(path), path));
      units = pairUnits(human, llm, runs, specs);
    } else {
      const { measures, skipped } = testableMeasures(specs);
      if (skipped.length > 0)
        io.stderr(`assay ppi: skipping ${skipped.join(', ')} (not a mean of per-topic values)\n`);
      if (measures.length === 0)
        throw new UsageError('none of the measures is a mean of per-topic values');
      const evaluate = async (qrels: Qrels) =>
        (
          await evaluateRunFiles(
            qrels,
            positionals,
            specs,
            { completeTopics: true },
            io.parallelism,
          )
        ).map((r) => r.result);
      units = topicUnits(await evaluate(human), await evaluate(llm), measures);
    }
  } catch (error) {
    if (error instanceof PpiError)
      throw new CliError(
        error.message,
        /LLM label|LLM labels do not/.test(error.message) ? EXIT.invalidInput : EXIT.usage,
      );
    throw error;
  }
  const report = ppiLeaderboard(units, {
    alpha,
    correction,
    ...(target === undefined ? {} : { targetHalfWidth: target }),
  });
  write(renderPpi(report, format), last('out'), io);
  return 0;
}

/** `assay ppi sample`: the topics or pairs people label. */
async function sampleCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = getopt(argv, PPI_SAMPLE_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${PPI_USAGE}\n`);
    return 0;
  }
  const last = (key: string) => options.get(key)?.at(-1);
  const llmPath = last('llm');
  if (llmPath === undefined) throw new UsageError('give --llm QRELS: the labels to choose from');
  const topicsArg = last('topics');
  const pairsArg = last('pairs');
  if ((topicsArg === undefined) === (pairsArg === undefined))
    throw new UsageError('give either --topics N or --pairs N');
  const seed = parsed.number('seed') ?? 42;
  const format = last('format') ?? 'items';
  const llm = parseQrels(readText(llmPath), llmPath);
  const judged = (topic: string) =>
    [...(llm.get(topic) ?? new Map<string, number>())].filter(([, g]) => g >= 0).map(([d]) => d);
  const topicIds = [...llm.keys()].sort();
  let out: string;
  try {
    if (pairsArg !== undefined) {
      if (options.has('stratify')) throw new UsageError('--stratify applies to --topics');
      if (format !== 'items') throw new UsageError('pairs are written as items');
      const pairs = topicIds.flatMap((t) => judged(t).map((d) => `${t}\t${d}`));
      const count = sampleSize(Number(pairsArg), pairs.length);
      const chosen = sampleUnits(pairs, count, seed);
      io.stderr(`assay ppi sample: ${count} of ${pairs.length} pairs (seed ${seed}, uniform)\n`);
      out = chosen.map((p) => `${p}\n`).join('');
    } else {
      const count = sampleSize(Number(topicsArg), topicIds.length);
      let scores: Map<string, number> | undefined;
      if (options.has('stratify')) {
        if (positionals.length === 0)
          throw new UsageError('--stratify needs RUNs whose LLM scores order the topics');
        const measure = options.get('m')?.[0] ?? DEFAULT_MEASURE;
        const evaluated = await evaluateRunFiles(
          llm,
          positionals,
          [measure],
          { completeTopics: true },
          io.parallelism,
        );
        scores = new Map();
        for (const { result } of evaluated) {
          for (const t of result.topics)
            scores.set(
              t.qid,
              (scores.get(t.qid) ?? 0) + (t.values[0] as number) / evaluated.length,
            );
        }
      } else if (positionals.length > 0) throw new UsageError('RUNs are read with --stratify only');
      const chosen = sampleUnits(topicIds, count, seed, scores);
      const pairs = chosen.reduce((s, t) => s + judged(t).length, 0);
      io.stderr(
        `assay ppi sample: ${count} of ${topicIds.length} topics (seed ${seed}, ${scores ? 'stratified by the LLM score' : 'uniform'}): ${pairs} pairs to label\n`,
      );
      if (format === 'ids') out = chosen.map((t) => `${t}\n`).join('');
      else if (format === 'topics') {
        const file = last('topicFile');
        if (file === undefined) throw new UsageError('--format topics needs --topic-file FILE');
        const byId = new Map(readTopics(file).map((t) => [t.id, t]));
        const missing = chosen.filter((t) => !byId.has(t));
        if (missing.length > 0)
          throw new CliError(
            `${file}: no topic ${missing.slice(0, 5).join(', ')}`,
            EXIT.invalidInput,
          );
        out = formatTopicsTsv(chosen.map((t) => byId.get(t)!));
      } else out = chosen.flatMap((t) => judged(t).map((d) => `${t}\t${d}\n`)).join('');
    }
  } catch (error) {
    if (error instanceof PpiError) throw new UsageError(error.message);
    throw error;
  }
  write(out, last('out'), io);
  return 0;
}

function write(text: string, out: string | undefined, io: CommandIo): void {
  if (out === undefined) {
    io.stdout(text);
    return;
  }
  try {
    writeFileSync(out, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CliError(`${out}: cannot write file (${code})`, EXIT.invalidInput);
  }
}
