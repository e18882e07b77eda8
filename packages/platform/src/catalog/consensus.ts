import {
  createLabelSet,
  findLabelSetByName,
  getLabelGrades,
  insertLabels,
  lockName,
  type Queryable,
} from '@assay/db';
import { consensusLabels, type ConsensusMethod, type ConsensusTie } from '@assay/stats';
import { writeInCollection } from './collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import { labelSetLockName } from '../core/name-locks.js';
import { resolveCollection, resolveLabelSet, type CollectionRef } from '../core/resolve.js';

/** Which label sets to combine, how, and under what name to store the result. */
export interface CreateConsensusInput {
  collection: CollectionRef;
  /** Name of the new label set (unique in the collection). */
  name: string;
  /** Two or more label sets of the collection, by name or id. */
  labelSets: Array<string | number>;
  method: ConsensusMethod;
  /** Only items graded by at least this many of the sets (default 1). */
  minVotes?: number;
  /** Where ties go (default low). */
  tie?: ConsensusTie;
}

/** The stored consensus label set. */
export interface CreateConsensusResult {
  labelSetId: number;
  name: string;
  labels: number;
  disputed: number;
  tieBroken: number;
  tooFewVotes: number;
  scale: { min: number; max: number };
}

/**
 * Stores the consensus (majority, mean or median grade) of several label sets as a new
 * `consensus` label set, in one transaction. Its config records the method, tie rule,
 * minimum votes and the label sets it came from (ids and names), and each label's
 * `produced_by` says `consensus:<method>`.
 */
export async function createConsensusLabelSet(
  db: Queryable,
  input: CreateConsensusInput,
): Promise<CreateConsensusResult> {
  const name = checkNewName(input.name, 'label set name');
  if (!['majority', 'mean', 'median'].includes(input.method))
    throw new PlatformError(
      'invalid_input',
      `method must be majority, mean or median, not "${input.method}"`,
    );
  const tie = input.tie ?? 'low';
  if (tie !== 'low' && tie !== 'high')
    throw new PlatformError('invalid_input', `tie must be low or high, not "${String(tie)}"`);
  if (input.labelSets.length < 2)
    throw new PlatformError('invalid_input', 'a consensus needs at least two label sets');
  const minVotes = input.minVotes ?? 1;
  if (!Number.isInteger(minVotes) || minVotes < 1 || minVotes > input.labelSets.length)
    throw new PlatformError(
      'invalid_input',
      `minVotes must be an integer from 1 to the number of label sets (${input.labelSets.length})`,
    );
  const collection = await resolveCollection(db, input.collection);
  const taken = `label set "${name}" already exists in collection "${collection.name}"`;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        // Writers of one label set name take turns (as uploads do).
        await lockName(trx, labelSetLockName(collection.id, name));
        const sources = [];
        for (const ref of input.labelSets)
          sources.push(await resolveLabelSet(trx, collection, ref));
        const ids = new Set(sources.map((s) => s.id));
        if (ids.size !== sources.length)
          throw new PlatformError('invalid_input', 'a label set is named twice');
        if (await findLabelSetByName(trx, collection.id, name))
          throw new PlatformError('conflict', taken);
        const grades = [];
        for (const set of sources) grades.push(await getLabelGrades(trx, set.id));
        const result = consensusLabels(grades, { method: input.method, minVotes, tie });
        const scale = {
          min: Math.min(...sources.map((s) => s.scaleMin)),
          max: Math.max(...sources.map((s) => s.scaleMax)),
        };
        const set = await createLabelSet(trx, {
          collectionId: collection.id,
          name,
          kind: 'consensus',
          scaleMin: scale.min,
          scaleMax: scale.max,
          config: {
            method: input.method,
            tie,
            minVotes,
            labelSets: sources.map((s) => ({ id: s.id, name: s.name })),
          },
        });
        const labels = [];
        const producedBy = `consensus:${input.method}`;
        for (const [topicId, docs] of result.labels)
          for (const [docId, grade] of docs) labels.push({ topicId, docId, grade, producedBy });
        const count = await insertLabels(trx, set.id, labels);
        return {
          labelSetId: set.id,
          name: set.name,
          labels: count,
          disputed: result.disputed,
          tieBroken: result.tieBroken,
          tooFewVotes: result.tooFewVotes,
          scale,
        };
      }),
    taken,
  );
}
