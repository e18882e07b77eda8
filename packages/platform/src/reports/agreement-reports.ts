// Agreement reports: two stored label sets of one collection compared, as `assay agree`
// compares files, kept as immutable snapshots.
import { getLabelGrades, type Queryable } from '@assay/db';
import { CLUSTER_BOOTSTRAP_SAMPLES } from '@assay/stats';
import {
  agreementSteps,
  fitGradesToScale,
  MAX_SCALE_GRADES,
  observedScale,
  outlyingGrade,
  scaleWidth,
  type GradeScale,
} from '../analysis/index.js';
import { PlatformError } from '../core/errors.js';
import {
  noLabelsError,
  resolveCollection,
  resolveLabelSet,
  type CollectionRef,
} from '../core/resolve.js';
import { ASSAY_VERSION } from '../core/version.js';
import { inSlices } from '../core/work-slices.js';
import {
  actorRef,
  storeReport,
  type Actor,
  type ReportProvenance,
  type StoredReport,
} from './reports.js';

/** What an agreement report compares: two stored label sets of one collection. */
export interface AgreementReportInput {
  collection: CollectionRef;
  labelSetA: string | number;
  labelSetB: string | number;
  /** The grade scale (default: the grades seen in either label set, as `assay agree`). */
  scale?: GradeScale;
  /** Clamp grades outside the scale into it instead of failing. */
  clip?: boolean;
  /** Bootstrap resamples of the topic-clustered intervals (default 1,000; 0: none). */
  samples?: number;
  /** Seed of the bootstrap (default 42). */
  seed?: number;
  title?: string;
  createdBy?: Actor;
}

/** Computes the agreement of two stored label sets, as `assay agree`, and stores it. */
export async function createAgreementReport(
  db: Queryable,
  input: AgreementReportInput,
): Promise<StoredReport> {
  const collection = await resolveCollection(db, input.collection);
  const setA = await resolveLabelSet(db, collection, input.labelSetA);
  const setB = await resolveLabelSet(db, collection, input.labelSetB);
  const a = await getLabelGrades(db, setA.id);
  const b = await getLabelGrades(db, setB.id);
  for (const [set, grades] of [
    [setA, a],
    [setB, b],
  ] as const)
    if (grades.size === 0) throw await noLabelsError(db, set);
  if (input.scale !== undefined) {
    const { min, max } = input.scale;
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min >= max)
      throw new PlatformError(
        'invalid_input',
        'the scale needs integer grades, the lowest below the highest',
      );
  }
  const scale = input.scale ?? observedScale(a, b);
  if (scaleWidth(scale) > MAX_SCALE_GRADES) {
    if (input.scale !== undefined)
      throw new PlatformError(
        'invalid_input',
        `the scale ${scale.min}-${scale.max} holds more than ${MAX_SCALE_GRADES} grades, the most agreement is computed over`,
      );
    const outlier = outlyingGrade(a, b)!;
    const set = outlier.side === 'a' ? setA : setB;
    throw new PlatformError(
      'invalid_input',
      `label set "${set.name}": grade ${outlier.grade} of topic ${outlier.qid} document ${outlier.docno} makes the scale ${scale.min}-${scale.max}, wider than the ${MAX_SCALE_GRADES} grades agreement is computed over; give a scale and clip to clamp it, or fix the label`,
      { labelSet: set.name, grade: outlier.grade, maxScaleGrades: MAX_SCALE_GRADES },
    );
  }
  const clip = input.clip ?? false;
  const clipped = {
    a: fitToScale(a, scale, clip, setA.name),
    b: fitToScale(b, scale, clip, setB.name),
  };
  const samples = input.samples ?? CLUSTER_BOOTSTRAP_SAMPLES;
  const seed = input.seed ?? 42;
  if (!Number.isSafeInteger(samples) || samples < 0 || samples > 100_000)
    throw new PlatformError('invalid_input', 'samples must be a whole number from 0 to 100000');
  if (!Number.isSafeInteger(seed))
    throw new PlatformError('invalid_input', 'seed must be an integer');
  // Computed a slice at a time: a server keeps answering others meanwhile.
  const result = await inSlices(agreementSteps(a, b, scale, clipped, { samples, seed }));
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: { id: collection.id, name: collection.name },
    labelSets: [setA, setB].map((s) => ({ id: s.id, name: s.name })),
    runs: [],
    scale,
    clip,
    bootstrapSamples: samples,
    seed,
  };
  const title = input.title ?? `${setA.name} vs ${setB.name}`;
  return storeReport(db, collection, 'agreement', title, provenance, result, input.createdBy);
}

/** Grades outside the scale fail, or with `clip` are clamped into it (in place) and counted. */
function fitToScale(
  grades: Map<string, Map<string, number>>,
  scale: GradeScale,
  clip: boolean,
  name: string,
): number {
  return fitGradesToScale(grades, scale, clip, (qid, docno, grade) => {
    throw new PlatformError(
      'invalid_input',
      `label set "${name}": grade ${grade} of topic ${qid} document ${docno} is outside the scale ${scale.min}-${scale.max} (clip to clamp it)`,
    );
  });
}
