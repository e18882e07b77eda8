import { amdMethod } from './amd.js';
import { denseMethod, hybridMethod } from './dense-methods.js';
import type { MethodDefinition } from './method-definition.js';
import { query2docMethod } from './query2doc.js';
import { rerankMethod } from './rerank-method.js';

/** Every method that calls models, by its `--method` name. */
export const METHOD_DEFINITIONS = {
  query2doc: query2docMethod,
  amd: amdMethod,
  dense: denseMethod,
  hybrid: hybridMethod,
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
