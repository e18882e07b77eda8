import type { JudgeTemplate } from '@assay/judge';
import {
  checkAnswerTemplate,
  formatScoreLine,
  llmStepClients,
  parseGoldAnswers,
  parseResponses,
  parseScoredExamples,
  parseScoreLines,
  renderAnswersReport,
  routeBreakdown,
  scoreAnswers,
  type AnswersReportFormat,
  type LlmStep,
  type AnswerTopic,
  type ScoreAnswersInput,
} from '@assay/platform';
import {
  answerQualityReport,
  answerScoreAgreement,
  trialSpread,
  type PValueAdjustment,
} from '@assay/stats';
import { readText } from '../eval/evaluate-files.js';
import { DOCS_FORMAT_OPTION, readDocuments, readTopics } from '../shell/input-files.js';
import {
  commandHelp,
  FILE,
  getopt,
  HELP_OPTION,
  integer,
  number,
  oneOf,
  type OptionSpec,
  SCALE,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { CliError } from '../shell/io.js';
import {
  ENDPOINT_OPTIONS,
  endpointOptions,
  JUDGES_OPTION,
  loadCheckedTemplate,
  MODEL_OPTION,
  TEMPERATURE_OPTION,
} from '../judging/judge-options.js';
import { prepareCommandStep } from '../shell/llm-step.js';
import { writeAtomically } from '../shell/write-atomically.js';
import {
  afterBatchClient,
  BATCH_OPTIONS,
  batchMode,
  runBatchMode,
} from '../judging/batch-options.js';
import {
  asCliErrors,
  EXIT,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';
import { runSubcommand } from '../rag/rag-cli.js';

/** Exit status of `assay answers score` when some answers could not be scored. */
export const ANSWERS_EXIT = { failed: 5 } as const;

/** The options of `assay answers score`. */
export const ANSWERS_SCORE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: `answer-quality (informativeness, completeness, novelty, actionability;
the SRSA rubric) or rag-groundedness (groundedness, answer_relevance,
correctness)`,
  },
  {
    long: 'responses',
    key: 'responses',
    kind: FILE,
    help: 'JSONL {"topic","system","answer","query"?,"references"?}',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: FILE,
    help: 'the requests (TSV, JSONL, TREC or cran.qry), for responses without "query"',
  },
  {
    long: 'mode',
    key: 'mode',
    kind: oneOf('pointwise', 'comparative'),
    arg: 'MODE',
    help: `pointwise (one answer per call; default) or comparative (all systems'
answers to a topic in one call, as A, B, C … in a seeded order)`,
  },
  {
    long: 'examples',
    key: 'examples',
    kind: FILE,
    help: 'answers graded by people: JSONL {"query","answer","scores","justification"?}',
  },
  {
    long: 'example-sets',
    key: 'exampleSets',
    kind: integer({ min: 1 }),
    arg: 'K',
    help: 'split the examples into K prompts and average the K evaluations (default 1)',
  },
  {
    long: 'trials',
    key: 'trials',
    kind: integer({ min: 1 }),
    help: `repeat every evaluation N times (each its own request; use a
--temperature above 0 for differing answers; default 1)`,
  },
  {
    long: 'gold',
    key: 'gold',
    kind: FILE,
    help: 'gold answers, JSONL {"topic","answer"} (rag-groundedness correctness)',
  },
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    help: `documents (JSONL, TSV or Cranfield cran.all.1400, plain or gzip) to
resolve references given as document ids`,
  },
  DOCS_FORMAT_OPTION,
  {
    long: 'out',
    key: 'out',
    kind: FILE,
    help: 'the score file (written to a temporary file, then renamed)',
  },
  {
    long: 'failures',
    key: 'failures',
    kind: FILE,
    help: 'also write the failed answers as JSONL {"topic","system","trial","reason","raw"}',
  },
  MODEL_OPTION,
  TEMPERATURE_OPTION,
  {
    long: 'seed',
    key: 'seed',
    kind: integer(),
    help: 'seed of the comparative order (default 42)',
  },
  {
    long: 'concurrency',
    key: 'concurrency',
    kind: integer({ min: 1 }),
    help: 'calls in flight (default 8)',
  },
  ...ENDPOINT_OPTIONS,
  JUDGES_OPTION,
  ...BATCH_OPTIONS,
  HELP_OPTION,
];

