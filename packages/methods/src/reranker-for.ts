import type { HttpEndpoint } from '@assay/llm';
import { CrossEncoderReranker } from './cross-encoder-reranker.js';
import type { Reranker } from './method-context.js';
import { DEFAULT_RANKGPT, RankGptReranker } from './rankgpt-reranker.js';
import { choice, integer, SettingsError, type Spell } from './settings.js';

const ONLY_RANKGPT = { key: 'reranker', value: 'rankgpt' } as const;

/** The reranker settings of the methods with a rerank stage (rerank, gr-*, grill). */
export const RERANKER_SETTINGS = {
  reranker: choice(
    ['cross-encoder', 'rankgpt'],
    'the reranker: a cross-encoder over /v1/rerank (needs --reranker-model) or RankGPT, listwise over the chat model',
  ),
  rankgptWindow: integer("RankGPT's sliding window: passages per prompt", {
    default: DEFAULT_RANKGPT.window,
    min: 2,
    max: 100,
    onlyWith: ONLY_RANKGPT,
  }),
  rankgptStep: integer("RankGPT's step: how far the window moves up", {
    default: DEFAULT_RANKGPT.step,
    max: 100,
    onlyWith: ONLY_RANKGPT,
  }),
  rankgptWords: integer('RankGPT: words of a passage shown to the model', {
    default: DEFAULT_RANKGPT.passageWords,
    max: 5_000,
    onlyWith: ONLY_RANKGPT,
  }),
};

/** The reranker settings of a run, parsed. */
export interface RerankerSettings {
  reranker?: 'cross-encoder' | 'rankgpt' | undefined;
  rankgptWindow: number;
  rankgptStep: number;
  rankgptWords: number;
}

/** RankGPT's step may not exceed its window. */
export function checkRankGpt(s: RerankerSettings, spell: Spell): void {
  if (s.reranker === 'rankgpt' && s.rankgptStep > s.rankgptWindow)
    throw new SettingsError(
      'rankgptStep',
      `${spell('rankgptStep')} (${s.rankgptStep}) must not exceed ${spell('rankgptWindow')} (${s.rankgptWindow})`,
    );
}

/**
 * The reranker a run's settings name: a cross-encoder over the rerank endpoint's
 * `/v1/rerank` with `rerankerModel`, RankGPT over the chat endpoint (`rankgpt` step's
 * model), or none. The CLI and the API both get it from the platform's model resources.
 */
export function rerankerFor(
  s: Partial<RerankerSettings>,
  endpoint: HttpEndpoint,
  rankgptModel: string | undefined,
  rerankerModel: string | undefined,
): Reranker | undefined {
  if (s.reranker === 'cross-encoder') {
    if (!rerankerModel) throw new Error('the cross-encoder reranker needs a reranker model');
    return new CrossEncoderReranker(endpoint, rerankerModel);
  }
  if (s.reranker === 'rankgpt') {
    if (!rankgptModel) throw new Error('the rankgpt reranker needs a chat model');
    return new RankGptReranker(rankgptModel, {
      window: s.rankgptWindow ?? DEFAULT_RANKGPT.window,
      step: s.rankgptStep ?? DEFAULT_RANKGPT.step,
      passageWords: s.rankgptWords ?? DEFAULT_RANKGPT.passageWords,
    });
  }
  return undefined;
}
