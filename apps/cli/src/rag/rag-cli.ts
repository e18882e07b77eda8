// What `assay nuggets`, `assay support` and `assay rubrics` share: the options of their LLM
// steps (model, judge, endpoint, --dry-run, --budget, prices), the answers they judge (a
// responses file or a stored response set), how they report spending, and their `score`
// subcommand (a file, or a stored assessment set) with its leaderboard formats.
import { basename, extname } from 'node:path';
import type { JudgeTemplate } from '@assay/judge';
import {
  answerScoresCsv,
  axisMeans,
  citationCounts,
  COMPARE_FORMATS,
  createAssessmentReport,
  ensureResponseSet,
  findCollectionAssessmentSet,
  formatAnswerScores,
  llmStepClients,
  nuggetAnswerScores,
  parseNuggetAssignments,
  parseRubricJudgments,
  parseSupportAssessments,
  publishLeaderboard,
  ragLeaderboard,
  renderComparison,
  rubricAnswerScores,
  scoreAssessmentSet,
  supportAnswerScores,
  type CitationCounts,
  type CompareFormat,
  type LlmStep,
  type LlmStepClients,
  type LlmStepReport,
  type PreparedLlmStep,
  type Queryable,
  type RagAnswerScores,
  type RagKind,
  type RagLeaderboard,
} from '@assay/platform';
import {
  afterBatchClient,
  batchMode,
  batchOptions,
  runBatchMode,
  type BatchMode,
} from '../judging/batch-options.js';
import { COMPARE_SETTING_OPTIONS, compareSettingsOf } from '../analysis/compare-options.js';
import { readText } from '../eval/evaluate-files.js';
import { EXIT } from '../shell/exit-codes.js';
import {
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  number,
  oneOf,
  type OptionSpec,
  type ParsedArgs,
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
  requireEndpoint,
  TEMPERATURE_OPTION,
} from '../judging/judge-options.js';
import {
  asCliErrors,
  commandConfig,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';
import { prepareCommandStep } from '../shell/llm-step.js';
import { ownModelPrice, PRICE_OPTIONS } from '../shell/price-options.js';
import { formatCost } from '../shell/progress.js';
import { writeAtomically } from '../shell/write-atomically.js';

/** Exit statuses of the RAG commands beyond the shared ones. */
export const RAG_EXIT = { failed: EXIT.judgeFailed, stopped: EXIT.judgeStopped } as const;

/** The options of every RAG step that calls a model. */
export const LLM_STEP_OPTIONS: readonly OptionSpec[] = [
  MODEL_OPTION,
  TEMPERATURE_OPTION,
  {
    long: 'concurrency',
    key: 'concurrency',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'prompts in flight at once (default 8)',
  },
  ...ENDPOINT_OPTIONS,
  {
    long: 'dry-run',
    key: 'dryRun',
    kind: FLAG,
    help: 'print the calls, tokens and cost it would spend; send and store nothing',
  },
  {
    long: 'budget',
    key: 'budget',
    kind: number({ min: 0 }),
    arg: 'USD',
    help: 'stop sending once this run has paid USD (run again to go on)',
  },
  ...PRICE_OPTIONS,
  JUDGES_OPTION,
  ...batchOptions('batch-api'),
];

/** Where the answers come from: a file (stored as a response set) or a stored set. */
export const ANSWER_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'responses',
    key: 'responses',
    kind: FILE,
    arg: 'FILE',
    help: `answers, JSONL: the TREC RAG 2024/2025 forms or {"topic","system","answer",
"references"?,"query"?}; stored as a response set named after the file
(the same file again reuses it)`,
  },
  {
    long: 'response-set',
    key: 'responseSet',
    kind: TEXT,
    arg: 'NAME',
    help: 'a stored response set instead of --responses',
  },
];

/** Parsed options (the name the RAG commands use). */
export type Parsed = ParsedArgs;

/** getopt over `specs` and `-h/--help`. */
export function parseOptions(argv: readonly string[], specs: readonly OptionSpec[]): Parsed {
  return getopt(argv, [...specs, HELP_OPTION]);
}

