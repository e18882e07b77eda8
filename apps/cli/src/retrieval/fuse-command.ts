import { fuseRuns, type FusionMethod, type ScoreNorm } from '@assay/retrieval';
import { formatRun, parseRun } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from '../shell/read-input.js';
import {
  checkNumber,
  commandHelp,
  getopt,
  HELP_OPTION,
  integer,
  LIST,
  number,
  oneOf,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';
import { ASSAY_CLI_VERSION } from './retrieval-inputs.js';

const METHODS = ['rrf', 'combsum', 'combmnz', 'interleave'];
const NORMS = ['minmax', 'zscore', 'sum', 'none'];

export const FUSE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'method',
    key: 'method',
    kind: oneOf(...METHODS),
    help: `rrf: Σ w_i / (k + rank_i) (reciprocal rank fusion); combsum: Σ w_i ·
norm(score_i); combmnz: combsum × number of runs that retrieved the
document; interleave: round robin, each run in turn gives its best
document not yet taken (required)`,
  },
  { long: 'k', key: 'k', kind: number({ min: 0 }), help: "rrf's k (default 60)" },
  {
    long: 'norm',
    key: 'norm',
    kind: oneOf(...NORMS),
    help: 'score normalisation of combsum and combmnz (default minmax)',
  },
  {
    long: 'weights',
    key: 'weights',
    kind: LIST,
    arg: 'W1,W2,...',
    help: 'one weight per run (numbers; default 1 each; not for interleave)',
  },
  {
    long: 'depth',
    key: 'depth',
    kind: integer({ min: 1 }),
    help: 'documents kept per topic (default 1000)',
  },
  { long: 'tag', key: 'tag', kind: TEXT, arg: 'NAME', help: 'run tag (default fuse-METHOD)' },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const FUSE_USAGE = commandHelp({
  usage: `assay fuse --method rrf|combsum|combmnz|interleave [--k 60] [--norm minmax|zscore|sum|none]
                  [--weights w1,w2,...] [--depth 1000] [--tag NAME] RUN... > RUN`,
  about: `Fuses TREC runs topic by topic and prints the fused run, preceded by '# key: value' lines
naming the method, its settings and the input runs. Each input topic is first ranked as
trec_eval ranks it (score desc, docno desc); ranks are 1-based.`,
  sections: [{ specs: FUSE_OPTIONS }],
});

/** `assay fuse`: one run from several. */
export function fuseCommand(argv: readonly string[], io: CommandIo): number {
  const parsed = getopt(argv, FUSE_OPTIONS);
  const { options, positionals } = parsed;
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('help')) {
    io.stdout(`${FUSE_USAGE}\n`);
    return 0;
  }
  const option = (key: string) => options.get(key)?.at(-1);
  const method = option('method');
  if (method === undefined) throw new UsageError('--method is required');
  const norm = option('norm') ?? 'minmax';
  if (positionals.length === 0) throw new UsageError('expected at least one RUN');
  const weights = options.has('weights')
    ? parsed.all('weights', true).map((w) => checkNumber('--weights', number(), w))
    : undefined;
  if (weights && weights.length !== positionals.length)
    throw new UsageError(`--weights has ${weights.length} values for ${positionals.length} runs`);
  if (weights && method === 'interleave')
    throw new UsageError('--weights does not apply to interleave');
  const k = parsed.number('k') ?? 60;
  const depth = parsed.number('depth') ?? 1000;
  const tag = option('tag') ?? `fuse-${method}`;
  const runs = positionals.map((path) => parseRun(readText(path, encoding), path));
  const fused = fuseRuns(runs, {
    method: method as FusionMethod,
    k,
    norm: norm as ScoreNorm,
    depth,
    name: tag,
    ...(weights ? { weights } : {}),
  });
  const header = [
    `# assay fuse: ${ASSAY_CLI_VERSION}`,
    `# method: ${method}`,
    ...(method === 'rrf' ? [`# k: ${k}`] : []),
    ...(method === 'combsum' || method === 'combmnz' ? [`# norm: ${norm}`] : []),
    ...(weights ? [`# weights: ${weights.join(',')}`] : []),
    `# depth: ${depth}`,
    ...positionals.map(
      (p, i) => `# run ${i + 1}: ${p.replace(/[\r\n]+/g, ' ')} (${runs[i]!.name})`,
    ),
  ];
  io.stdout(`${header.join('\n')}\n${formatRun(fused)}`);
  return 0;
}
