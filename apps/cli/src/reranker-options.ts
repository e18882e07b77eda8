import type { ModelRetrieveOptions } from '@assay/methods';
import { UsageError } from './getopt.js';
import { countOption } from './retrieval-inputs.js';

/** Option keys of the rerankers (they apply to methods with models only). */
export const RERANKER_KEYS = [
  'reranker',
  'rerankerModel',
  'rerankDepth',
  'rankgptWindow',
  'rankgptStep',
  'rankgptWords',
];

/** The reranker settings of `assay retrieve`, checked, and the cross-encoder's model. */
export function rerankerOptions(
  method: string,
  option: (key: string) => string | undefined,
): {
  options: Pick<ModelRetrieveOptions, 'reranker' | 'rerankDepth' | 'rankgpt'>;
  model?: string;
} {
  const reranker = option('reranker');
  if (reranker === undefined) {
    const stray = RERANKER_KEYS.find((key) => option(key) !== undefined);
    if (stray)
      throw new UsageError(
        `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --reranker`,
      );
    if (method === 'rerank')
      throw new UsageError('--method rerank needs --reranker cross-encoder or rankgpt');
    return { options: {} };
  }
  if (reranker !== 'cross-encoder' && reranker !== 'rankgpt')
    throw new UsageError(`--reranker must be cross-encoder or rankgpt, not '${reranker}'`);
  const model = option('rerankerModel');
  if (reranker === 'cross-encoder' && model === undefined)
    throw new UsageError('--reranker cross-encoder needs --reranker-model');
  if (reranker === 'rankgpt') {
    if (model !== undefined)
      throw new UsageError('--reranker-model applies to cross-encoder; rankgpt uses --model');
  } else {
    for (const key of ['rankgptWindow', 'rankgptStep', 'rankgptWords'])
      if (option(key) !== undefined)
        throw new UsageError(
          `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to --reranker rankgpt`,
        );
  }
  const options: ReturnType<typeof rerankerOptions>['options'] = { reranker };
  const depth = countOption('--rerank-depth', option('rerankDepth'));
  if (depth !== undefined) options.rerankDepth = depth;
  if (reranker === 'rankgpt') {
    const window = countOption('--rankgpt-window', option('rankgptWindow'));
    const step = countOption('--rankgpt-step', option('rankgptStep'));
    const words = countOption('--rankgpt-words', option('rankgptWords'));
    if ((step ?? 10) > (window ?? 20))
      throw new UsageError(
        `--rankgpt-step (${step ?? 10}) must not exceed --rankgpt-window (${window ?? 20})`,
      );
    const rankgpt: NonNullable<ModelRetrieveOptions['rankgpt']> = {};
    if (window !== undefined) rankgpt.window = window;
    if (step !== undefined) rankgpt.step = step;
    if (words !== undefined) rankgpt.passageWords = words;
    if (Object.keys(rankgpt).length > 0) options.rankgpt = rankgpt;
  }
  return model === undefined ? { options } : { options, model };
}
