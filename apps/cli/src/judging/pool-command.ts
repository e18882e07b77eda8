import { buildDepthPool, formatPool, poolStats, poolToJson, type PoolOrder } from '@assay/pooling';
import { parseQrels, parseRun, type Qrels } from '@assay/trec';
import { readTopics } from '../shell/input-files.js';
import { ENCODING_OPTION, inputEncoding, readText } from '../shell/read-input.js';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  oneOf,
  type OptionSpec,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';

export const POOL_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'depth',
    key: 'depth',
    kind: integer({ min: 1 }),
    arg: 'K',
    help: 'documents each run contributes per topic (required)',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: FILE,
    arg: 'FILE',
    help: 'only these topics (TSV, JSONL or TREC topic file), in that order',
  },
  {
    long: 'exclude-judged',
    key: 'exclude',
    kind: FILE,
    repeats: true,
    arg: 'Q',
    help: 'leave out pairs already graded (grade >= 0) in qrels Q; repeatable',
  },
  {
    long: 'order',
    key: 'order',
    kind: oneOf('best-rank', 'rrf', 'move-to-front', 'docno'),
    arg: 'ORDER',
    help: 'best-rank (default), rrf, move-to-front or docno',
  },
  {
    long: 'per-topic-cap',
    key: 'cap',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'at most N documents per topic, after ordering',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('text', 'json'),
    arg: 'F',
    help: "text (default) or json (the pool with every item's ranks and runs)",
  },
  {
    long: 'stats',
    key: 'stats',
    kind: FLAG,
    help: "print pool size per topic and each run's (unique) contribution to stderr",
  },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const POOL_USAGE = commandHelp({
  usage: `assay pool --depth K [--topics FILE] [--exclude-judged QRELS]... [--order ORDER]
                  [--per-topic-cap N] [--format text|json] [--stats] RUN...`,
  about: `Builds a judgment pool: the union of each run's top K documents per topic (ranked as
trec_eval ranks: score descending, ties by docno descending), in judging-priority order,
topics interleaved so that a partial budget covers every topic. Prints topic<TAB>docno lines.`,
  sections: [{ specs: POOL_OPTIONS }],
});

/** `assay pool`: a depth-k pool of runs, in judging-priority order. */
export function poolCommand(argv: readonly string[], io: CommandIo): number {
  const parsed = getopt(argv, POOL_OPTIONS);
  const { options, positionals } = parsed;
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('help')) {
    io.stdout(`${POOL_USAGE}\n`);
    return 0;
  }
  const depth = parsed.number('depth');
  if (depth === undefined) throw new UsageError('--depth is required');
  if (positionals.length === 0) throw new UsageError('expected at least one RUN');
  const order = (parsed.option('order') ?? 'best-rank') as PoolOrder;
  const format = parsed.option('format') ?? 'text';

  const runs = positionals.map((path) => parseRun(readText(path, encoding), path));
  const topicsFile = options.get('topics')?.at(-1);
  const exclude: Qrels[] = (options.get('exclude') ?? []).map((path) =>
    parseQrels(readText(path, encoding), path),
  );
  const cap = parsed.number('cap');
  const pool = buildDepthPool(runs, {
    depth,
    order,
    exclude,
    ...(topicsFile === undefined
      ? {}
      : { topics: readTopics(topicsFile, { encoding }).map((t) => t.id) }),
    ...(cap === undefined ? {} : { perTopicCap: cap }),
  });
  io.stdout(
    format === 'json' ? `${JSON.stringify(poolToJson(pool), null, 2)}\n` : formatPool(pool),
  );
  if (options.has('stats')) {
    const stats = poolStats(pool, runs);
    const lines = [`pool: ${stats.total} pairs over ${stats.perTopic.size} topics`];
    for (const [topic, size] of stats.perTopic) lines.push(`  topic ${topic}: ${size} pairs`);
    for (const [run, c] of stats.perRun)
      lines.push(`  ${run}: ${c.contributed} contributed, ${c.unique} only from this run`);
    io.stderr(`${lines.join('\n')}\n`);
  }
  return 0;
}
