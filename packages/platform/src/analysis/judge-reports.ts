// The judge-quality report over a collection's stored label sets: `assay judge-report` for
// the API, with the cost and calls of label sets that assay's own judge jobs wrote.
import {
  findJudgeJobByLabelSet,
  getDocuments,
  getLabelGrades,
  judgeJobUsage,
  type LabelSet,
  type Queryable,
} from '@assay/db';
import { MeasureSpecError, resolveMeasures } from '@assay/measures';
import type { Run as TrecRun } from '@assay/trec';
import {
  judgeReportSteps,
  JudgeReportError,
  MAX_SCALE_GRADES,
  type JudgeCost,
  type JudgeReport,
  type NamedGrades,
} from './index.js';
import { PlatformError } from '../core/errors.js';
import {
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { readTrecRun } from '../catalog/runs.js';
import { inSlices } from '../core/work-slices.js';

/** What a judge report of stored label sets compares. */
export interface JudgeReportRequest {
  collection: CollectionRef;
  /** People's labels; absent: the judges are measured against each other. */
  human?: string | number;
  /** The judges' label sets (by name or id); reported under their names. */
  judges: Array<string | number>;
  /** Pairs [earlier, later] of the judges: versions of one judge. */
  drift?: Array<[string | number, string | number]>;
  /** Runs whose leaderboards are correlated (none: no leaderboard correlation). */
  runs?: Array<string | number>;
  /** The measure of the leaderboards (default nDCG@10). */
  measure?: string;
  /** Grade difference against the length of the stored passages. */
  lengthBias?: boolean;
  /** The grade scale (default: the scale of the first label set, widened to the others'). */
  scale?: { min: number; max: number };
  samples?: number;
  seed?: number;
}

/**
 * The judge report of stored label sets, as `assay judge-report` computes it from the same
 * labels; a judge whose label set one of assay's judge jobs wrote also gets its cost and
 * model calls per 1,000 items.
 */
export async function reportOnJudges(
  db: Queryable,
  input: JudgeReportRequest,
): Promise<JudgeReport> {
  const collection = await resolveCollection(db, input.collection);
  if (input.judges.length === 0)
    throw new PlatformError('invalid_input', 'give at least one judge');
  const humanSet =
    input.human === undefined ? undefined : await resolveLabelSet(db, collection, input.human);
  const judgeSets: LabelSet[] = [];
  for (const ref of input.judges) {
    const set = await resolveLabelSet(db, collection, ref);
    if (judgeSets.some((s) => s.id === set.id) || set.id === humanSet?.id)
      throw new PlatformError('invalid_input', `label set "${set.name}" is listed twice`);
    judgeSets.push(set);
  }
  if (!humanSet && judgeSets.length < 2)
    throw new PlatformError('invalid_input', 'without human labels, give at least two judges');
  const sets = [...(humanSet ? [humanSet] : []), ...judgeSets];
  const scale = input.scale ?? {
    min: Math.min(...sets.map((s) => s.scaleMin)),
    max: Math.max(...sets.map((s) => s.scaleMax)),
  };
  if (
    !Number.isSafeInteger(scale.min) ||
    !Number.isSafeInteger(scale.max) ||
    scale.min >= scale.max
  )
    throw new PlatformError(
      'invalid_input',
      'the scale needs integer grades, the lowest below the highest',
    );
  if (scale.max - scale.min + 1 > MAX_SCALE_GRADES)
    throw new PlatformError(
      'invalid_input',
      `the scale holds more than ${MAX_SCALE_GRADES} grades`,
    );
  const judges: NamedGrades[] = [];
  const costs: Record<string, JudgeCost> = {};
  for (const set of judgeSets) {
    judges.push({ name: set.name, grades: await getLabelGrades(db, set.id) });
    const job = await findJudgeJobByLabelSet(db, set.id);
    if (job) costs[set.name] = await judgeJobUsage(db, job.id);
  }
  const human = humanSet
    ? { name: humanSet.name, grades: await getLabelGrades(db, humanSet.id) }
    : undefined;
  const drift: Array<[string, string]> = [];
  for (const [a, b] of input.drift ?? []) {
    const from = await resolveLabelSet(db, collection, a);
    const to = await resolveLabelSet(db, collection, b);
    for (const s of [from, to])
      if (!judgeSets.some((j) => j.id === s.id))
        throw new PlatformError(
          'invalid_input',
          `drift: label set "${s.name}" is none of the judges`,
        );
    drift.push([from.name, to.name]);
  }
  const runs: TrecRun[] = [];
  for (const ref of input.runs ?? []) {
    const run = await resolveRun(db, collection, ref);
    if (runs.some((r) => r.name === run.name))
      throw new PlatformError('invalid_input', `run "${run.name}" is listed twice`);
    runs.push(await readTrecRun(db, run));
  }
  if (input.measure !== undefined) {
    try {
      resolveMeasures([input.measure]);
    } catch (error) {
      if (error instanceof MeasureSpecError)
        throw new PlatformError('invalid_input', error.message);
      throw error;
    }
  }
  let lengths: Map<string, number> | undefined;
  if (input.lengthBias) {
    const docnos = new Set<string>();
    for (const { grades } of judges)
      for (const docs of grades.values()) for (const d of docs.keys()) docnos.add(d);
    const stored = await getDocuments(db, collection.id, [...docnos]);
    lengths = new Map(
      [...stored].map(([docno, doc]) => [
        docno,
        doc.text.split(/\s+/).filter((w) => w !== '').length,
      ]),
    );
  }
  const samples = input.samples ?? 1000;
  if (!Number.isSafeInteger(samples) || samples < 0 || samples > 100_000)
    throw new PlatformError('invalid_input', 'samples must be a whole number from 0 to 100000');
  try {
    // Computed a slice at a time: a server keeps answering others meanwhile.
    return await inSlices(
      judgeReportSteps({
        ...(human ? { human } : {}),
        judges,
        scale,
        drift,
        ...(runs.length > 0 ? { runs } : {}),
        ...(input.measure === undefined ? {} : { measure: input.measure }),
        ...(lengths ? { lengths } : {}),
        costs,
        samples,
        ...(input.seed === undefined ? {} : { seed: input.seed }),
      }),
    );
  } catch (error) {
    if (error instanceof JudgeReportError) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
}
