// The answers of the campaign routes, field by field: what the OpenAPI document publishes
// and what hono's typed client (`hc<AssayApp>`, the web app's client) gives its callers.
// Objects are strict (no field beyond those named), except where the stored data is open:
// a campaign's settings and a topic's context.
import { ITEM_FLAGS } from '@assay/platform';
import { z } from '@hono/zod-openapi';
import { LeftOutSchema as LeftOut } from '../core/schemas.js';

/**
 * Any JSON value as a topic file carried it. Checked as unknown and typed as JSON: the
 * OpenAPI generator cannot walk zod's recursive `z.json()`.
 */
const UploadedValue = z
  .unknown()
  .openapi({ description: 'any JSON value' }) as unknown as z.ZodType<
  z.infer<ReturnType<typeof z.json>> | undefined
>;

const Int = z.number().int();
/** A statistic that is undefined (NaN) for the data comes as null. */
const Num = z.number().nullable();
const Timestamp = z.string().openapi({ format: 'date-time' });
const Named = z.strictObject({ id: Int, name: z.string() });
const Progress = z.strictObject({ done: Int, total: Int });
const Scale = z.strictObject({ min: Int, max: Int });
const Flag = z
  .enum(['broken', 'unsure'])
  .openapi({ description: `one of ${ITEM_FLAGS.join(', ')}: the passage is broken; not sure` });
/** Another label set's grade of the item (null: it has none). */
const OtherGrade = z.strictObject({ labelSet: z.string(), grade: Int.nullable() });

/** A grade of the campaign's scale and what it means. */
const Grade = z.strictObject({ grade: Int, label: z.string() }).openapi('Grade');

const AnnotatorProgress = z
  .strictObject({
    userId: Int,
    name: z.string(),
    done: Int,
    skipped: Int,
    total: Int,
    seconds: z.number(),
  })
  .openapi('AnnotatorProgress');

export const CampaignSchema = z
  .strictObject({
    id: Int,
    collectionId: Int,
    name: z.string(),
    title: z.string().openapi({ description: 'what annotators see (the name unless titled)' }),
    labelSet: Named,
    rubric: z.string(),
    scale: Scale,
    grades: z.array(Grade),
    overlap: Int,
    blind: z.boolean(),
    items: Int,
    labelled: Int.openapi({ description: 'items with a campaign label' }),
    leftOut: LeftOut.nullable().openapi({
      description: 'pairs of the pool left out when it was made (null: not recorded)',
    }),
    compareWith: z.array(Named),
    settings: z.record(z.string(), z.unknown()).openapi({
      description: 'source, sampling, judge and order (`order: "topic"`: topic by topic)',
    }),
    annotators: z.array(AnnotatorProgress),
    closed: z
      .strictObject({ at: Timestamp, by: Int.nullable() })
      .nullable()
      .openapi({ description: 'when it was closed (it takes no labels then); null while open' }),
    removedAnnotators: z.array(Named),
    createdAt: Timestamp,
  })
  .openapi('Campaign');

export const MyCampaignSchema = z
  .strictObject({
    id: Int,
    title: z.string(),
    blind: z.boolean(),
    progress: Progress,
    closed: z.boolean().openapi({ description: 'it takes no more labels' }),
    removed: z.boolean().openapi({ description: 'the caller was removed from it' }),
  })
  .openapi('MyCampaign');

const ConversationTurn = z.strictObject({ role: z.string(), text: z.string() });

