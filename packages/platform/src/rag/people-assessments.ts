// People assessing answers by hand (the keyboard screens of the web app): a people set of
// one kind over a response set, blind to the LLM's labels or post-editing an LLM set; the
// answers to go through, one answer's items with their labels, saving a label and undoing
// the last one. Labels are append-only revisions: undo appends the label before.
import {
  appendAssessment,
  createAssessmentSet,
  findAssessmentSet,
  freezeNuggetBankVersion,
  listAssessmentSets,
  listItemRevisions,
  listUserAssessedItems,
  withTransaction,
  type AssessmentKind,
  type AssessmentMode,
  type AssessmentSet,
  type Queryable,
  type StoredAssessment,
  type StoredSentence,
  type UserRole,
} from '@assay/db';
import { PlatformError, writing } from '../core/errors.js';
import type { ResponseSetRef } from '../answers/answer-sets.js';
import { checkNewName } from '../core/names.js';
import type { Actor } from '../reports/reports.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import {
  ASSESSMENT_LABELS,
  answerKey,
  currentLabels,
  isAssessable,
  itemsOf,
  loadAssessmentContext,
  requestOf,
  resolveAssessmentSet,
  type AssessmentItem,
} from './assessment-context.js';
import { resolveAssessmentBasis } from './assessment-basis.js';
import {
  assessmentAnnotatorIds,
  checkAnnotatorBlindness,
  ownLabels,
  reachAssessmentSet,
  resolveAnnotators,
  seesOwnLabelsOnly,
  standingChanges,
  type AssessmentViewer,
} from './assessment-annotators.js';

/** A people assessment set to make. */
export interface PeopleAssessmentInput {
  collection: CollectionRef;
  kind: AssessmentKind;
  name: string;
  /** The answers (not needed with a reference set: its answers are judged). */
  responseSet?: ResponseSetRef;
  bank?: { name: string; version?: number };
  rubricSet?: string;
  /** blind: people never see the LLM's labels; post_edit: they correct the reference set's. */
  mode: AssessmentMode;
  /** The LLM set people post-edit (required then) or are compared with (blind), by id. */
  referenceSet?: number;
  /** Who assesses it (names or ids): only they reach it, besides admins. */
  annotators?: ReadonlyArray<string | number>;
  createdBy?: Actor;
}

/**
 * Makes an empty assessment set for people, assessed by `annotators` (more can be added
 * later). In post-edit mode `referenceSet` names the set whose labels people see and
 * correct; it must judge the same answers (and the same nugget bank version or rubric
 * set). A blind set may name one too: it is the set the agreement compares with, never
 * shown to the people assessing. Someone assessing the same answers in a set of the other
 * mode cannot be named (a conflict).
 */
export async function createPeopleAssessmentSet(
  db: Queryable,
  input: PeopleAssessmentInput,
): Promise<AssessmentSet> {
  const collection = await resolveCollection(db, input.collection);
  const name = checkNewName(input.name, 'assessment set name');
  if (input.mode !== 'blind' && input.mode !== 'post_edit')
    throw new PlatformError('invalid_input', 'mode must be "blind" or "post_edit"');
  let responseSetId: number;
  let nuggetVersionId: number | null = null;
  let rubricSetId: number | null = null;
  let reference: AssessmentSet | undefined;
  if (input.referenceSet !== undefined) {
    reference = await resolveAssessmentSet(db, input.referenceSet);
    if (reference.collectionId !== collection.id || reference.kind !== input.kind)
      throw new PlatformError(
        'invalid_input',
        `assessment set ${input.referenceSet} is not a ${input.kind} set of collection "${collection.name}"`,
      );
    responseSetId = reference.responseSetId;
    nuggetVersionId = reference.nuggetVersionId;
    rubricSetId = reference.rubricSetId;
  } else {
    if (input.mode === 'post_edit')
      throw new PlatformError(
        'invalid_input',
        'post-editing needs the set to post-edit (referenceSet)',
      );
    const basis = await resolveAssessmentBasis(db, collection.id, input.kind, input);
    responseSetId = basis.responseSet.id;
    nuggetVersionId = basis.nuggetVersionId;
    rubricSetId = basis.rubricSetId;
  }
  const annotators = await resolveAnnotators(db, input.annotators ?? []);
  await checkAnnotatorBlindness(
    db,
    { collectionId: collection.id, kind: input.kind, responseSetId, mode: input.mode },
    annotators,
  );
  const id = await writing(
    () =>
      withTransaction(db, async (trx) => {
        if (await findAssessmentSet(trx, collection.id, input.kind, name))
          throw new PlatformError(
            'conflict',
            `a ${input.kind} assessment set named ${JSON.stringify(name)} exists`,
          );
        const id = await createAssessmentSet(trx, {
          collectionId: collection.id,
          kind: input.kind,
          name,
          responseSetId,
          nuggetVersionId,
          rubricSetId,
          assessor: 'people',
          mode: input.mode,
          referenceSetId: reference?.id ?? null,
          settings: { annotators: annotators.map((u) => u.id) },
          createdBy: input.createdBy?.id ?? null,
        });
        if (nuggetVersionId !== null) await freezeNuggetBankVersion(trx, nuggetVersionId);
        return id;
      }),
    `a ${input.kind} assessment set named ${JSON.stringify(name)} exists`,
  );
  return resolveAssessmentSet(db, id);
}

