import { consensusLabels, type ConsensusMethod, type ConsensusTie } from '@assay/stats';
import { formatQrels, parseQrels } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from '../shell/read-input.js';
import {
  commandHelp,
  getopt,
  HELP_OPTION,
  integer,
  mustBe,
  oneOf,
  type OptionSpec,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';

export const CONSENSUS_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'method',
    key: 'method',
    kind: oneOf('majority', 'mean', 'median'),
    arg: 'M',
    help: 'majority (default), mean or median',
  },
  {
    long: 'min-votes',
    key: 'minVotes',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'only items graded by at least N of the files (default 1)',
  },
  {
    long: 'tie',
    key: 'tie',
    kind: oneOf('low', 'high'),
    arg: 'T',
    help: `low (default) or high: where a majority tie, an even median or a mean
exactly halfway between two grades goes`,
  },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const CONSENSUS_USAGE = commandHelp({
  usage: `assay consensus [--method majority|mean|median] [--min-votes N] [--tie low|high] QRELS...`,
  about: `Combines several label sets on the same pool (LLM judges, models, people) into one:
for every (topic, docno) any of them grades, the majority grade (default), the mean
rounded to the nearest grade, or the median. Negative grades (pooled, not judged) are
not votes. Prints TREC qrels (topic 0 docno grade) on stdout and a summary on stderr.`,
  sections: [{ specs: CONSENSUS_OPTIONS }],
});

/** `assay consensus`: one label set from several. */
export function consensusCommand(argv: readonly string[], io: CommandIo): number {
  const parsed = getopt(argv, CONSENSUS_OPTIONS);
  const { options, positionals } = parsed;
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('help')) {
    io.stdout(`${CONSENSUS_USAGE}\n`);
    return 0;
  }
  if (positionals.length < 2) throw new UsageError('expected at least two qrels files');
  const method = (parsed.option('method') ?? 'majority') as ConsensusMethod;
  const tie = (parsed.option('tie') ?? 'low') as ConsensusTie;
  const minVotes = parsed.number('minVotes') ?? 1;
  if (minVotes > positionals.length)
    throw new UsageError(
      mustBe(
        '--min-votes',
        `an integer between 1 and the number of files (${positionals.length})`,
        parsed.option('minVotes')!,
      ),
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
