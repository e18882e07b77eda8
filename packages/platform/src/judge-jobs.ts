import {
  getCollection,
  getDocuments,
  getJudgeJob,
  getLabelGrades,
  getLabelSet,
  listJudgeJobs,
  listLabelSets,
  listTopics,
  retryFailedJudgeTasks,
  setJudgeJobStatus,
  withTransaction,
  type Collection,
  type JudgeJob,
  type JudgeTaskCounts,
  type Queryable,
} from '@assay/db';
import { loadJudgeTemplates, type JudgeSettings, type JudgeTemplate } from '@assay/judge';
import {
  buildDepthPool,
  compareDocno,
  poolStats,
  type Pool,
  type PoolOrder,
  type PoolParameters,
} from '@assay/pooling';
import type { Qrels, Run as TrecRun } from '@assay/trec';
import { PlatformError } from './errors.js';
import { readTrecRun, resolveLabelSet, resolveRun } from './evaluate.js';
import {
  checkRelevanceTemplate,
  defaultJudgesDir,
  ensureJudgeJob,
  judgeJobProgress,
  judgeValues,
  listJudgeFailures,
  type JudgeItemInput,
} from './judging.js';
import { readJudgeJobPace, type JudgeJobPace } from './judge-job-timing.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** The pool orders a collection pool can use. */
export const POOL_ORDERS: readonly PoolOrder[] = ['best-rank', 'rrf', 'move-to-front', 'docno'];

/** How to pool stored runs: depth-k over some runs, optionally some topics only. */
export interface CollectionPoolSpec {
  /** Stored runs of the collection, by name or id. */
  runs: Array<string | number>;
  /** Each run contributes its top `depth` documents per topic (trec_eval order). */
  depth: number;
  /** Only these topics, in this order (default: every topic a run retrieved for, byte order). */
  topics?: string[];
  /** Judging order within a topic (default best-rank). */
  order?: PoolOrder;
  /** Keep at most this many documents per topic. */
  perTopicCap?: number;
  /** Label sets whose pairs graded ≥ 0 are left out (already judged). */
  excludeLabelSets?: Array<string | number>;
}

/** One pooled (topic, document) with the evidence that put it in the pool. */
export interface CollectionPoolItem {
  topicId: string;
  docId: string;
  /** Smallest rank any pooled run gave the document. */
  bestRank: number;
  /** Runs that retrieved it within the depth, with their ranks. */
  runs: Array<{ run: string; rank: number }>;
  rrfScore: number;
}

/** A pool of a collection's stored runs, in judging priority order, with its statistics. */
export interface CollectionPool {
  collection: string;
  parameters: PoolParameters & { excludeLabelSets: string[] };
  /** Pooled topics in pool order. */
  topics: string[];
  /** Items in judging priority order (topics interleaved round-robin). */
  items: CollectionPoolItem[];
  stats: {
    total: number;
    perTopic: Array<{ topicId: string; items: number }>;
    /** Each run's top-depth documents, pool items it brought and those no other run did. */
    perRun: Array<{ run: string; retrieved: number; contributed: number; unique: number }>;
  };
}

/**
 * The depth-k pool of stored runs of a collection (packages/pooling's buildDepthPool):
 * pairs graded ≥ 0 in `excludeLabelSets` left out, items in judging priority order, plus
 * pool size per topic and each run's contribution and unique contribution. Reads only.
 */
export async function buildCollectionPool(
  db: Queryable,
  input: CollectionPoolSpec & { collection: CollectionRef },
): Promise<CollectionPool> {
  const collection = await resolveCollection(db, input.collection);
  return poolOf(db, collection, input);
}