const AnnotationItemFields = {
  campaign: z.strictObject({
    id: Int,
    title: z.string(),
    inputLockMs: Int.openapi({ description: 'keys are ignored this long after a new item' }),
  }),
  item: z.strictObject({
    id: Int,
    topic: z.strictObject({
      id: z.string(),
      query: z.string(),
      description: z.string().optional(),
      narrative: z.string().optional(),
      context: z
        .object({
          previousTurns: z.array(ConversationTurn).optional(),
          userBackground: z.array(z.string()).optional(),
          referenceAnswer: z.string().optional(),
        })
        .catchall(UploadedValue)
        .optional()
        .openapi({ description: 'a conversational topic’s context: its keys as uploaded' }),
    }),
    document: z.strictObject({ id: z.string(), title: z.string().optional(), text: z.string() }),
  }),
  scale: z.strictObject({ min: Int, max: Int, grades: z.array(Grade) }),
  rubric: z.string(),
  progress: Progress,
  reference: z.array(OtherGrade).optional().openapi({
    description: 'other label sets’ grades (campaigns that are not blind only)',
  }),
  referenceHidden: z.string().optional().openapi({
    description: 'why other label sets’ grades are not shown (a blind campaign has the item)',
  }),
};

export const AnnotationItemSchema = z.strictObject(AnnotationItemFields).openapi('AnnotationItem');

export const AnnotationItemWithGradeSchema = z
  .strictObject({ ...AnnotationItemFields, grade: Int.nullable() })
  .openapi('AnnotationItemWithGrade');

export const NextAnnotationItemsSchema = z
  .strictObject({ items: z.array(AnnotationItemSchema), progress: Progress })
  .openapi('NextAnnotationItems');

/** The caller's label of an item as it now stands (null: none), with their progress. */
export const SavedLabelSchema = z
  .strictObject({ item: Int, grade: Int.nullable(), progress: Progress })
  .openapi('SavedLabel');

export const HistoryItemSchema = z
  .strictObject({
    item: Int,
    topic: z.strictObject({ id: z.string(), query: z.string() }),
    document: z.strictObject({ id: z.string() }),
    grade: Int,
    seconds: z.number(),
    labelledAt: Timestamp,
    flag: Flag.nullable(),
    note: z.string().nullable(),
  })
  .openapi('HistoryItem');

const ItemNoteFields = {
  item: Int,
  flag: Flag.nullable(),
  note: z.string(),
  updatedAt: Timestamp.nullable(),
};

export const ItemNoteSchema = z.strictObject(ItemNoteFields).openapi('ItemNote');

export const CampaignNoteSchema = z
  .strictObject({
    ...ItemNoteFields,
    user: Named,
    topic: z.string(),
    docno: z.string(),
  })
  .openapi('CampaignNote');

const DisagreementFields = {
  item: Int,
  topicId: z.string(),
  query: z.string(),
  docId: z.string(),
  grades: z.array(z.strictObject({ annotator: z.string(), grade: Int })),
  label: Int.nullable(),
  adjudicated: Int.nullable(),
  labelSets: z.array(OtherGrade).optional(),
};

export const DisagreementSchema = z
  .strictObject({
    ...DisagreementFields,
    status: z.enum(['tie', 'majority', 'adjudicated']).openapi({
      description: 'tie: the most given grades are given equally often (the label takes the lower)',
    }),
  })
  .openapi('Disagreement');

export const AdjudicationItemSchema = z
  .strictObject({
    ...DisagreementFields,
    status: z.enum(['tie', 'majority', 'adjudicated', 'agreed', 'unlabelled']),
    topic: z.strictObject({
      id: z.string(),
      query: z.string(),
      description: z.string().optional(),
      narrative: z.string().optional(),
    }),
    document: z.strictObject({ id: z.string(), title: z.string().optional(), text: z.string() }),
  })
  .openapi('AdjudicationItem');

export const AdjudicationSchema = z
  .strictObject({
    item: Int,
    grade: Int.nullable().openapi({ description: 'the campaign label (null: none)' }),
  })
  .openapi('Adjudication');

const Coefficients = {
  exactAgreement: Num,
  cohenKappa: z.strictObject({ unweighted: Num, linear: Num, quadratic: Num }),
  krippendorffAlpha: z.strictObject({ nominal: Num, ordinal: Num, interval: Num }),
  fleissKappa: Num,
  gwet: z.strictObject({ ac1: Num, ac2: z.strictObject({ linear: Num, quadratic: Num }) }),
  pabak: Num,
};
const Interval = z.tuple([Num, Num]);

