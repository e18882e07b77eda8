import {
  createCollection,
  createJudgeJob,
  createLabelSet,
  findJudgeJobByLabelSet,
  findLabelSetByName,
  getCollectionByName,
  holdCollection,
  insertJudgeTasks,
  listJudgeTasks,
  lockName,
  setJudgeJobEndpoint,
  setJudgeJobOpenToWorkers,
  withTransaction,
  type JsonObject,
  type JudgeJob,
  type LabelSet,
  type Queryable,
} from '@assay/db';
import { type JudgeSettings, type JudgeTemplate, type TemplateValues } from '@assay/judge';
import { canonicalJson } from '@assay/llm';
import { PlatformError } from '../core/errors.js';
import { checkRelevanceTemplate, checkRequiredSlots, templateHash } from './templates.js';
import { collectionLockName, labelSetLockName } from '../core/name-locks.js';
import { checkNewName } from '../core/names.js';

/** One pool item to judge, in priority order. */
export interface JudgeItemInput {
  topicId: string;
  docId: string;
  values: TemplateValues;
}

/** What ensureJudgeJob needs: where the label set goes, the judge and the items. */
export interface EnsureJudgeJobInput {
  /** Collection name; created (without documents) when `createCollection` and absent. */
  collection: string;
  createCollection?: boolean;
  /** Name of the LLM label set the job writes. */
  labelSet: string;
  template: JudgeTemplate;
  settings: JudgeSettings;
  /** The pool, in judging priority order. */
  items: readonly JudgeItemInput[];
  /**
   * Where the job is judged from now on (see judgeEndpointIdentity); absent leaves it as
   * recorded (a new job: recorded by the first worker that claims from it).
   */
  endpoint?: string | undefined;
  /**
   * Who may claim its items besides a worker that names the job: `open`, every worker at
   * its endpoint (a new job, or an existing one opened now); `reserved`, a new job is
   * claimed only by workers naming it (an existing one keeps what it has). Absent: a new
   * job is open, an existing one keeps what it has.
   */
  access?: 'open' | 'reserved';
}

/** The job ensureJudgeJob found or created, and what it added. */
export interface EnsureJudgeJobResult {
  job: JudgeJob;
  labelSet: LabelSet;
  /** True when the label set and job were created by this call. */
  created: boolean;
  /** Tasks added by this call (items the job did not have yet). */
  added: number;
  /** The endpoint the job was recorded at before this call moved it to `endpoint`. */
  movedFrom?: string;
}

/**
 * Finds or creates the judge job for a label set and adds the pool items it does not have
 * yet, in one transaction, so running the same command again finds the same tasks. The
 * label set (kind llm_judge) records the judge id, model, prompt hash and settings; an
 * existing one made with another judge configuration, or an item whose text differs from
 * what the job holds, is a conflict (pick another label set name) — labels are never
 * mixed across prompts or texts.
 */