/** An answer of a set with how far it is judged. */
export interface AssessmentAnswerSummary {
  topic: string;
  system: string;
  items: number;
  judged: number;
}

/** Per answer and item, the labels a viewer sees: the set's, or (an annotator) their own. */
async function labelsSeen(
  db: Queryable,
  set: AssessmentSet,
  viewer: AssessmentViewer | undefined,
  options: { topicId?: string } = {},
): Promise<Map<string, Map<string, { label: string | null; userId: number | null }>>> {
  if (!seesOwnLabelsOnly(viewer)) return currentLabels(db, set.id, options);
  const own = await ownLabels(db, set.id, viewer.id, options);
  return new Map(
    [...own].map(([key, items]) => [
      key,
      new Map([...items].map(([item, label]) => [item, { label, userId: viewer.id }])),
    ]),
  );
}

/**
 * The answers a set judges, in topic then system order, with their progress: how many
 * items are labelled, or for an annotator how many they labelled. A viewer who is not an
 * admin reaches only a people set that names them (see `reachAssessmentSet`).
 */
export async function listAssessmentAnswers(
  db: Queryable,
  setId: number,
  viewer?: AssessmentViewer,
): Promise<AssessmentAnswerSummary[]> {
  const set = await reachAssessmentSet(db, setId, viewer);
  const context = await loadAssessmentContext(db, set);
  const labels = await labelsSeen(db, set, viewer);
  return context.answers
    .filter((a) => isAssessable(context, a))
    .map((a) => {
      const items = itemsOf(context, a);
      const judged = labels.get(answerKey(a.topicId, a.system));
      return {
        topic: a.topicId,
        system: a.system,
        items: items.length,
        judged: items.filter((i) => judged?.get(i.item)?.label != null).length,
      };
    });
}

/** The people sets naming the viewer, each with their progress in it, oldest first. */
export async function listAssignedAssessmentSets(
  db: Queryable,
  viewer: AssessmentViewer,
): Promise<Array<{ set: AssessmentSet; items: number; judged: number }>> {
  const mine = (await listAssessmentSets(db, {})).filter(
    (s) => s.assessor === 'people' && assessmentAnnotatorIds(s).includes(viewer.id),
  );
  const out = [];
  for (const set of mine) {
    // Their own progress, whatever their role: the list is of the sets they assess.
    const answers = await listAssessmentAnswers(db, set.id, { id: viewer.id, role: 'annotator' });
    const items = answers.reduce((s, a) => s + a.items, 0);
    const judged = answers.reduce((s, a) => s + a.judged, 0);
    out.push({ set: asAnnotatorsSee(set, judged), items, judged });
  }
  return out;
}

/**
 * A set as its annotators see it: no settings (who else assesses it), the reference set
 * only when they post-edit it, and their own labels counted.
 */
function asAnnotatorsSee(set: AssessmentSet, judged: number): AssessmentSet {
  return {
    ...set,
    settings: {},
    referenceSetId: set.mode === 'post_edit' ? set.referenceSetId : null,
    judged,
    failed: 0,
  };
}

/** One item of an answer on the screen: what to judge, its label, and (post-edit) the LLM's. */
export interface ScreenItem extends AssessmentItem {
  label: string | null;
  /** Who gave the current label (a user's name; null: the LLM or a file). */
  labelledBy: number | null;
  /** Post-edit mode only: the reference set's label, and why it failed if it did. */
  reference?: { label: string | null; error: string | null };
}

/** An answer on the assessment screen. */
export interface AssessmentScreen {
  set: AssessmentSet;
  labels: readonly string[];
  topic: string;
  system: string;
  query: string | null;
  answer: string;
  sentences: StoredSentence[] | null;
  items: ScreenItem[];
}

/**
 * One answer of a set as the assessment screen shows it: the request, the answer (and its
 * sentences), and each item with its current label (for an annotator, their own: never
 * another person's). The reference set's labels come only in post-edit mode: in a blind
 * set they are never part of the answer. A viewer who is not an admin reaches only a
 * people set that names them.
 */
