import { amdMethod } from './amd.js';
import { denseMethod, hybridMethod } from './dense-methods.js';
import {
  grAdMethod,
  grAqdAMethod,
  grAqdMethod,
  grQdMethod,
  grQrMethod,
} from './generate-then-retrieve.js';
import type { MethodDefinition } from './method-definition.js';
import { grillMethod } from './grill.js';
import { llmforumMethod } from './llmforum.js';
import { query2docMethod } from './query2doc.js';
import { reactMethod, simpleSearchMethod } from './search-baselines.js';
import { srsaMethod } from './srsa.js';
import { rerankMethod } from './rerank-method.js';

/** Every method that calls models, by its `--method` name. */
export const METHOD_DEFINITIONS = {
  query2doc: query2docMethod,
  amd: amdMethod,
  dense: denseMethod,
  hybrid: hybridMethod,
  grill: grillMethod,
  'gr-qr': grQrMethod,
  'gr-ad': grAdMethod,
  'gr-qd': grQdMethod,
  'gr-aqd': grAqdMethod,
  'gr-aqd-a': grAqdAMethod,
  llmforum: llmforumMethod,
  srsa: srsaMethod,
  'simple-search': simpleSearchMethod,
  react: reactMethod,
  rerank: rerankMethod,
} satisfies Record<string, MethodDefinition>;

/** One of the methods that call models. */
export type ModelMethod = keyof typeof METHOD_DEFINITIONS;

/** The names of the methods that call models, in the order the docs list them. */
export const MODEL_METHODS = Object.keys(METHOD_DEFINITIONS) as ModelMethod[];

/** The definition of a method. */
export function methodDefinition(method: ModelMethod): MethodDefinition {
  return METHOD_DEFINITIONS[method];
}