export async function ensureJudgeJob(
  db: Queryable,
  input: EnsureJudgeJobInput,
): Promise<EnsureJudgeJobResult> {
  checkRelevanceTemplate(input.template);
  const hash = templateHash(input.template);
  const settings = input.settings as unknown as JsonObject;
  const config: JsonObject = {
    judgeId: input.template.id,
    model: input.settings.model,
    promptHash: hash,
    settings,
  };
  checkDocumentTexts(input.template, input.items);
  checkRequiredSlots(input.template, input.items);
  return withTransaction(db, async (trx) => {
    // Identical requests at once take turns, so all but the first find the job made.
    if (input.createCollection) await lockName(trx, collectionLockName(input.collection));
    let collection = await getCollectionByName(trx, input.collection);
    // The one order of locks (collection-writes.ts): the collection, then the name.
    if (collection && !(await holdCollection(trx, collection.id))) collection = undefined;
    if (!collection) {
      if (!input.createCollection)
        throw new PlatformError('not_found', `no collection ${JSON.stringify(input.collection)}`);
      checkNewName(input.collection, 'collection name');
      collection = await createCollection(trx, {
        name: input.collection,
        description: 'label sets written by assay judge from files',
      });
    }
    await lockName(trx, labelSetLockName(collection.id, input.labelSet));
    let labelSet = await findLabelSetByName(trx, collection.id, input.labelSet);
    let job: JudgeJob | undefined;
    let movedFrom: string | undefined;
    let created = false;
    if (labelSet) {
      job = await findJudgeJobByLabelSet(trx, labelSet.id);
      if (!job || labelSet.kind !== 'llm_judge')
        throw new PlatformError(
          'conflict',
          `label set "${input.labelSet}" already exists and was not written by a judge; choose another label set name`,
        );
      if (job.templateHash !== hash || canonicalJson(job.settings) !== canonicalJson(settings))
        throw new PlatformError(
          'conflict',
          `label set "${input.labelSet}" was written with another judge configuration (${describeJob(job)}); choose another label set name`,
        );
      ({ job, movedFrom } = await updateAccess(trx, job, input));
    } else {
      checkNewName(input.labelSet, 'label set name');
      labelSet = await createLabelSet(trx, {
        collectionId: collection.id,
        name: input.labelSet,
        kind: 'llm_judge',
        scaleMin: input.template.scale.min,
        scaleMax: input.template.scale.max,
        config,
      });
      job = await createJudgeJob(trx, {
        labelSetId: labelSet.id,
        judgeId: input.template.id,
        template: input.template as unknown as JsonObject,
        templateHash: hash,
        settings,
        endpoint: input.endpoint ?? null,
        openToWorkers: input.access !== 'reserved',
      });
      created = true;
    }
    const jobId = job.id;
    const existing = created ? [] : await listJudgeTasks(trx, jobId);
    const known = new Map(existing.map((t) => [`${t.topicId}\t${t.docId}`, t]));
    const offset = existing.reduce((max, t) => Math.max(max, t.position + 1), 0);
    const fresh: Array<{ topicId: string; docId: string; position: number; values: JsonObject }> =
      [];
    const seen = new Set<string>();
    for (const item of input.items) {
      const key = `${item.topicId}\t${item.docId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const values = item.values as JsonObject;
      const old = known.get(key);
      if (old) {
        if (canonicalJson(old.values) !== canonicalJson(values))
          throw new PlatformError(
            'conflict',
            `label set "${input.labelSet}" already judged topic ${item.topicId} document ${item.docId} with a different query or text; choose another label set name`,
          );
        continue;
      }
      fresh.push({ ...item, values, position: offset + fresh.length });
    }
    const added = await insertJudgeTasks(trx, jobId, fresh);
    const result: EnsureJudgeJobResult = { job, labelSet, created, added };
    if (movedFrom !== undefined) result.movedFrom = movedFrom;
    return result;
  });
}

/**
 * An existing job moved to the endpoint given (the command that judges it says where) and
 * opened when asked; `movedFrom` names the endpoint it was recorded at before.
 */
async function updateAccess(
  trx: Queryable,
  job: JudgeJob,
  input: EnsureJudgeJobInput,
): Promise<{ job: JudgeJob; movedFrom?: string }> {
  const updated: JudgeJob = { ...job };
  let movedFrom: string | undefined;
  if (input.endpoint !== undefined && input.endpoint !== job.endpoint) {
    await setJudgeJobEndpoint(trx, job.id, input.endpoint);
    if (job.endpoint !== null) movedFrom = job.endpoint;
    updated.endpoint = input.endpoint;
  }
  if (input.access === 'open' && !job.openToWorkers) {
    await setJudgeJobOpenToWorkers(trx, job.id, true);
    updated.openToWorkers = true;
  }
  return movedFrom === undefined ? { job: updated } : { job: updated, movedFrom };
}

/** How many blank documents a refusal lists by topic and docno. */
const BLANK_LISTED = 10;

/** Refuses (invalid_input) items whose passage is empty or only white space. */
function checkDocumentTexts(template: JudgeTemplate, items: readonly JudgeItemInput[]): void {
  if (!template.requiredVariables.includes('passage')) return;
  refuseBlankDocuments(
    items.filter((item) => !item.values.passage?.trim()),
    items.length,
  );
}

/**
 * Refuses a judge job (invalid_input) when any of its `total` items has a document with
 * empty or white-space-only text, which a judge could only grade blind: the message
 * counts them and lists the first few as `topic/docno`. Does nothing when `blank` is empty.
 */
export function refuseBlankDocuments(
  blank: ReadonlyArray<{ topicId: string; docId: string }>,
  total: number,
): void {
  if (blank.length === 0) return;
  const listed = blank.slice(0, BLANK_LISTED).map((item) => `${item.topicId}/${item.docId}`);
  throw new PlatformError(
    'invalid_input',
    `${blank.length} of ${total} items have a document with empty text (${listed.join(', ')}${
      blank.length > listed.length ? ', …' : ''
    }); give those documents text or leave them out`,
    {
      blankDocuments: blank.length,
      items: blank.slice(0, BLANK_LISTED).map(({ topicId, docId }) => ({ topicId, docId })),
    },
  );
}

function describeJob(job: JudgeJob): string {
  return `judge ${job.judgeId}, model ${String(job.settings.model)}, prompt ${job.templateHash.slice(0, 12)}`;
}
