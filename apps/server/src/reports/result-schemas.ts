// The results of the analyses the API answers field by field: an evaluation and a
// comparison as a stored report holds them, the leaderboard as `assay compare --format json` writes it (public
// leaderboards, assessment sets), and the answer-quality report of a score set. Each object
// is checked at compile time to name exactly the fields of the platform's type it presents,
// and the routes hand the platform's values to these schemas, so the two cannot drift.
// Objects are not strict: a stored report keeps what the analysis wrote when it was made.
import {
  COMPARE_CORRECTIONS,
  COMPARE_TESTS,
  type CompareReport,
  type Comparison,
  type comparisonJsonValue,
  type EvaluateRunsResult,
  type LeaderboardRow,
  type PairTest,
  type RankCorrelation,
  type RankCorrelationSettings,
  type scoreSetReport,
} from '@assay/platform';
import { z } from '@hono/zod-openapi';

/** Whether two types are the same (both ways assignable). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The names of an object type's fields, over each member of a union. */
type FieldsOf<T> = T extends unknown ? keyof T : never;

/**
 * The schema, when it names exactly the fields of `T` (the platform's type it presents); a
 * compile error otherwise. The values' types are checked where the routes answer them.
 */
const fieldsOf =
  <T>() =>
  <S extends z.ZodObject>(
    schema: S &
      (Same<keyof z.output<S>, FieldsOf<T>> extends true
        ? unknown
        : { fieldsDifferFromThePlatformType: FieldsOf<T> }),
  ): S =>
    schema;

/** A statistic that is undefined (NaN) or infinite for the data comes as null. */
const Num = z.number().nullable();
const Int = z.number().int();
/** A 95% interval: finite wherever the mean or coefficient it bounds is. */
const Interval = z.tuple([z.number(), z.number()]);
const ByMeasure = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

const LeaderboardRowSchema = fieldsOf<LeaderboardRow>()(
  z
    .object({
      run: z.string(),
      means: ByMeasure(Num).openapi({ description: 'mean over topics, per measure' }),
      ci: ByMeasure(Interval).optional().openapi({
        description:
          'per measure: 95% percentile bootstrap interval of the mean (absent from older reports)',
      }),
      judgedAt10: Num.optional().openapi({
        description: 'mean Judged@10 (absent from leaderboards of answers’ scores)',
      }),
      differsFrom: ByMeasure(z.array(z.string())).openapi({
        description: 'per measure: the runs it differs from significantly (after correction)',
      }),
      betterThan: ByMeasure(z.array(z.string())).openapi({
        description: 'per measure: the runs it is significantly better than',
      }),
    })
    .openapi('LeaderboardRow'),
);

const PairTestSchema = fieldsOf<PairTest>()(
  z
    .object({
      a: z.string(),
      b: z.string(),
      measure: z.string(),
      meanDiff: z.number().openapi({ description: 'mean over topics of a − b' }),
      statistic: Num.openapi({
        description:
          't for the t-test, min(W+, W−) for Wilcoxon, the observed mean difference for randomization',
      }),
      p: z.number(),
      pAdjusted: z
        .number()
        .openapi({ description: 'p after the correction over this measure’s tests' }),
      significant: z.boolean(),
    })
    .openapi('PairTest'),
);

const Settings = {
  topicHandling: z.string(),
  source: z.string().optional().openapi({
    description: 'what the leaderboard is judged by when not qrels (e.g. nugget assignments)',
  }),
  test: z.enum(COMPARE_TESTS),
  correction: z.enum(COMPARE_CORRECTIONS),
  alpha: z.number(),
  seed: Int,
  permutations: Int.optional().openapi({ description: 'only with the randomization test' }),
  baseline: z.string().optional().openapi({
    description: 'set when every run was tested against this run only',
  }),
  measures: z.array(z.string()).openapi({ description: 'the first orders the leaderboard' }),
};

/** A leaderboard with its tests, as a stored comparison report holds it. */
const ComparisonSchema = fieldsOf<Comparison>()(
  z
    .object({
      ...Settings,
      topics: Int.openapi({ description: 'topics every mean and test is taken over' }),
      runs: z.array(LeaderboardRowSchema).openapi({ description: 'best first' }),
      pairs: z.array(PairTestSchema),
      perTopic: ByMeasure(z.record(z.string(), z.array(z.number()))).openapi({
        description: 'per-topic values by measure and run, in `topicIds` order',
      }),
      topicIds: z.array(z.string()),
    })
    .openapi('Comparison'),
);