export async function assessmentScreen(
  db: Queryable,
  setId: number,
  topic: string,
  system: string,
  viewer?: AssessmentViewer,
): Promise<AssessmentScreen> {
  const found = await reachAssessmentSet(db, setId, viewer);
  const set = seesOwnLabelsOnly(viewer)
    ? asAnnotatorsSee(found, countLabels(await ownLabels(db, found.id, viewer.id)))
    : found;
  const context = await loadAssessmentContext(db, set, { topicId: topic });
  const answer = context.answers.find((a) => a.topicId === topic && a.system === system);
  if (!answer || !isAssessable(context, answer))
    throw new PlatformError(
      'not_found',
      `assessment set ${setId} has no answer of ${system} to topic ${topic}`,
    );
  const own = (await labelsSeen(db, set, viewer, { topicId: topic })).get(answerKey(topic, system));
  const reference =
    set.mode === 'post_edit' && set.referenceSetId !== null
      ? (await currentLabels(db, set.referenceSetId, { topicId: topic })).get(
          answerKey(topic, system),
        )
      : undefined;
  return {
    set,
    labels: ASSESSMENT_LABELS[set.kind],
    topic,
    system,
    query: requestOf(context, answer) ?? null,
    answer: answer.answer,
    sentences: answer.sentences,
    items: itemsOf(context, answer).map((i) => {
      const mine = own?.get(i.item);
      const item: ScreenItem = {
        ...i,
        label: mine?.label ?? null,
        labelledBy: mine?.userId ?? null,
      };
      if (set.mode === 'post_edit') {
        const r = reference?.get(i.item);
        item.reference = { label: r?.label ?? null, error: r?.error ?? null };
      }
      return item;
    }),
  };
}

/** A label a person gives. */
export interface SaveAssessmentInput {
  topic: string;
  system: string;
  item: string;
  label: string;
  /** Seconds spent on the item, when the screen measured it. */
  seconds?: number;
}

function checkPeopleSet(set: AssessmentSet): void {
  if (set.assessor !== 'people')
    throw new PlatformError('invalid_input', `assessment set ${set.id} is not assessed by people`);
}

/** Labels counted over answers. */
function countLabels(labels: ReadonlyMap<string, ReadonlyMap<string, string>>): number {
  let n = 0;
  for (const items of labels.values()) n += items.size;
  return n;
}

/** Who labels: with a role, an annotator reaches only the people sets naming them. */
export type AssessingActor = Actor & { role?: UserRole };

function viewerOf(actor: AssessingActor): AssessmentViewer | undefined {
  return actor.role === undefined ? undefined : { id: actor.id, role: actor.role };
}

/**
 * Saves a person's label of one item of one answer (a new revision). An annotator labels
 * only in a people set that names them.
 */
export async function saveAssessment(
  db: Queryable,
  setId: number,
  input: SaveAssessmentInput,
  actor: AssessingActor,
): Promise<StoredAssessment> {
  const set = await reachAssessmentSet(db, setId, viewerOf(actor));
  checkPeopleSet(set);
  if (!ASSESSMENT_LABELS[set.kind].includes(input.label))
    throw new PlatformError(
      'invalid_input',
      `label must be one of ${ASSESSMENT_LABELS[set.kind].join(', ')}, not ${JSON.stringify(input.label)}`,
    );
  const context = await loadAssessmentContext(db, set, { topicId: input.topic });
  const answer = context.answers.find(
    (a) => a.topicId === input.topic && a.system === input.system,
  );
  if (
    !answer ||
    !isAssessable(context, answer) ||
    !itemsOf(context, answer).some((i) => i.item === input.item)
  )
    throw new PlatformError(
      'not_found',
      `assessment set ${setId} has no item ${input.item} of ${input.system}'s answer to topic ${input.topic}`,
    );
  if (input.seconds !== undefined && !(Number.isFinite(input.seconds) && input.seconds >= 0))
    throw new PlatformError('invalid_input', 'seconds must be a number >= 0');
  return appendAssessment(db, set.id, {
    topicId: input.topic,
    system: input.system,
    item: input.item,
    label: input.label,
    userId: actor.id,
    seconds: input.seconds ?? null,
  });
}

/**
 * Takes back the person's latest label that is still current: appends the label the item
 * had before it (none when it had none). Repeated, it goes further back. Returns the
 * revision appended, or undefined when there is nothing to undo.
 */
export async function undoAssessment(
  db: Queryable,
  setId: number,
  actor: AssessingActor,
): Promise<StoredAssessment | undefined> {
  const set = await reachAssessmentSet(db, setId, viewerOf(actor));
  checkPeopleSet(set);
  return withTransaction(db, async (trx) => {
    const mine = await listUserAssessedItems(trx, set.id, actor.id, 500);
    const tried = new Set<string>();
    for (const row of mine) {
      const key = JSON.stringify([row.topicId, row.system, row.item]);
      if (tried.has(key)) continue;
      tried.add(key);
      const changes = standingChanges(await listItemRevisions(trx, set.id, row));
      const latest = changes.at(-1);
      if (!latest || latest.userId !== actor.id) continue;
      const before = changes.at(-2);
      return appendAssessment(trx, set.id, {
        topicId: row.topicId,
        system: row.system,
        item: row.item,
        label: before?.label ?? null,
        rationale: 'undo',
        userId: actor.id,
      });
    }
    return undefined;
  });
}