async function poolOf(
  db: Queryable,
  collection: Collection,
  spec: CollectionPoolSpec,
): Promise<CollectionPool> {
  if (!Number.isInteger(spec.depth) || spec.depth < 1)
    throw new PlatformError('invalid_input', `depth must be an integer ≥ 1, not ${spec.depth}`);
  if (
    spec.perTopicCap !== undefined &&
    (!Number.isInteger(spec.perTopicCap) || spec.perTopicCap < 1)
  )
    throw new PlatformError(
      'invalid_input',
      `perTopicCap must be an integer ≥ 1, not ${spec.perTopicCap}`,
    );
  const order = spec.order ?? 'best-rank';
  if (!POOL_ORDERS.includes(order))
    throw new PlatformError(
      'invalid_input',
      `order must be one of ${POOL_ORDERS.join(', ')}, not "${String(order)}"`,
    );
  if (spec.runs.length === 0) throw new PlatformError('invalid_input', 'a pool needs runs');
  const wanted = spec.topics && [...new Set(spec.topics)];
  const runs: TrecRun[] = [];
  const seen = new Set<number>();
  for (const ref of spec.runs) {
    const stored = await resolveRun(db, collection, ref);
    if (seen.has(stored.id)) continue;
    seen.add(stored.id);
    runs.push(await readTrecRun(db, stored, wanted));
  }
  const excluded: string[] = [];
  const exclude: Qrels[] = [];
  for (const ref of spec.excludeLabelSets ?? []) {
    const set = await resolveLabelSet(db, collection, ref);
    excluded.push(set.name);
    exclude.push(await getLabelGrades(db, set.id, wanted ? { topicIds: wanted } : {}));
  }
  const topics =
    wanted ?? [...new Set(runs.flatMap((r) => [...r.topics.keys()]))].sort(compareDocno);
  let pool: Pool;
  try {
    pool = buildDepthPool(runs, {
      depth: spec.depth,
      topics,
      order,
      exclude,
      ...(spec.perTopicCap === undefined ? {} : { perTopicCap: spec.perTopicCap }),
    });
  } catch (error) {
    // The pool refuses what cannot be ranked (e.g. a document twice in one topic of a run).
    if (error instanceof Error) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  const stats = poolStats(pool, runs);
  return {
    collection: collection.name,
    parameters: { ...pool.parameters, excludeLabelSets: excluded },
    topics: pool.topics,
    items: pool.items.map((item) => ({
      topicId: item.topic,
      docId: item.docno,
      bestRank: item.bestRank,
      runs: item.contributingRuns.map((run, i) => ({ run, rank: item.ranks[i]! })),
      rrfScore: item.rrfScore,
    })),
    stats: {
      total: stats.total,
      perTopic: [...stats.perTopic].map(([topicId, items]) => ({ topicId, items })),
      perRun: [...stats.perRun].map(([run, c]) => ({ run, ...c })),
    },
  };
}

/** Model settings of a job made through the API (the model may come from configuration). */
export interface JudgeJobSettings {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  structuredOutput?: boolean;
  logprobs?: boolean;
}

/** A judge job over a stored collection: its label set, judge, model and items. */
export interface CreateCollectionJudgeJobInput {
  collection: CollectionRef;
  /** Name of the LLM label set the job writes (created with the job). */
  labelSet: string;
  /** Id of a relevance judge template of the judges folder (e.g. `graded-0-3`). */
  judge: string;
  settings: JudgeJobSettings;
  /** Model when settings.model is absent (e.g. ASSAY_JUDGE_MODEL); else the template's. */
  defaultModel?: string;
  /** Items from a pool of stored runs … */
  pool?: CollectionPoolSpec;
  /** … or given (topic, document) pairs, in judging order. */
  items?: Array<{ topicId: string; docId: string }>;
  /** Pause the job (true) or make it claimable (false); absent leaves an existing job as is. */
  paused?: boolean;
  /** Folder of judge templates (default: the shipped `judges/`). */
  judgesDir?: string;
}

/** A judge job as the API shows it: no template text, no secrets. */
export interface JudgeJobSummary {
  id: number;
  collection: string;
  labelSet: { id: number; name: string };
  judgeId: string;
  templateHash: string;
  model: string;
  settings: Record<string, unknown>;
  /** `done` once every item is labelled or failed; else `active` or `paused` as set. */
  status: JudgeJobPace['status'];
  createdAt: Date;
  progress: JudgeTaskCounts;
  /** When the last item finished (done jobs); the rate and ETA (see JudgeJobPace). */
  finishedAt: Date | null;
  itemsPerSecond: number | null;
  etaSeconds: number | null;
}

/** The job createCollectionJudgeJob found or made, and how many items it added. */
export interface CreateCollectionJudgeJobResult {
  job: JudgeJobSummary;
  /** True when the label set and job were created by this call. */
  created: boolean;
  /** Items added by this call (those the job did not have yet). */
  added: number;
}

/**
 * Creates (or extends) the judge job writing an LLM label set of a stored collection: the
 * judge template comes from the judges folder by id, the items from a pool of stored runs
 * or a given list, and each item's prompt values from the collection's stored topics and
 * documents. An item whose topic or document text is not stored refuses the whole call
 * (nothing written). Posting the same job again adds only items it does not have.
 */
export async function createCollectionJudgeJob(
  db: Queryable,
  input: CreateCollectionJudgeJobInput,
): Promise<CreateCollectionJudgeJobResult> {
  const labelSet = input.labelSet.trim();
  if (labelSet === '') throw new PlatformError('invalid_input', 'the job needs a label set name');
  if ((input.pool === undefined) === (input.items === undefined))
    throw new PlatformError('invalid_input', 'give either a pool or items, not both or neither');
  const template = loadTemplate(input.judge, input.judgesDir);
  checkRelevanceTemplate(template);
  const model = input.settings.model ?? input.defaultModel ?? template.model.name;
  if (!model)
    throw new PlatformError(
      'invalid_input',
      'no model: give settings.model (or set ASSAY_JUDGE_MODEL on the server)',
    );
  const settings: JudgeSettings = { model };
  const { temperature, maxTokens, structuredOutput, logprobs } = input.settings;
  if (temperature !== undefined) settings.temperature = temperature;
  if (maxTokens !== undefined) settings.maxTokens = maxTokens;
  if (structuredOutput !== undefined) settings.structuredOutput = structuredOutput;
  if (logprobs !== undefined) settings.logprobs = logprobs;

  const collection = await resolveCollection(db, input.collection);
  const pairs = input.pool ? (await poolOf(db, collection, input.pool)).items : (input.items ?? []);
  if (pairs.length === 0)
    throw new PlatformError('invalid_input', 'there is nothing to judge: the pool is empty');
  const items = await itemValues(db, collection, template, pairs);
  return withTransaction(db, async (trx) => {
    const ensured = await ensureJudgeJob(trx, {
      collection: collection.name,
      labelSet,
      template,
      settings,
      items,
    });
    if (input.paused !== undefined)
      await setJudgeJobStatus(trx, ensured.job.id, input.paused ? 'paused' : 'active');
    return {
      job: await judgeJobStatus(trx, ensured.job.id),
      created: ensured.created,
      added: ensured.added,
    };
  });
}

function loadTemplate(judge: string, dir: string | undefined): JudgeTemplate {
  const templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  const template = templates.get(judge);
  if (!template)
    throw new PlatformError(
      'not_found',
      `no judge "${judge}" (known: ${[...templates.keys()].join(', ')})`,
    );
  return template;
}

/** Each pair's prompt values from the stored topic and document; all must be stored. */
async function itemValues(
  db: Queryable,
  collection: Collection,
  template: JudgeTemplate,
  pairs: ReadonlyArray<{ topicId: string; docId: string }>,
): Promise<JudgeItemInput[]> {
  const topics = new Map((await listTopics(db, collection.id)).map((t) => [t.topicId, t]));
  const docs = await getDocuments(
    db,
    collection.id,
    pairs.map((p) => p.docId),
  );
  const items: JudgeItemInput[] = [];
  const missing: string[] = [];
  for (const { topicId, docId } of pairs) {
    const topic = topics.get(topicId);
    const doc = docs.get(docId);
    if (!topic || !doc) {
      missing.push(`${topicId}/${docId} (no ${!topic ? 'topic' : 'document'})`);
      continue;
    }
    items.push({
      topicId,
      docId,
      values: judgeValues(
        template,
        {
          query: topic.query,
          description: topic.description ?? undefined,
          narrative: topic.narrative ?? undefined,
        },
        { title: doc.title ?? undefined, text: doc.text },
      ),
    });
  }
  if (missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `${missing.length} of ${pairs.length} items have no stored topic or document text in collection "${collection.name}", e.g. ${missing.slice(0, 5).join(', ')}; import them first`,
      { missing: missing.length },
    );
  return items;
}

/** A judge job with its label set, model, status and progress; not_found when absent. */
export async function judgeJobStatus(db: Queryable, id: number): Promise<JudgeJobSummary> {
  const job = Number.isSafeInteger(id) ? await getJudgeJob(db, id) : undefined;
  if (!job) throw new PlatformError('not_found', `no judge job ${id}`);
  const labelSet = await getLabelSet(db, job.labelSetId);
  const collection = labelSet && (await getCollection(db, labelSet.collectionId));
  if (!labelSet || !collection) throw new PlatformError('not_found', `no judge job ${id}`);
  return summarise(job, collection.name, labelSet, await judgeJobProgress(db, job.id), db);
}

async function summarise(
  job: JudgeJob,
  collection: string,
  labelSet: { id: number; name: string },
  progress: JudgeTaskCounts,
  db: Queryable,
): Promise<JudgeJobSummary> {
  const pace = await readJudgeJobPace(db, job.id, job.status, progress);
  return {
    id: job.id,
    collection,
    labelSet: { id: labelSet.id, name: labelSet.name },
    judgeId: job.judgeId,
    templateHash: job.templateHash,
    model: String(job.settings.model),
    settings: { ...job.settings },
    createdAt: job.createdAt,
    progress,
    ...pace,
  };
}

/** The judge jobs of a collection, oldest first, each with its progress. */
export async function listCollectionJudgeJobs(
  db: Queryable,
  ref: CollectionRef,
): Promise<JudgeJobSummary[]> {
  const collection = await resolveCollection(db, ref);
  const sets = new Map((await listLabelSets(db, collection.id)).map((s) => [s.id, s]));
  const jobs = [];
  for (const job of await listJudgeJobs(db)) {
    const set = sets.get(job.labelSetId);
    if (set) {
      const progress = await judgeJobProgress(db, job.id);
      jobs.push(await summarise(job, collection.name, set, progress, db));
    }
  }
  return jobs;
}

/**
 * Pauses (workers claim nothing more from it; items in flight finish) or resumes a judge
 * job; returns it with its progress.
 */
export async function setJudgeJobPaused(
  db: Queryable,
  id: number,
  paused: boolean,
): Promise<JudgeJobSummary> {
  await judgeJobStatus(db, id);
  await setJudgeJobStatus(db, id, paused ? 'paused' : 'active');
  return judgeJobStatus(db, id);
}

/** A judge job's failed items with their reasons and unreadable answers. */
export async function judgeJobFailures(
  db: Queryable,
  id: number,
): Promise<Array<{ topicId: string; docId: string; error: string; raw: string | null }>> {
  await judgeJobStatus(db, id);
  return listJudgeFailures(db, id);
}

/** Puts a judge job's failed items back to pending; returns how many and the job. */
export async function retryJudgeJobFailures(
  db: Queryable,
  id: number,
): Promise<{ retried: number; job: JudgeJobSummary }> {
  await judgeJobStatus(db, id);
  const retried = await retryFailedJudgeTasks(db, id);
  return { retried, job: await judgeJobStatus(db, id) };
}
