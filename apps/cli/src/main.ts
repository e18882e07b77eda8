import { EXIT } from './shell/exit-codes.js';
import type { CommandIo } from './shell/io.js';
// The product's version is the root package's (the one stored reports record).
import rootPackage from '../../../package.json' with { type: 'json' };

type Command = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/** A command of the table: what the top-level help says of it, and how to load it. */
interface CommandEntry {
  /** What it does, in one line of `assay --help`. */
  summary: string;
  /** Its subcommands, as its own usage names them (none: it takes options and files). */
  subcommands?: readonly string[];
  /** Loads the command: what runs it and its help (`assay <command> --help`). */
  load: () => Promise<{ run: Command; usage: string }>;
}

/**
 * Every command, in the order `assay --help` lists them. Commands are loaded on first use,
 * so `assay eval` does not pay for loading the database, server or statistics code, and
 * `assay --version` or `--help` loads none of them: this module imports nothing statically
 * but the exit codes and the version (the error reporter, which needs every error class,
 * is loaded when a command fails).
 */
export const COMMANDS: Record<string, CommandEntry> = {
  eval: {
    summary: 'evaluate TREC runs against qrels, trec_eval-compatible',
    load: async () => {
      const m = await import('./eval/eval-command.js');
      return { run: m.evalCommand, usage: m.EVAL_USAGE };
    },
  },
  agree: {
    summary: 'agreement between two label sets: kappa, alpha, confusion matrix',
    load: async () => {
      const m = await import('./analysis/agree-command.js');
      return { run: m.agreeCommand, usage: m.AGREE_USAGE };
    },
  },
  compare: {
    summary: 'significance-tested leaderboard; two qrels: leaderboard agreement',
    load: async () => {
      const m = await import('./analysis/compare-command.js');
      return { run: m.compareCommand, usage: m.COMPARE_USAGE };
    },
  },
  ppi: {
    summary: 'PPI++ leaderboard from few human and many LLM labels; what to label',
    subcommands: ['sample'],
    load: async () => {
      const m = await import('./analysis/ppi-command.js');
      return { run: m.ppiCommand, usage: m.PPI_USAGE };
    },
  },
  pool: {
    summary: 'build a depth-k judgment pool from runs, in judging-priority order',
    load: async () => {
      const m = await import('./judging/pool-command.js');
      return { run: m.poolCommand, usage: m.POOL_USAGE };
    },
  },
  consensus: {
    summary: 'one label set from several (majority, mean or median grade)',
    load: async () => {
      const m = await import('./judging/consensus-command.js');
      return { run: m.consensusCommand, usage: m.CONSENSUS_USAGE };
    },
  },
  serve: {
    summary: 'serve the API (npm start), over PostgreSQL or embedded PGlite',
    load: async () => {
      const m = await import('./admin/serve-command.js');
      return { run: m.serveCommand, usage: m.SERVE_USAGE };
    },
  },
  import: {
    summary: 'into the database, one transaction per file',
    subcommands: ['collection', 'documents', 'topics', 'qrels', 'run'],
    load: async () => {
      const m = await import('./catalog/import-command.js');
      return { run: m.importCommand, usage: m.IMPORT_USAGE };
    },
  },
  datasets: {
    summary: 'the datasets assay ships (cranfield)',
    subcommands: ['list', 'load'],
    load: async () => {
      const m = await import('./catalog/datasets-command.js');
      return { run: m.datasetsCommand, usage: m.DATASETS_USAGE };
    },
  },
  collections: {
    summary: 'a stored collection, deleted with everything in it',
    subcommands: ['delete'],
    load: async () => {
      const m = await import('./catalog/collections-command.js');
      return { run: m.collectionsCommand, usage: m.COLLECTIONS_USAGE };
    },
  },
  db: {
    summary: 'database maintenance',
    subcommands: ['migrate'],
    load: async () => {
      const m = await import('./catalog/db-command.js');
      return { run: m.dbCommand, usage: m.DB_USAGE };
    },
  },
  judge: {
    summary: 'judge a pool with an LLM judge into qrels (crash-safe, resumable)',
    load: async () => {
      const m = await import('./judging/judge-command.js');
      return { run: m.judgeCommand, usage: m.JUDGE_USAGE };
    },
  },
  'judge-report': {
    summary: 'how good LLM judges are: against human labels or each other, drift, bias',
    load: async () => {
      const m = await import('./analysis/judge-report-command.js');
      return { run: m.judgeReportCommand, usage: m.JUDGE_REPORT_USAGE };
    },
  },
  worker: {
    summary: "judge the database's pending judge tasks (many workers, one Postgres)",
    load: async () => {
      const m = await import('./judging/worker-command.js');
      return { run: m.workerCommand, usage: m.WORKER_USAGE };
    },
  },
  answers: {
    summary: 'LLM scores of generated answers; means, win rates, t-tests',
    subcommands: ['score', 'report', 'agree'],
    load: async () => {
      const m = await import('./answers/answers-command.js');
      return { run: m.answersCommand, usage: m.ANSWERS_USAGE };
    },
  },
  nuggets: {
    summary: 'RAG answers evaluated by nuggets; nugget banks',
    subcommands: ['import', 'export', 'create', 'assign', 'score'],
    load: async () => {
      const m = await import('./rag/nuggets-command.js');
      return { run: m.nuggetsCommand, usage: m.NUGGETS_USAGE };
    },
  },
  support: {
    summary: "support of RAG answers' citations by the cited passages",
    subcommands: ['assign', 'score'],
    load: async () => {
      const m = await import('./rag/support-command.js');
      return { run: m.supportCommand, usage: m.SUPPORT_USAGE };
    },
  },
  rubrics: {
    summary: 'per-topic weighted rubrics of RAG answers',
    subcommands: ['assign', 'score'],
    load: async () => {
      const m = await import('./rag/rubrics-command.js');
      return { run: m.rubricsCommand, usage: m.RUBRICS_USAGE };
    },
  },
  retrieve: {
    summary: 'a TREC run from a lexical, LLM or embedding method (--method)',
    load: async () => {
      const m = await import('./retrieval/retrieve-command.js');
      return { run: m.retrieveCommand, usage: m.RETRIEVE_USAGE };
    },
  },
  fuse: {
    summary: 'fuse runs: reciprocal rank fusion, CombSUM, CombMNZ, interleaving',
    load: async () => {
      const m = await import('./retrieval/fuse-command.js');
      return { run: m.fuseCommand, usage: m.FUSE_USAGE };
    },
  },
  index: {
    summary: 'save a BM25 index of a collection',
    subcommands: ['build'],
    load: async () => {
      const m = await import('./retrieval/index-command.js');
      return { run: m.indexCommand, usage: m.INDEX_USAGE };
    },
  },
  export: {
    summary: 'stored runs and label sets as TREC files; fine-tuning JSONL',
    subcommands: ['run', 'qrels', 'finetune'],
    load: async () => {
      const m = await import('./catalog/export-command.js');
      return { run: m.exportCommand, usage: m.EXPORT_USAGE };
    },
  },
  users: {
    summary: 'people who label or administer; API tokens',
    subcommands: ['add', 'list', 'tokens', 'token', 'revoke', 'rotate'],
    load: async () => {
      const m = await import('./admin/users-command.js');
      return { run: m.usersCommand, usage: m.USERS_USAGE };
    },
  },
};

/** The top-level help, made from the table. */
function topLevelUsage(): string {
  const entries = Object.entries(COMMANDS);
  const width = Math.max(...entries.map(([name]) => name.length)) + 2;
  const lines = entries.map(([name, { summary, subcommands }]) => {
    const subs = subcommands ? `: ${subcommands.join(', ')}` : '';
    return `  ${name.padEnd(width)}${summary}${subs}`;
  });
  return `Usage: assay <command> [options]

Commands:
${lines.join('\n')}

Run 'assay <command> --help' for a command's options; 'assay --version' for the version.`;
}

/** Runs the assay CLI and returns the exit code (never calls process.exit). */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(`${topLevelUsage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`assay ${rootPackage.version}\n`);
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr(`assay: unknown command '${name}'\n${topLevelUsage()}\n`);
    return EXIT.usage;
  }
  const command = await entry.load();
  try {
    return await command.run(rest, io);
  } catch (error) {
    const { reportError } = await import('./shell/report-error.js');
    return reportError(name, error, command.usage, io);
  }
}