const RankCorrelationSchema = fieldsOf<RankCorrelation>()(
  z
    .object({
      kendallTauB: Num,
      tauAP: Num.openapi({ description: 'the first leaderboard as ground truth' }),
      spearman: Num,
      rbo: Num.openapi({ description: 'rank-biased overlap (p = 0.9)' }),
      kendallTauTop: Num.optional().openapi({
        description: 'Kendall tau-b over the first leaderboard’s top runs',
      }),
      gapAwareTau: Num.optional(),
      ci: z
        .record(z.string(), Interval)
        .optional()
        .openapi({ description: '95% topic-clustered bootstrap interval of each coefficient' }),
    })
    .openapi('RankCorrelation'),
);

const RankCorrelationSettingsSchema = fieldsOf<RankCorrelationSettings>()(
  z
    .object({
      topRuns: Int,
      tolerance: z.number(),
      samples: Int,
      seed: Int,
      level: z.number(),
      resampling: z.string(),
    })
    .openapi('RankCorrelationSettings'),
);

/** A comparison report's result: one leaderboard per label set, and with two, their agreement. */
export const CompareResultSchema = fieldsOf<CompareReport>()(
  z
    .object({
      leaderboards: z.array(z.object({ qrels: z.string(), comparison: ComparisonSchema })),
      rankCorrelation: z.record(z.string(), RankCorrelationSchema).optional().openapi({
        description: 'per measure, with two leaderboards',
      }),
      rankCorrelationSettings: RankCorrelationSettingsSchema.optional(),
    })
    .openapi('CompareResult'),
);

const BoardJson = {
  topics: Int,
  runs: z.array(LeaderboardRowSchema),
  pairs: z.array(PairTestSchema),
};

/**
 * What `assay compare --format json` writes. One leaderboard: the settings, `qrels`, `runs`
 * and `pairs` at top level; two: `leaderboards` (one per label set) and `rankCorrelation`.
 */
export const CompareJsonSchema = fieldsOf<ReturnType<typeof comparisonJsonValue>>()(
  z
    .object({
      ...Settings,
      correctionFamily: z.string(),
      bootstrap: z.object({ samples: Int, level: z.number(), seed: Int }),
      qrels: z.string().optional().openapi({ description: 'one leaderboard' }),
      topics: BoardJson.topics.optional().openapi({ description: 'one leaderboard' }),
      runs: BoardJson.runs.optional().openapi({ description: 'one leaderboard' }),
      pairs: BoardJson.pairs.optional().openapi({ description: 'one leaderboard' }),
      leaderboards: z
        .array(z.object({ qrels: z.string(), ...BoardJson }))
        .optional()
        .openapi({ description: 'two leaderboards, in label-set order' }),
      rankCorrelationMethod: z.string().optional(),
      rankCorrelationSettings: RankCorrelationSettingsSchema.optional(),
      rankCorrelation: z.record(z.string(), RankCorrelationSchema).optional(),
    })
    .openapi('CompareJson'),
);

/** Per-topic and mean values of each run (an evaluation, a stored evaluation report). */
export const EvaluationResultSchema = fieldsOf<EvaluateRunsResult>()(
  z
    .object({
      labelSet: z.string(),
      measures: z.array(z.string()),
      topicHandling: z.string(),
      runs: z.array(
        z.object({
          run: z.string(),
          perQuery: z
            .record(z.string(), z.record(z.string(), z.number()))
            .openapi({ description: 'topic → measure → value' }),
          mean: z.record(z.string(), z.number()).openapi({ description: 'measure → mean value' }),
        }),
      ),
    })
    .openapi('EvaluationResult'),
);

type AnswersReport = Awaited<ReturnType<typeof scoreSetReport>>['report'];

/** `assay answers report --format json`: systems (by name) and the pairwise tests. */
export const AnswersReportSchema = fieldsOf<AnswersReport>()(
  z
    .object({
      systems: z.array(
        fieldsOf<AnswersReport['systems'][number]>()(
          z.object({
            system: z.string(),
            n: Int.openapi({ description: 'topics' }),
            means: ByMeasure(z.number()).openapi({ description: 'per criterion' }),
            ci: ByMeasure(Interval).openapi({
              description: 'per criterion: 95% bootstrap interval of the mean',
            }),
            winRate: ByMeasure(z.number()),
            winRateNormalised: ByMeasure(z.number()),
          }),
        ),
      ),
      tests: z.array(
        fieldsOf<AnswersReport['tests'][number]>()(
          z.object({
            a: z.string(),
            b: z.string(),
            criterion: z.string(),
            test: z.enum(['paired', 'welch']),
            statistic: Num,
            p: Num,
            pAdjusted: Num,
            significant: z.boolean(),
          }),
        ),
      ),
    })
    .openapi('AnswersReport'),
);
