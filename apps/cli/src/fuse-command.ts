import { fuseRuns, type FusionMethod, type ScoreNorm } from '@assay/retrieval';
import { formatRun, parseRun } from '@assay/trec';
import { ENCODING_OPTION, inputEncoding, readText } from './read-input.js';
import { FLAG, getopt, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';
import { ASSAY_CLI_VERSION, countOption, numberOption } from './retrieval-inputs.js';

export const FUSE_USAGE = `Usage: assay fuse --method rrf|combsum|combmnz|interleave [--k 60] [--norm minmax|zscore|sum|none]
                  [--weights w1,w2,...] [--depth 1000] [--tag NAME] RUN... > RUN

Fuses TREC runs topic by topic and prints the fused run, preceded by '# key: value' lines
naming the method, its settings and the input runs. Each input topic is first ranked as
trec_eval ranks it (score desc, docno desc); ranks below are 1-based.

  rrf         Σ w_i / (k + rank_i)   (reciprocal rank fusion, k = 60 by default)
  combsum     Σ w_i · norm(score_i)  (--norm minmax by default)
  combmnz     combsum × number of runs that retrieved the document
  interleave  round robin: each run in turn gives its best document not yet taken
  --weights   one weight per run, comma-separated (default 1 each; not for interleave)
  --depth N   documents kept per topic (default 1000)
  --tag NAME  run tag (default fuse-METHOD)
  --encoding latin1  read the runs as ISO-8859-1 (default UTF-8, checked)`;

const OPTIONS: OptionSpec[] = [
  { long: 'method', key: 'method', kind: TEXT },
  { long: 'k', key: 'k', kind: TEXT },
  { long: 'norm', key: 'norm', kind: TEXT },
  { long: 'weights', key: 'weights', kind: TEXT },
  { long: 'depth', key: 'depth', kind: TEXT },
  { long: 'tag', key: 'tag', kind: TEXT },
  ENCODING_OPTION,
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

const METHODS = ['rrf', 'combsum', 'combmnz', 'interleave'];
const NORMS = ['minmax', 'zscore', 'sum', 'none'];

/** `assay fuse`: one run from several. */
export function fuseCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  const encoding = inputEncoding(options.get('encoding'));
  if (options.has('h')) {
    io.stdout(`${FUSE_USAGE}\n`);
    return 0;
  }
  const option = (key: string) => options.get(key)?.at(-1);
  const method = option('method');
  if (method === undefined) throw new UsageError('--method is required');
  if (!METHODS.includes(method))
    throw new UsageError(`--method must be one of ${METHODS.join(', ')}, not '${method}'`);
  const norm = option('norm') ?? 'minmax';
  if (!NORMS.includes(norm))
    throw new UsageError(`--norm must be one of ${NORMS.join(', ')}, not '${norm}'`);
  if (positionals.length === 0) throw new UsageError('expected at least one RUN');
  const weightsText = option('weights');
  const weights = weightsText?.split(',').map((w) => numberOption('--weights', w)!);
  if (weights && weights.length !== positionals.length)
    throw new UsageError(`--weights has ${weights.length} values for ${positionals.length} runs`);
  if (weights && method === 'interleave')
    throw new UsageError('--weights does not apply to interleave');
  const k = numberOption('--k', option('k'), 0) ?? 60;
  const depth = countOption('--depth', option('depth')) ?? 1000;
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
