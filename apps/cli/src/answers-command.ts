import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { JudgeTemplate } from '@assay/judge';
import {
  checkAnswerTemplate,
  DbCallStore,
  formatScoreLine,
  judgeWorkerDeps,
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
import { parseCollection, parseTopics } from '@assay/trec';
import { readText } from './evaluate-files.js';
import { CliError } from './io.js';
import { loadCheckedTemplate } from './judge-options.js';
import { writeAtomically } from './write-atomically.js';
import { afterBatchClient, batchMode, runBatchMode } from './batch-options.js';

/** The batch options' keys as this command's option names. */
const BATCH_FLAGS: Record<string, string> = {
  batchExport: 'batch-export',
  batchImport: 'batch-import',
  batchPoll: 'batch-poll',
};
import { asCliErrors, EXIT, withDatabase, type PlatformCommandIo } from './platform-session.js';

/** Exit status of `assay answers score` when some answers could not be scored. */
export const ANSWERS_EXIT = { failed: 5 } as const;

export const ANSWERS_USAGE = `Usage: assay answers score --judge ID --responses FILE --out SCORES.jsonl [options]
       assay answers report SCORES.jsonl [--test paired|welch] [--correction holm|bonferroni|bh|none]
                            [--format table|json|csv|latex|html] [--alpha A] [--seed N] [--samples N]
       assay answers agree A.jsonl B.jsonl [--scale 0-5] [--format table|json]

assay answers score grades generated answers with an LLM judge and writes one line per
(topic, system, trial): {"topic","system","trial","scores":{criterion: value},"justification"}
(comparative mode adds the answer's "label"). Every call is kept in the database
(DATABASE_URL, else embedded PGlite under ASSAY_DATA_DIR), so a rerun pays for nothing
it already asked.

  --judge ID            answer-quality (informativeness, completeness, novelty, actionability;
                        the SRSA rubric) or rag-groundedness (groundedness, answer_relevance,
                        correctness)
  --responses FILE      JSONL {"topic","system","answer","query"?,"references"?}
  --topics FILE         the requests (TSV, JSONL or TREC), for responses without "query"
  --mode M              pointwise (one answer per call; default) or comparative (all systems'
                        answers to a topic in one call, as A, B, C … in a seeded order)
  --examples FILE       answers graded by people: JSONL {"query","answer","scores","justification"?}
  --example-sets K      split the examples into K prompts and average the K evaluations
  --trials N            repeat every evaluation N times (each its own request; use a
                        --temperature above 0 for differing answers)
  --gold FILE           gold answers, JSONL {"topic","answer"} (rag-groundedness correctness)
  --docs FILE           documents (JSONL or TSV) to resolve references given as document ids
  --out FILE            the score file (written to a temporary file, then renamed)
  --failures FILE       also write the failed answers as JSONL {"topic","system","trial","reason","raw"}
  --model M             model name (default ASSAY_JUDGE_MODEL, then the judge's own)
  --temperature T       sampling temperature (default the judge's, 0)
  --seed N              seed of the comparative order (default 42)
  --concurrency N       calls in flight (default 8)
  --base-url URL        an OpenAI-compatible endpoint (default OPENAI_BASE_URL); key from OPENAI_API_KEY
  --rpm N, --tpm N      at most N requests / tokens per minute
  --timeout SECONDS     per-request timeout (default 120)
  --judges DIR          read judge templates from DIR instead of the shipped judges/
  --batch               send the calls through the OpenAI Batch API (batch prices); polls
                        every 30 s (--batch-poll SECONDS), stores the answers, then scores
                        from them with nothing sent live; a rerun waits for the same batch
  --batch-export FILE   write the calls still needed as a batch input file (JSONL, as the
                        Batch API and 'vllm run-batch' read it) and stop
  --batch-import FILE   load a batch output file into the call store, then score from the
                        stored answers with nothing sent live

A judge answer with a missing criterion or a grade outside 0-5 is asked again, then
reported on stderr as failed with its raw text; it is never counted as 0.
Exit status: 0 every answer scored; 1 usage or configuration error; 2 unreadable or
malformed input; 5 some answers failed (the score file holds the others).

assay answers report reads a score file and prints, per system and criterion, the mean
over topics (trials averaged first) with a 95% bootstrap interval (--seed, default 42;
--samples, default 10000), the win rate (share of the topics every system answered where
it has the top score; ties win for each) and the win rates normalised to sum to 1, and
per pair of systems and criterion a paired t-test (default) or Welch's t-test with the
correction applied per criterion over its pairs (default holm; significant at --alpha,
default 0.05). JSON: {systems: [{system, n, means, ci, winRate, winRateNormalised}],
tests: [{a, b, criterion, test, statistic, p, pAdjusted, significant}]}.

assay answers agree compares two score files of the same answers (an LLM judge and people
scoring on the same rubric, or two judges): per criterion both grade, over the answers both
scored (trials averaged), exact agreement, Cohen's kappa with linear and quadratic weights
and Krippendorff's ordinal alpha on the grades rounded to the --scale, and interval alpha
on the unrounded means.`;

function usage(message: string): CliError {
  return new CliError(`${message}\n\n${ANSWERS_USAGE}`, EXIT.usage);
}

/** Parses `--name value` options (every option takes a value) and positionals. */
function parse(
  argv: readonly string[],
  names: readonly string[],
  flagNames: readonly string[] = [],
): { values: Record<string, string | undefined>; flags: Set<string>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: Object.fromEntries([
        ...names.map((n) => [n, { type: 'string' as const }]),
        ...flagNames.map((n) => [n, { type: 'boolean' as const }]),
      ]),
      allowPositionals: true,
      strict: true,
    });
    const all = values as Record<string, string | boolean | undefined>;
    const flags = new Set(flagNames.filter((n) => all[n] === true));
    for (const n of flagNames) delete all[n];
    return { values: all as Record<string, string | undefined>, flags, positionals };
  } catch (error) {
    throw usage((error as Error).message);
  }
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw usage(`--${name} must be a positive integer`);
  return n;
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw usage(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function loadTemplate(id: string, dir: string | undefined): JudgeTemplate {
  return loadCheckedTemplate(id, dir, checkAnswerTemplate);
}

function docsFormat(file: string): 'jsonl' | 'tsv' {
  const name = basename(file).toLowerCase();
  if (/\.jsonl?$/.test(name)) return 'jsonl';
  if (/\.tsv$/.test(name)) return 'tsv';
  throw usage(`cannot tell the format of ${file}; name it .jsonl or .tsv`);
}

async function scoreCommand(argv: readonly string[], io: PlatformCommandIo): Promise<number> {
  const { values, flags, positionals } = parse(
    argv,
    [
      'judge',
      'responses',
      'topics',
      'mode',
      'examples',
      'example-sets',
      'trials',
      'gold',
      'docs',
      'out',
      'failures',
      'model',
      'temperature',
      'seed',
      'concurrency',
      'base-url',
      'rpm',
      'tpm',
      'timeout',
      'judges',
      'batch-export',
      'batch-import',
      'batch-poll',
    ],
    ['batch'],
  );
  if (positionals.length) throw usage(`unexpected argument ${positionals[0]}`);
  if (!values.judge) throw usage('--judge is required');
  const batch = batchMode(
    (key) => values[BATCH_FLAGS[key] ?? key],
    (key) => (key === 'batch' ? flags.has('batch') : values[BATCH_FLAGS[key] ?? key] !== undefined),
  );
  if (!values.responses) throw usage('--responses is required');
  if (!values.out) throw usage('--out is required');
  if (values['example-sets'] !== undefined && !values.examples)
    throw usage('--example-sets needs --examples');
  const template = loadTemplate(values.judge, values.judges);
  const mode = oneOf('mode', values.mode, ['pointwise', 'comparative'] as const, 'pointwise');
  const trials = positiveInt('trials', values.trials, 1);
  const exampleSets = positiveInt('example-sets', values['example-sets'], 1);
  const concurrency = positiveInt('concurrency', values.concurrency, 8);
  let temperature: number | undefined;
  if (values.temperature !== undefined) {
    temperature = Number(values.temperature);
    if (!(temperature >= 0 && temperature <= 2)) throw usage('--temperature must be in [0, 2]');
  }
  let seed = 42;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!Number.isSafeInteger(seed)) throw usage('--seed must be an integer');
  }
  const timeout =
    values.timeout === undefined ? undefined : positiveInt('timeout', values.timeout, 120);

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
      for (const t of parseTopics(readText(values.topics), values.topics)) {
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
        parseCollection(readText(values.docs), values.docs, docsFormat(values.docs)).map((d) => [
          d.id,
          d.text,
        ]),
      );
    return spec;
  });

  return withDatabase(io, async (db, config) => {
    const model = values.model ?? config.judgeModel ?? template.model.name;
    if (!model) throw usage('no model: give --model or set ASSAY_JUDGE_MODEL');
    const endpoint = {
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(values.rpm ? { rpm: positiveInt('rpm', values.rpm, 1) } : {}),
      ...(values.tpm ? { tpm: positiveInt('tpm', values.tpm, 1) } : {}),
      ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
    };
    const deps = { ...judgeWorkerDeps(config, endpoint, concurrency), store: new DbCallStore(db) };
    const scoring = {
      ...input,
      settings: { model, ...(temperature === undefined ? {} : { temperature }) },
    };
    if (batch) {
      const step: LlmStep = (d) => scoreAnswers(scoring, { ...deps, ...d });
      const stopped = await runBatchMode(io, 'assay answers score', batch, db, step, {
        config,
        endpoint,
        prices: deps.prices!,
      });
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
  const { values, positionals } = parse(argv, [
    'test',
    'correction',
    'format',
    'alpha',
    'seed',
    'samples',
  ]);
  if (positionals.length !== 1) throw usage('give one score file');
  const test = oneOf('test', values.test, ['paired', 'welch'] as const, 'paired');
  const correction = oneOf<PValueAdjustment>(
    'correction',
    values.correction,
    ['holm', 'bonferroni', 'bh', 'none'],
    'holm',
  );
  const format = oneOf<AnswersReportFormat>(
    'format',
    values.format,
    ['table', 'json', 'csv', 'latex', 'html'],
    'table',
  );
  const alpha = values.alpha === undefined ? 0.05 : Number(values.alpha);
  if (!(alpha > 0 && alpha < 1)) throw usage('--alpha must be in (0, 1)');
  const seed = values.seed === undefined ? 42 : Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw usage('--seed must be an integer');
  const samples = positiveInt('samples', values.samples, 10000);
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
  const { values, positionals } = parse(argv, ['scale', 'format']);
  if (positionals.length !== 2) throw usage('give two score files');
  const format = oneOf('format', values.format, ['table', 'json'] as const, 'table');
  const m = /^(-?\d+)-(-?\d+)$/.exec(values.scale ?? '0-5');
  if (!m || Number(m[1]) >= Number(m[2])) throw usage('--scale must be MIN-MAX, e.g. 0-5');
  const scale = { min: Number(m[1]), max: Number(m[2]) };
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
  const [sub, ...rest] = argv;
  if (sub === '-h' || sub === '--help' || sub === 'help') {
    io.stdout(`${ANSWERS_USAGE}\n`);
    return 0;
  }
  if (sub === 'score') return scoreCommand(rest, io);
  if (sub === 'report') return reportCommand(rest, io);
  if (sub === 'agree') return agreeCommand(rest, io);
  throw usage(
    sub === undefined ? 'give a subcommand: score, report or agree' : `unknown subcommand '${sub}'`,
  );
}