/** The options of `assay answers report`. */
export const ANSWERS_REPORT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'test',
    key: 'test',
    kind: oneOf('paired', 'welch'),
    arg: 'T',
    help: "paired (t-test; default) or welch (Welch's t-test), per pair and criterion",
  },
  {
    long: 'correction',
    key: 'correction',
    kind: oneOf('holm', 'bonferroni', 'bh', 'none'),
    arg: 'C',
    help: 'holm (default), bonferroni, bh or none: the correction per criterion over its pairs',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('table', 'json', 'csv', 'latex', 'html'),
    arg: 'F',
    help: 'table (default), json, csv, latex or html',
  },
  {
    long: 'alpha',
    key: 'alpha',
    kind: number({ above: 0, below: 1 }),
    arg: 'A',
    help: 'significance level (default 0.05)',
  },
  { long: 'seed', key: 'seed', kind: integer(), help: 'seed of the bootstrap (default 42)' },
  {
    long: 'samples',
    key: 'samples',
    kind: integer({ min: 1 }),
    help: 'bootstrap resamples of the 95% intervals (default 10000)',
  },
  HELP_OPTION,
];

/** The options of `assay answers agree`. */
export const ANSWERS_AGREE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'scale',
    key: 'scale',
    kind: SCALE,
    help: 'the grade scale, e.g. 0..5 (or 0-5, 0:5; default 0..5)',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('table', 'json'),
    arg: 'F',
    help: 'table (default) or json',
  },
  HELP_OPTION,
];

export const ANSWERS_USAGE = commandHelp({
  usage: `assay answers score --judge ID --responses FILE --out SCORES.jsonl [options]
       assay answers report SCORES.jsonl [--test paired|welch] [--correction holm|bonferroni|bh|none]
                            [--format table|json|csv|latex|html] [--alpha A] [--seed N] [--samples N]
       assay answers agree A.jsonl B.jsonl [--scale MIN..MAX] [--format table|json]`,
  about: `assay answers score grades generated answers with an LLM judge and writes one line per
(topic, system, trial): {"topic","system","trial","scores":{criterion: value},"justification"}
(comparative mode adds the answer's "label"). Every call is kept in the database
(DATABASE_URL, else embedded PGlite under ASSAY_DATA_DIR), so a rerun pays for nothing
it already asked. A judge answer with a missing criterion or a grade outside 0-5 is asked
again, then reported on stderr as failed with its raw text; it is never counted as 0.
--batch sends the calls still needed through the OpenAI Batch API (batch prices), polls
it, stores the answers, then scores from them with nothing sent live.

assay answers report reads a score file and prints, per system and criterion, the mean
over topics (trials averaged first) with a 95% bootstrap interval, the win rate (share of
the topics every system answered where it has the top score; ties win for each) and the
win rates normalised to sum to 1, and per pair of systems and criterion a paired t-test
or Welch's t-test with the correction applied per criterion over its pairs (significant
at --alpha). JSON: {systems: [{system, n, means, ci, winRate, winRateNormalised}],
tests: [{a, b, criterion, test, statistic, p, pAdjusted, significant}]}.

assay answers agree compares two score files of the same answers (an LLM judge and people
scoring on the same rubric, or two judges): per criterion both grade, over the answers both
scored (trials averaged), exact agreement, Cohen's kappa with linear and quadratic weights
and Krippendorff's ordinal alpha on the grades rounded to the --scale, and interval alpha
on the unrounded means.`,
  sections: [
    { title: 'score options', specs: ANSWERS_SCORE_OPTIONS },
    { title: 'report options', specs: ANSWERS_REPORT_OPTIONS },
    { title: 'agree options', specs: ANSWERS_AGREE_OPTIONS },
  ],
  notes: `Exit status: 0 done (score: every answer scored); 1 usage or configuration error;
2 unreadable or malformed input; 5 some answers failed (the score file holds the others).`,
});

