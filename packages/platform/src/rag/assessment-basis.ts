// What an assessment set judges: the answers of a response set and, for nugget assignment,
// a version of a nugget bank, for rubric judgment a rubric set (support judges the passages
// the answers cite, which the collection holds). Resolved here for the sets an LLM makes,
// the sets people fill and the sets imported, with one refusal when the basis is missing.
import type { AssessmentKind, Queryable, ResponseSet } from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { resolveResponseSet, type ResponseSetRef } from '../answers/answer-sets.js';
import { resolveBankVersion } from './nugget-banks.js';
import { resolveRubricSet } from './rubric-sets.js';

/** What an assessment set is asked to judge, as its use-case's input names it. */
export interface AssessmentBasisRef {
  responseSet?: ResponseSetRef | undefined;
  /** Nuggets: the nugget bank, its latest version unless one is named. */
  bank?: { name: string; version?: number } | undefined;
  /** Rubric: the rubric set's name or id. */
  rubricSet?: string | undefined;
}

/** What an assessment set judges, resolved: the stored rows its judgments refer to. */
export interface AssessmentBasis {
  responseSet: ResponseSet;
  nuggetVersionId: number | null;
  rubricSetId: number | null;
}

/** What each kind judges beside the answers (support: the cited passages, in the collection). */
const BASIS: Partial<Record<AssessmentKind, string>> = {
  nuggets: 'a nugget bank (bank)',
  rubric: 'a rubric set (rubricSet)',
};

/**
 * The response set, then (by kind) the nugget bank version or the rubric set of the
 * collection an assessment set of `kind` judges; invalid_input when one of them is not
 * named, not_found when one named is not there.
 */
export async function resolveAssessmentBasis(
  db: Queryable,
  collectionId: number,
  kind: AssessmentKind,
  ref: AssessmentBasisRef,
): Promise<AssessmentBasis> {
  if (ref.responseSet === undefined)
    throw new PlatformError('invalid_input', 'name the response set whose answers are assessed');
  const responseSet = await resolveResponseSet(db, ref.responseSet);
  const missing = () =>
    new PlatformError('invalid_input', `a ${kind} assessment set needs ${BASIS[kind]}`);
  let nuggetVersionId: number | null = null;
  let rubricSetId: number | null = null;
  if (kind === 'nuggets') {
    if (!ref.bank) throw missing();
    const { version } = await resolveBankVersion(db, {
      collection: collectionId,
      bank: ref.bank.name,
      ...(ref.bank.version === undefined ? {} : { version: ref.bank.version }),
    });
    nuggetVersionId = version.id;
  }
  if (kind === 'rubric') {
    if (!ref.rubricSet) throw missing();
    rubricSetId = (await resolveRubricSet(db, collectionId, ref.rubricSet)).id;
  }
  return { responseSet, nuggetVersionId, rubricSetId };
}
