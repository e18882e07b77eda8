import { EXIT } from './shell/exit-codes.js';
import type { CommandIo } from './shell/io.js';
// The product's version is the root package's (the one stored reports record).
import rootPackage from '../../../package.json' with { type: 'json' };

const USAGE = `Usage: assay <command> [options]

Commands:
  eval      evaluate TREC runs against qrels, trec_eval-compatible (assay eval --help)
  agree     agreement between two label sets: kappa, alpha, confusion matrix
  compare   significance-tested leaderboard; two qrels: leaderboard agreement
  ppi       leaderboard from a few human labels and LLM labels on everything (PPI++)
  pool      build a depth-k judgment pool from runs, in judging-priority order
  consensus one label set from several (majority, mean or median grade)
  serve     serve the API (npm start), over PostgreSQL or embedded PGlite
  import    import a collection, topics, qrels or runs into the database
  datasets  list or load the shipped datasets (cranfield)
  collections  delete a collection with everything in it (assay collections delete NAME)
  db        database maintenance (assay db migrate)
  judge     judge a pool with an LLM judge into qrels (crash-safe, resumable)
  judge-report  how good LLM judges are: against human labels or each other, drift, bias
  worker    judge pending tasks of the database's judge jobs (many workers, one Postgres)
  answers   score generated answers with an LLM judge; report means, win rates, t-tests
  nuggets   nugget banks and nugget evaluation of RAG answers (import, export, create, assign, score)
  support   support of RAG answers' citations by the cited passages (assign, score)
  rubrics   per-topic weighted rubrics of RAG answers (assign, score)
  retrieve  BM25, RM3, Rocchio, query-by-document, Query2doc, AMD, dense, hybrid or rerank into a TREC run
  fuse      fuse runs: reciprocal rank fusion, CombSUM, CombMNZ, interleaving
  index     build and save a BM25 index of a collection (assay index build)
  export    a stored run or label set as a TREC file; judged pairs as fine-tuning JSONL (run, qrels, finetune)
  users     people who label or administer: add (prints their token), list, token, revoke

Run 'assay <command> --help' for a command's options; 'assay --version' for the version.`;

type Command = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/**
 * Commands are loaded on first use, so `assay eval` does not pay for loading the
 * database, server or statistics code, and `assay --version` or `--help` loads none of
 * them: this module imports nothing statically but the exit codes and the version (the
 * error reporter, which needs every error class, is loaded when a command fails).
 */
const COMMANDS: Record<string, () => Promise<{ run: Command; usage: string }>> = {
  eval: async () => {
    const m = await import('./eval/eval-command.js');
    return { run: m.evalCommand, usage: m.EVAL_USAGE };
  },
  agree: async () => {
    const m = await import('./analysis/agree-command.js');
    return { run: m.agreeCommand, usage: m.AGREE_USAGE };
  },
  compare: async () => {
    const m = await import('./analysis/compare-command.js');
    return { run: m.compareCommand, usage: m.COMPARE_USAGE };
  },
  ppi: async () => {
    const m = await import('./analysis/ppi-command.js');
    return { run: m.ppiCommand, usage: m.PPI_USAGE };
  },
  serve: async () => {
    const m = await import('./admin/serve-command.js');
    return { run: m.serveCommand, usage: m.SERVE_USAGE };
  },
  import: async () => {
    const m = await import('./catalog/import-command.js');
    return { run: m.importCommand, usage: m.IMPORT_USAGE };
  },
  datasets: async () => {
    const m = await import('./catalog/datasets-command.js');
    return { run: m.datasetsCommand, usage: m.DATASETS_USAGE };
  },
  collections: async () => {
    const m = await import('./catalog/collections-command.js');
    return { run: m.collectionsCommand, usage: m.COLLECTIONS_USAGE };
  },
  db: async () => {
    const m = await import('./catalog/db-command.js');
    return { run: m.dbCommand, usage: m.DB_USAGE };
  },
  pool: async () => {
    const m = await import('./judging/pool-command.js');
    return { run: m.poolCommand, usage: m.POOL_USAGE };
  },
  judge: async () => {
    const m = await import('./judging/judge-command.js');
    return { run: m.judgeCommand, usage: m.JUDGE_USAGE };
  },
  'judge-report': async () => {
    const m = await import('./analysis/judge-report-command.js');
    return { run: m.judgeReportCommand, usage: m.JUDGE_REPORT_USAGE };
  },
  worker: async () => {
    const m = await import('./judging/worker-command.js');
    return { run: m.workerCommand, usage: m.WORKER_USAGE };
  },
  answers: async () => {
    const m = await import('./answers/answers-command.js');
    return { run: m.answersCommand, usage: m.ANSWERS_USAGE };
  },
  nuggets: async () => {
    const m = await import('./rag/nuggets-command.js');
    return { run: m.nuggetsCommand, usage: m.NUGGETS_USAGE };
  },
  support: async () => {
    const m = await import('./rag/support-command.js');
    return { run: m.supportCommand, usage: m.SUPPORT_USAGE };
  },
  rubrics: async () => {
    const m = await import('./rag/rubrics-command.js');
    return { run: m.rubricsCommand, usage: m.RUBRICS_USAGE };
  },
  users: async () => {
    const m = await import('./admin/users-command.js');
    return { run: m.usersCommand, usage: m.USERS_USAGE };
  },
  consensus: async () => {
    const m = await import('./judging/consensus-command.js');
    return { run: m.consensusCommand, usage: m.CONSENSUS_USAGE };
  },
  retrieve: async () => {
    const m = await import('./retrieval/retrieve-command.js');
    return { run: m.retrieveCommand, usage: m.RETRIEVE_USAGE };
  },
  fuse: async () => {
    const m = await import('./retrieval/fuse-command.js');
    return { run: m.fuseCommand, usage: m.FUSE_USAGE };
  },
  index: async () => {
    const m = await import('./retrieval/index-command.js');
    return { run: m.indexCommand, usage: m.INDEX_USAGE };
  },
  export: async () => {
    const m = await import('./catalog/export-command.js');
    return { run: m.exportCommand, usage: m.EXPORT_USAGE };
  },
};

/** Runs the assay CLI and returns the exit code (never calls process.exit). */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`assay ${rootPackage.version}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr(`assay: unknown command '${name}'\n${USAGE}\n`);
    return EXIT.usage;
  }
  const command = await load();
  try {
    return await command.run(rest, io);
  } catch (error) {
    const { reportError } = await import('./shell/report-error.js');
    return reportError(name, error, command.usage, io);
  }
}