function loadTemplate(id: string, dir: string | undefined): JudgeTemplate {
  return loadCheckedTemplate(id, dir, checkAnswerTemplate);
}

async function scoreCommand(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const p = getopt(argv, ANSWERS_SCORE_OPTIONS);
  if (p.positionals.length) throw new UsageError(`unexpected argument ${p.positionals[0]}`);
  const values = {
    judge: p.option('judge'),
    responses: p.option('responses'),
    topics: p.option('topics'),
    examples: p.option('examples'),
    gold: p.option('gold'),
    docs: p.option('docs'),
    out: p.option('out'),
    failures: p.option('failures'),
    model: p.option('model'),
    judges: p.option('judges'),
  };
  if (!values.judge) throw new UsageError('--judge is required');
  const batch = batchMode(
    (key) => p.option(key),
    (key) => p.has(key),
  );
  if (!values.responses) throw new UsageError('--responses is required');
  if (!values.out) throw new UsageError('--out is required');
  if (p.has('exampleSets') && !values.examples)
    throw new UsageError('--example-sets needs --examples');
  const template = loadTemplate(values.judge, values.judges);
  const mode = (p.option('mode') ?? 'pointwise') as 'pointwise' | 'comparative';
  const trials = p.number('trials') ?? 1;
  const exampleSets = p.number('exampleSets') ?? 1;
  const concurrency = p.number('concurrency') ?? 8;
  const temperature = p.number('temperature');
  const seed = p.number('seed') ?? 42;
  const endpoint = endpointOptions(p);

  // Every file is read and checked before the database is opened or a call is made.
  const input = await asCliErrors(async () => {
    const responses = parseResponses(readText(values.responses!), values.responses);
    const spec: Omit<ScoreAnswersInput, 'settings'> = {
      template,
      responses,
      mode,
      trials,
      seed,
      concurrency,
    };
    if (values.topics) {
      const topics = new Map<string, AnswerTopic>();
      for (const t of readTopics(values.topics)) {
        const background = t.fields?.background;
        topics.set(t.id, {
          text: t.text,
          ...(typeof background === 'string' ? { background } : {}),
        });
      }
      spec.topics = topics;
    }
    if (values.examples) {
      spec.examples = parseScoredExamples(readText(values.examples), template, values.examples);
      spec.exampleSets = exampleSets;
    }
    if (values.gold) spec.gold = parseGoldAnswers(readText(values.gold), values.gold);
    if (values.docs)
      spec.documents = new Map(
        readDocuments(values.docs, { format: p.option('format') }).map((d) => [d.id, d.text]),
      );
    return spec;
  });

  return withDatabase(io, async (db, config) => {
    const prepared = await prepareCommandStep(config, {
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(template.model.name ? { templateModel: template.model.name } : {}),
      endpoint,
      concurrency,
    });
    const deps = llmStepClients(db, prepared);
    const scoring = {
      ...input,
      settings: {
        model: prepared.model,
        ...(temperature === undefined ? {} : { temperature }),
      },
    };
    if (batch) {
      const step: LlmStep = (d) => scoreAnswers(scoring, { ...deps, ...d });
      const stopped = await runBatchMode(io, 'assay answers score', batch, db, step, prepared);
      if (stopped !== undefined) return stopped;
      deps.client = afterBatchClient(batch);
    }
    const result = await scoreAnswers(scoring, deps);
    writeAtomically(values.out!, result.scores.map((s) => `${formatScoreLine(s)}\n`).join(''));
    if (values.failures)
      writeAtomically(
        values.failures,
        result.failures.map((f) => `${JSON.stringify(f)}\n`).join(''),
      );
    for (const f of result.failures)
      io.stderr(
        `failed: topic ${f.topic}, system ${f.system}, trial ${f.trial}: ${f.reason}` +
          `${f.raw === undefined ? '' : `\n  raw answer: ${JSON.stringify(f.raw)}`}\n`,
      );
    const answers = result.scores.length + result.failures.length;
    io.stderr(
      `${result.scores.length} of ${answers} answer evaluations scored, ${result.failures.length} failed; ` +
        `${result.calls.paid} calls paid${result.calls.paid === 0 ? '' : result.calls.costUsd === null ? ' (cost unknown: the model has no price)' : ` ($${result.calls.costUsd.toFixed(4)})`}, ` +
        `${result.calls.cached} answered from stored calls` +
        `${mode === 'comparative' ? `; comparative order seed ${seed}` : ''}\n`,
    );
    return result.failures.length ? ANSWERS_EXIT.failed : 0;
  });
}

