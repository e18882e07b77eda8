import { consensusLabels, type ConsensusMethod, type ConsensusTie } from '@assay/stats';
import { formatQrels, parseQrels } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from './read-input.js';
import { FLAG, getopt, optionsHelp, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';

const OPTIONS: OptionSpec[] = [
  {
    long: 'method',
    key: 'method',
    kind: TEXT,
    arg: 'M',
    help: 'majority (default), mean or median',
  },
  {
    long: 'min-votes',
    key: 'minVotes',
    kind: TEXT,
    arg: 'N',
    help: 'only items graded by at least N of the files (default 1)',
  },
  {
    long: 'tie',
    key: 'tie',
    kind: TEXT,
    arg: 'T',
    help: `low (default) or high: where a majority tie, an even median or a mean
exactly halfway between two grades goes`,
  },
  ENCODING_OPTION,
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

export const CONSENSUS_USAGE = `Usage: assay consensus [--method majority|mean|median] [--min-votes N] [--tie low|high] QRELS...

Combines several label sets on the same pool (LLM judges, models, people) into one:
for every (topic, docno) any of them grades, the majority grade (default), the mean
rounded to the nearest grade, or the median. Negative grades (pooled, not judged) are
not votes. Prints TREC qrels (topic 0 docno grade) on stdout and a summary on stderr.

${optionsHelp(OPTIONS)}`;

/** `assay consensus`: one label set from several. */
export function consensusCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('h')) {
    io.stdout(`${CONSENSUS_USAGE}\n`);
    return 0;
  }
  if (positionals.length < 2) throw new UsageError('expected at least two qrels files');
  const method = (options.get('method')?.at(-1) ?? 'majority') as ConsensusMethod;
  if (!['majority', 'mean', 'median'].includes(method))
    throw new UsageError(`--method must be majority, mean or median, not '${method}'`);
  const tie = (options.get('tie')?.at(-1) ?? 'low') as ConsensusTie;
  if (tie !== 'low' && tie !== 'high')
    throw new UsageError(`--tie must be low or high, not '${tie}'`);
  const minVotesText = options.get('minVotes')?.at(-1) ?? '1';
  const minVotes = Number(minVotesText);
  if (!/^\d+$/.test(minVotesText) || minVotes < 1 || minVotes > positionals.length)
    throw new UsageError(
      `--min-votes must be an integer from 1 to the number of files (${positionals.length}), not '${minVotesText}'`,
    );
  const sets = positionals.map((path) => parseQrels(readText(path, encoding), path));
  const result = consensusLabels(sets, { method, minVotes, tie });
  io.stdout(formatQrels(result.labels));
  io.stderr(
    `consensus (${method}, ties ${tie}) of ${sets.length} label sets: ${result.items} items, ` +
      `${result.disputed} with disagreeing votes, ${result.tieBroken} settled by the tie rule, ` +
      `${result.tooFewVotes} left out with fewer than ${minVotes} vote(s)\n`,
  );
  return 0;
}
