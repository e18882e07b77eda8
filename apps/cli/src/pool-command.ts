import { buildDepthPool, formatPool, poolStats, poolToJson, type PoolOrder } from '@assay/pooling';
import { parseQrels, parseRun, parseTopics, type Qrels } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from './read-input.js';
import { FLAG, getopt, optionsHelp, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';

const OPTIONS: OptionSpec[] = [
  {
    long: 'depth',
    key: 'depth',
    kind: TEXT,
    arg: 'K',
    help: 'documents each run contributes per topic (required)',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: TEXT,
    arg: 'FILE',
    help: 'only these topics (TSV, JSONL or TREC topic file), in that order',
  },
  {
    long: 'exclude-judged',
    key: 'exclude',
    kind: TEXT,
    arg: 'Q',
    help: 'leave out pairs already graded (grade >= 0) in qrels Q; repeatable',
  },
  {
    long: 'order',
    key: 'order',
    kind: TEXT,
    arg: 'ORDER',
    help: 'best-rank (default), rrf, move-to-front or docno',
  },
  {
    long: 'per-topic-cap',
    key: 'cap',
    kind: TEXT,
    arg: 'N',
    help: 'at most N documents per topic, after ordering',
  },
  {
    long: 'format',
    key: 'format',
    kind: TEXT,
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
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

export const POOL_USAGE = `Usage: assay pool --depth K [--topics FILE] [--exclude-judged QRELS]... [--order ORDER]
                  [--per-topic-cap N] [--format text|json] [--stats] RUN...

Builds a judgment pool: the union of each run's top K documents per topic (ranked as
trec_eval ranks: score descending, ties by docno descending), in judging-priority order,
topics interleaved so that a partial budget covers every topic. Prints topic<TAB>docno lines.

${optionsHelp(OPTIONS)}`;

/** `assay pool`: a depth-k pool of runs, in judging-priority order. */
export function poolCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('h')) {
    io.stdout(`${POOL_USAGE}\n`);
    return 0;
  }
  const depthText = options.get('depth')?.at(-1);
  if (depthText === undefined) throw new UsageError('--depth is required');
  const depth = positiveInteger('--depth', depthText);
  if (positionals.length === 0) throw new UsageError('expected at least one RUN');
  const order = (options.get('order')?.at(-1) ?? 'best-rank') as PoolOrder;
  if (!['best-rank', 'rrf', 'move-to-front', 'docno'].includes(order)) {
    throw new UsageError(`--order must be best-rank, rrf, move-to-front or docno, not '${order}'`);
  }
  const format = options.get('format')?.at(-1) ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not '${format}'`);

  const runs = positionals.map((path) => parseRun(readText(path, encoding), path));
  const topicsFile = options.get('topics')?.at(-1);
  const exclude: Qrels[] = (options.get('exclude') ?? []).map((path) =>
    parseQrels(readText(path, encoding), path),
  );
  const capText = options.get('cap')?.at(-1);
  const pool = buildDepthPool(runs, {
    depth,
    order,
    exclude,
    ...(topicsFile === undefined
      ? {}
      : { topics: parseTopics(readText(topicsFile, encoding), topicsFile).map((t) => t.id) }),
    ...(capText === undefined ? {} : { perTopicCap: positiveInteger('--per-topic-cap', capText) }),
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

function positiveInteger(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new UsageError(`${name} needs a positive integer, not '${text}'`);
  return Number(text);
}