/** A required option's value. */
export function required(p: Parsed, key: string, flag: string): string {
  const value = p.option(key);
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** The judge of `--judge` (default `fallback`), of the kind `kind`. */
export function stepTemplate(
  p: Parsed,
  fallback: string,
  kind: JudgeTemplate['kind'],
  flag = 'judge',
): JudgeTemplate {
  return loadCheckedTemplate(p.option(flag) ?? fallback, p.option('judges'), (t) => {
    if (t.kind !== kind)
      throw new UsageError(`judge ${t.id} is a ${t.kind} judge; this step needs a ${kind} judge`);
  });
}

/** What an LLM step needs from its command line. */
export interface StepSetup {
  /** The step as the platform checked it: model, prices, budget, endpoint and pacing. */
  step: PreparedLlmStep;
  model: string;
  settings: { model: string; temperature?: number };
  dryRun: boolean;
  /** `--batch-api`, `--batch-export FILE` or `--batch-import FILE`. */
  batch?: BatchMode;
}

/** Reads the step options and the configuration; refuses a budget without a price. */
export async function stepSetup(
  p: Parsed,
  io: PlatformCommandIo,
  template: JudgeTemplate,
): Promise<StepSetup> {
  const config = await commandConfig(io);
  const model = p.option('model');
  const price = ownModelPrice(p);
  const budgetUsd = p.number('budget');
  const step = await prepareCommandStep(config, {
    ...(model === undefined ? {} : { model }),
    ...(template.model.name ? { templateModel: template.model.name } : {}),
    endpoint: endpointOptions(p),
    ...(price ? { price } : {}),
    concurrency: p.number('concurrency') ?? 8,
    ...(budgetUsd === undefined ? {} : { budgetUsd }),
  });
  const temperature = p.number('temperature');
  const dryRun = p.has('dryRun');
  const batch = batchMode(
    (key) => p.option(key),
    (key) => p.has(key),
    'batch-api',
  );
  if (batch && dryRun)
    throw new UsageError('--dry-run sends nothing already: give it without the batch options');
  // Writing a batch input file needs no endpoint.
  if (!dryRun && batch?.kind !== 'export') requireEndpoint(config, step.endpoint);
  return {
    step,
    model: step.model,
    settings: { model: step.model, ...(temperature === undefined ? {} : { temperature }) },
    dryRun,
    ...(batch ? { batch } : {}),
  };
}

/** What every LLM step's use-case takes from the step options: settings, pacing, dry run, budget. */
export function stepRunOptions(setup: StepSetup) {
  return {
    settings: setup.settings,
    concurrency: setup.step.concurrency,
    dryRun: setup.dryRun,
    ...(setup.step.budgetUsd === undefined ? {} : { budgetUsd: setup.step.budgetUsd }),
  };
}

/** The endpoint client, pacing, prices and the database's call store of a step. */
export function stepDeps(setup: StepSetup, db: Queryable): LlmStepClients {
  return llmStepClients(db, setup.step);
}

/**
 * A step's batch mode, when one is given: `--batch-export` writes the prompts the step
 * still needs and gives the exit status; `--batch-import` and `--batch-api` fill the call
 * store, and `deps` then sends nothing live (the step finishes from the stored answers).
 * `step` makes the platform's batch step of the command's use-case.
 */
export async function runStepBatch(
  io: PlatformCommandIo,
  command: string,
  setup: StepSetup,
  db: Queryable,
  deps: LlmStepClients,
  step: LlmStep,
): Promise<number | undefined> {
  if (!setup.batch) return undefined;
  const stopped = await runBatchMode(io, command, setup.batch, db, step, setup.step);
  if (stopped !== undefined) return stopped;
  deps.client = afterBatchClient(setup.batch);
  return undefined;
}

/**
 * The response set of `--responses FILE` (stored under the file's name) or `--response-set`;
 * `dryRun` says the store is rolled back after the run.
 */
export async function responseSetOf(
  p: Parsed,
  db: Parameters<typeof ensureResponseSet>[0],
  io: PlatformCommandIo,
  dryRun = false,
): Promise<string> {
  const file = p.option('responses');
  const named = p.option('responseSet');
  if ((file === undefined) === (named === undefined))
    throw new UsageError('give either --responses FILE or --response-set NAME');
  if (named !== undefined) return named;
  const name = basename(file!, extname(file!));
  const set = await ensureResponseSet(db, { name, text: readText(file!), file: file! });
  io.stderr(
    `${storedWord(set.created, dryRun)} response set "${set.name}" (${set.responses} answers, ${set.systems} systems, ${set.topics} topics)${set.created && dryRun ? '; a dry run does not store it' : ''}\n`,
  );
  return set.name;
}

/** How a message names what a file gave: stored, read (a dry run keeps nothing), or reused. */
export function storedWord(created: boolean, dryRun: boolean): string {
  if (!created) return 'using the stored';
  return dryRun ? 'read' : 'stored';
}

/** The account of an LLM step on stderr; a dry run's estimate on stdout. */
export function reportStep(
  io: PlatformCommandIo,
  what: string,
  model: string,
  report: LlmStepReport,
): void {
  if (report.planned) {
    const p = report.planned;
    io.stdout(
      `dry run: ${what}, model ${model}\n` +
        `  calls to send: ${p.calls} (${report.cachedAnswers} prompts answered by stored calls)\n` +
        `  estimated tokens: ${p.promptTokens} prompt + at most ${p.completionTokens} completion\n` +
        `  estimated cost: ${p.costUsd === undefined ? `unknown (no price for ${model})` : `at most $${p.costUsd.toFixed(4)}`}\n` +
        'nothing was sent or stored.\n',
    );
    return;
  }
  io.stderr(
    `${what}: ${report.paidCalls} calls paid (${formatCost(report.costUsd, report.unpricedCalls, report.paidCalls)}), ${report.cachedAnswers} prompts answered by stored calls` +
      `${report.stoppedByBudget ? '; the budget stopped it, run the same command again to go on' : ''}\n`,
  );
}

/** The options of the `score` subcommands. */
export function scoreOptions(kind: RagKind): OptionSpec[] {
  return [
    {
      long: 'collection',
      key: 'collection',
      kind: TEXT,
      arg: 'NAME',
      help: 'with --set: score a stored assessment set of this collection',
    },
    {
      long: 'set',
      key: 'set',
      kind: TEXT,
      arg: 'NAME',
      help: 'the stored assessment set (name or id) instead of a FILE',
    },
    ...(kind === 'support'
      ? [
          {
            long: 'first-citation-only',
            key: 'firstCitationOnly',
            kind: FLAG,
            help: "count only each sentence's first citation",
          },
        ]
      : []),
    ...COMPARE_SETTING_OPTIONS,
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
    {
      long: 'per-answer',
      key: 'perAnswer',
      kind: FILE,
      arg: 'FILE',
      help: 'also write every answer\'s scores: JSONL {"qid","system",<scores>} (.csv: CSV)',
    },
    {
      long: 'store',
      key: 'store',
      kind: FLAG,
      help: 'with --set: store the leaderboard as a report of the collection',
    },
    { long: 'title', key: 'title', kind: TEXT, arg: 'T', help: "the stored report's title" },
    {
      long: 'publish',
      key: 'publish',
      kind: TEXT,
      arg: 'SLUG',
      help: 'with --store: publish it as a public leaderboard under SLUG',
    },
  ];
}

const KIND_WORD: Record<RagKind, string> = {
  nuggets: 'nugget assignments',
  support: 'support assessments',
  rubric: 'rubric judgments',
};

function scoresOfFile(
  kind: RagKind,
  file: string,
  firstCitationOnly: boolean,
): { answers: RagAnswerScores[]; citations?: CitationCounts } {
  const text = readText(file);
  if (kind === 'nuggets')
    return { answers: nuggetAnswerScores(parseNuggetAssignments(text, file)) };
  if (kind === 'support') {
    const records = parseSupportAssessments(text, file);
    return {
      answers: supportAnswerScores(records, { firstCitationOnly }),
      citations: citationCounts(records, { firstCitationOnly }),
    };
  }
  return { answers: rubricAnswerScores(parseRubricJudgments(text, file)) };
}

/** Says how many citations are "cannot assess": they count in neither support score. */
function noteUnassessed(io: PlatformCommandIo, citations: CitationCounts | undefined): void {
  if (!citations || citations.cannotAssess === 0) return;
  io.stderr(
    citations.cannotAssess === citations.total
      ? `every one of the ${citations.total} citations is "cannot assess" (its passage was not there to judge): ` +
          'the support scores say nothing, every system scores 0; give the collection its documents and assess again\n'
      : `${citations.cannotAssess} of ${citations.total} citations are "cannot assess" and count in neither precision nor recall\n`,
  );
}

/** Means per system when there is no leaderboard (fewer than two systems or topics). */
function meansOnly(
  kind: RagKind,
  answers: readonly RagAnswerScores[],
  format: CompareFormat,
): string {
  const systems = [...new Set(answers.map((a) => a.system))].sort();
  const measures = Object.keys(answers[0]?.scores ?? {});
  const rows = systems.map((system) => {
    const own = answers.filter((a) => a.system === system);
    return {
      system,
      n: own.length,
      means: Object.fromEntries(
        measures.map((m) => [m, own.reduce((s, a) => s + a.scores[m]!, 0) / own.length]),
      ),
    };
  });
  const note = `fewer than two systems or two topics: means of the ${KIND_WORD[kind]}, no tests`;
  if (format === 'json') return `${JSON.stringify({ note, systems: rows }, null, 2)}\n`;
  return [
    note,
    ['system', 'n', ...measures].join('\t'),
    ...rows.map((r) => [r.system, r.n, ...measures.map((m) => r.means[m]!.toFixed(4))].join('\t')),
    '',
  ].join('\n');
}

/** The leaderboard in a format, with the rubric axes added to the text and JSON. */
function renderBoard(
  kind: RagKind,
  board: RagLeaderboard,
  answers: readonly RagAnswerScores[],
  format: CompareFormat,
  title?: string,
): string {
  const out = renderComparison(board.report, format, title === undefined ? {} : { title });
  if (kind !== 'rubric') return out;
  const topics = new Set(board.topics);
  const axes = axisMeans(answers.filter((a) => topics.has(a.topic)));
  if (format === 'json') return `${JSON.stringify({ ...JSON.parse(out), axes }, null, 2)}\n`;
  if (format !== 'table') return out;
  const lines = [
    '',
    'per axis (mean over the topics whose rubric has the axis with a positive weight):',
  ];
  for (const a of axes)
    lines.push(`  ${a.axis}\t${a.system}\t${a.mean.toFixed(4)}\t(${a.topics} topics)`);
  return `${out}${lines.join('\n')}\n`;
}

function write(io: PlatformCommandIo, out: string | undefined, text: string): void {
  if (out === undefined) io.stdout(text);
  else writeAtomically(out, text);
}

/** `assay <kind> score`: a file of judgments, or a stored assessment set. */
export async function scoreCommand(
  kind: RagKind,
  argv: readonly string[],
  io: PlatformCommandIo,
  usage: string,
): Promise<number> {
  const p = parseOptions(argv, scoreOptions(kind));
  if (p.has('help')) {
    io.stdout(`${usage}\n`);
    return EXIT.ok;
  }
  const settings = compareSettingsOf(p);
  const format = (p.option('format') ?? 'table') as CompareFormat;
  const firstCitationOnly = p.has('firstCitationOnly');
  const perAnswer = p.option('perAnswer');
  const writeAnswers = (answers: readonly RagAnswerScores[]) => {
    if (perAnswer === undefined) return;
    writeAtomically(
      perAnswer,
      /\.csv$/i.test(perAnswer)
        ? answerScoresCsv(kind, answers)
        : formatAnswerScores(kind, answers),
    );
  };
  const setRef = p.option('set');
  if (setRef === undefined) {
    if (p.positionals.length !== 1)
      throw new UsageError('give one FILE of judgments, or --collection and --set');
    for (const flag of ['store', 'publish', 'collection'])
      if (p.has(flag)) throw new UsageError(`--${flag} goes with --set`);
    const file = p.positionals[0]!;
    const { answers, citations } = await asCliErrors(async () =>
      scoresOfFile(kind, file, firstCitationOnly),
    );
    writeAnswers(answers);
    noteUnassessed(io, citations);
    const systems = new Set(answers.map((a) => a.system));
    const topics = new Set(answers.map((a) => a.topic));
    if (systems.size < 2 || topics.size < 2) {
      write(io, p.option('out'), meansOnly(kind, answers, format));
      return EXIT.ok;
    }
    const board = await asCliErrors(async () =>
      ragLeaderboard(kind, answers, settings, basename(file)),
    );
    write(io, p.option('out'), renderBoard(kind, board, answers, format));
    return EXIT.ok;
  }
  if (p.positionals.length > 0) throw new UsageError('give a FILE or --set, not both');
  const collection = required(p, 'collection', '--collection');
  if (p.has('publish') && !p.has('store')) throw new UsageError('--publish goes with --store');
  return withDatabase(io, async (db) => {
    const set = await findCollectionAssessmentSet(db, collection, kind, setRef);
    const scores = await scoreAssessmentSet(
      db,
      set.id,
      settings,
      firstCitationOnly ? { firstCitationOnly } : {},
    );
    writeAnswers(scores.answers);
    noteUnassessed(io, scores.citations);
    if (scores.incomplete.length > 0)
      io.stderr(
        `${scores.incomplete.length} answers are not fully judged and are left out (their topics too): ` +
          `${scores.incomplete
            .slice(0, 5)
            .map((i) => `${i.system} on ${i.topic} (${i.missing} items)`)
            .join(', ')}${scores.incomplete.length > 5 ? ', …' : ''}\n`,
      );
    if (!scores.leaderboard) {
      write(io, p.option('out'), meansOnly(kind, scores.answers, format));
      return EXIT.ok;
    }
    write(io, p.option('out'), renderBoard(kind, scores.leaderboard, scores.answers, format));
    if (p.has('store')) {
      const report = await createAssessmentReport(db, set.id, {
        settings,
        ...(firstCitationOnly ? { firstCitationOnly } : {}),
        ...(p.option('title') === undefined ? {} : { title: p.option('title')! }),
      });
      io.stderr(`stored report ${report.id} "${report.title}"\n`);
      const slug = p.option('publish');
      if (slug !== undefined) {
        await publishLeaderboard(db, { report: report.id, slug });
        io.stderr(`published at /leaderboards/${slug} (/api/public/leaderboards/${slug})\n`);
      }
    }
    return EXIT.ok;
  });
}

/** Turns a CliError-free failure summary into the exit status of an LLM step. */
export function stepExit(
  result: { failures: unknown[]; pending: number },
  stopped: boolean,
): number {
  if (stopped && result.pending > 0) return RAG_EXIT.stopped;
  return result.failures.length > 0 ? RAG_EXIT.failed : EXIT.ok;
}

/** A usage error for a subcommand group. */
/**
 * Runs `assay CMD SUB …`: the usage for `-h`, `--help` or `help` (also after the
 * subcommand), else the named subcommand, else a usage error naming the known ones.
 */
export function runSubcommand(
  argv: readonly string[],
  io: PlatformCommandIo,
  usage: string,
  subcommands: Record<string, (rest: readonly string[]) => Promise<number>>,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'help' || [sub, ...rest].some((a) => a === '-h' || a === '--help')) {
    io.stdout(`${usage}\n`);
    return Promise.resolve(EXIT.ok);
  }
  const run = sub === undefined ? undefined : subcommands[sub];
  if (run && Object.hasOwn(subcommands, sub!)) return run(rest);
  const names = Object.keys(subcommands);
  const known = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return Promise.reject(
    new CliError(
      sub === undefined ? `give a subcommand: ${known}` : `unknown subcommand '${sub}'`,
      EXIT.usage,
    ),
  );
}