function reportCommand(argv: readonly string[], io: PlatformCommandIo): number {
  const p = getopt(argv, ANSWERS_REPORT_OPTIONS);
  const { positionals } = p;
  if (positionals.length !== 1) throw new UsageError('give one score file');
  const test = (p.option('test') ?? 'paired') as 'paired' | 'welch';
  const correction = (p.option('correction') ?? 'holm') as PValueAdjustment;
  const format = (p.option('format') ?? 'table') as AnswersReportFormat;
  const alpha = p.number('alpha') ?? 0.05;
  const seed = p.number('seed') ?? 42;
  const samples = p.number('samples') ?? 10000;
  const lines = readScores(positionals[0]!);
  const report = answerQualityReport(lines, { test, correction, alpha, seed, samples });
  io.stdout(
    renderAnswersReport(report, format, {
      test,
      correction,
      alpha,
      spread: trialSpread(lines),
      routes: routeBreakdown(lines),
    }),
  );
  return 0;
}

function readScores(file: string) {
  try {
    return parseScoreLines(readText(file), file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError((error as Error).message, EXIT.invalidInput);
  }
}

function agreeCommand(argv: readonly string[], io: PlatformCommandIo): number {
  const p = getopt(argv, ANSWERS_AGREE_OPTIONS);
  const { positionals } = p;
  if (positionals.length !== 2) throw new UsageError('give two score files');
  const format = p.option('format') ?? 'table';
  const scale = p.scale('scale') ?? { min: 0, max: 5 };
  if (scale.min === scale.max)
    throw new UsageError(
      `--scale ${p.option('scale')}: the lowest grade must be below the highest`,
    );
  const rows = answerScoreAgreement(
    readScores(positionals[0]!),
    readScores(positionals[1]!),
    scale,
  );
  if (format === 'json') {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : 'n/a');
  const table = [
    ['criterion', 'n', 'exact', 'kappa lin', 'kappa quad', 'alpha ord', 'alpha int'],
    ...rows.map((r) => [
      r.criterion,
      String(r.n),
      f(r.exact),
      f(r.kappaLinear),
      f(r.kappaQuadratic),
      f(r.alphaOrdinal),
      f(r.alphaInterval),
    ]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  io.stdout(
    table
      .map((r) =>
        r
          .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
          .join('  '),
      )
      .join('\n') + '\n',
  );
  return 0;
}

/** `assay answers score|report|agree`. */
export async function answersCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  return runSubcommand(argv, io, ANSWERS_USAGE, {
    score: (rest) => scoreCommand(rest, io),
    report: (rest) => Promise.resolve(reportCommand(rest, io)),
    agree: (rest) => Promise.resolve(agreeCommand(rest, io)),
  });
}