/** `assay agree --format json`: two sources' agreement over the items both graded. */
const AgreementReport = z
  .strictObject({
    n: Int,
    onlyA: Int,
    onlyB: Int,
    scale: Scale,
    clipped: z.strictObject({ a: Int, b: Int }),
    ...Coefficients,
    binarized: z.array(
      z.strictObject({ threshold: Int, kappa: Num, agreement: Num, alpha: Num, ac1: Num }),
    ),
    confusion: z.strictObject({ labels: z.array(Int), matrix: z.array(z.array(Int)) }),
    bootstrap: z
      .strictObject({
        method: z.string(),
        samples: Int,
        seed: Int,
        level: z.number(),
        topics: Int,
      })
      .optional(),
    intervals: z
      .strictObject({
        exactAgreement: Interval,
        cohenKappa: z.strictObject({ unweighted: Interval, linear: Interval, quadratic: Interval }),
        krippendorffAlpha: z.strictObject({
          nominal: Interval,
          ordinal: Interval,
          interval: Interval,
        }),
        fleissKappa: Interval,
        gwet: z.strictObject({
          ac1: Interval,
          ac2: z.strictObject({ linear: Interval, quadratic: Interval }),
        }),
        pabak: Interval,
      })
      .optional(),
  })
  .openapi('AgreementReport');

/** The agreement of two sources, or (nothing labelled by both) `n` 0, no report and why. */
const PairAgreement = {
  n: Int,
  report: AgreementReport.nullable(),
  reason: z.string().optional().openapi({ description: 'why there is no report' }),
};

export const CampaignAgreementSchema = z
  .strictObject({
    campaign: z.strictObject({ id: Int, name: z.string(), labelSet: z.string() }),
    scale: Scale,
    annotators: z.strictObject({
      people: z.array(z.strictObject({ id: Int, name: z.string(), labels: Int })),
      pairwise: z.array(z.strictObject({ a: z.string(), b: z.string(), ...PairAgreement })),
      overall: z.strictObject({
        items: Int,
        fleissKappa: z.strictObject({ items: Int, value: Num }),
        krippendorffAlpha: z.strictObject({ nominal: Num, ordinal: Num, interval: Num }),
      }),
      perTopic: z.array(
        z.strictObject({
          topic: z.string(),
          items: Int,
          tooFew: z.boolean().openapi({ description: 'too few items for a figure' }),
          krippendorffAlpha: Num,
        }),
      ),
    }),
    compareWith: z.array(
      z.strictObject({
        labelSet: Named,
        ...PairAgreement,
        perTopic: z.array(
          z.strictObject({
            topic: z.string(),
            n: Int,
            tooFew: z.boolean(),
            exactAgreement: Num,
            cohenKappa: Num,
            krippendorffAlpha: Num,
          }),
        ),
      }),
    ),
  })
  .openapi('CampaignAgreement');

export const AddedAnnotatorsSchema = z
  .strictObject({
    added: z.array(z.strictObject({ userId: Int, name: z.string(), items: Int })),
    campaign: CampaignSchema,
  })
  .openapi('AddedAnnotators');

export const RemovedAnnotatorSchema = z
  .strictObject({
    userId: Int,
    name: z.string(),
    kept: Int.openapi({ description: 'labels they gave (kept)' }),
    released: Int.openapi({ description: 'unlabelled items taken back' }),
    message: z.string(),
    campaign: CampaignSchema,
  })
  .openapi('RemovedAnnotator');

export const CampaignDeletionSchema = z
  .strictObject({
    id: Int,
    name: z.string(),
    items: Int,
    labels: Int,
    labelSet: Named,
    usedBy: z.array(Named).openapi({ description: 'campaigns that use its label set' }),
    message: z.string(),
  })
  .openapi('CampaignDeletion');
