// Who assesses a people set by hand: the annotators it names (in its settings, as a
// campaign names its own), and only they reach it besides admins; what each of them sees
// of it: their own labels, never another person's (nor, in a blind set, the LLM's); and
// that nobody assesses answers blind in one set while seeing the LLM's labels of the same
// answers in a post-edit set, as campaigns keep blind and non-blind labelling apart.
import {
  getAssessmentSet,
  listAssessmentRevisions,
  listAssessmentSets,
  lockName,
  updateAssessmentSetSettings,
  withTransaction,
  type AssessmentSet,
  type Queryable,
  type StoredAssessment,
  type User,
  type UserRole,
} from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { resolveUser } from '../people/users.js';
import { answerKey, resolveAssessmentSet } from './assessment-context.js';

/** Who asks for a set: an admin reaches every set, anyone else the people sets naming them. */
export interface AssessmentViewer {
  id: number;
  role: UserRole;
}

/** The annotators a people set names (user ids). */
export function assessmentAnnotatorIds(set: AssessmentSet): number[] {
  const ids = set.settings.annotators;
  return Array.isArray(ids) ? ids.filter((v): v is number => typeof v === 'number') : [];
}

/** Whether the viewer sees a set as its annotators do (only their own labels). */
export function seesOwnLabelsOnly(
  viewer: AssessmentViewer | undefined,
): viewer is AssessmentViewer {
  return viewer !== undefined && viewer.role !== 'admin';
}

/**
 * The set as `viewer` may reach it: any set for an admin (or with no viewer, inside the
 * platform); for anyone else only a people set that names them, and not_found otherwise,
 * worded as for a set that does not exist, so that nobody learns of sets not theirs.
 */
export async function reachAssessmentSet(
  db: Queryable,
  setId: number,
  viewer?: AssessmentViewer,
): Promise<AssessmentSet> {
  const set = await getAssessmentSet(db, setId);
  const reachable =
    set !== undefined &&
    (!seesOwnLabelsOnly(viewer) ||
      (set.assessor === 'people' && assessmentAnnotatorIds(set).includes(viewer.id)));
  if (!reachable) throw new PlatformError('not_found', `no assessment set ${setId}`);
  return set;
}

/**
 * The changes of one item still standing, oldest first: each undo row takes back the
 * change before it (the one an undo appends only follows its own person's change).
 */
export function standingChanges(revisions: readonly StoredAssessment[]): StoredAssessment[] {
  const changes: StoredAssessment[] = [];
  for (const r of revisions) {
    if (r.rationale === 'undo') changes.pop();
    else changes.push(r);
  }
  return changes;
}

/**
 * One person's own labels in a set, by answer then item: per item the latest of their
 * changes still standing (whatever others labelled since), so that people assessing the
 * same answers never see each other's labels.
 */
export async function ownLabels(
  db: Queryable,
  setId: number,
  userId: number,
  options: { topicId?: string } = {},
): Promise<Map<string, Map<string, string>>> {
  const byItem = new Map<string, StoredAssessment[]>();
  for (const r of await listAssessmentRevisions(db, setId, options)) {
    const key = JSON.stringify([r.topicId, r.system, r.item]);
    const list = byItem.get(key);
    if (list) list.push(r);
    else byItem.set(key, [r]);
  }
  const out = new Map<string, Map<string, string>>();
  for (const revisions of byItem.values()) {
    const mine = standingChanges(revisions)
      .filter((c) => c.userId === userId)
      .at(-1);
    if (!mine || mine.label === null) continue;
    const key = answerKey(mine.topicId, mine.system);
    let items = out.get(key);
    if (!items) out.set(key, (items = new Map()));
    items.set(mine.item, mine.label);
  }
  return out;
}

/** The people named, each once. */
export async function resolveAnnotators(
  db: Queryable,
  refs: ReadonlyArray<string | number>,
): Promise<User[]> {
  const users: User[] = [];
  for (const ref of refs) users.push(await resolveUser(db, ref));
  if (new Set(users.map((u) => u.id)).size !== users.length)
    throw new PlatformError('invalid_input', 'a person is listed twice');
  return users;
}

/** What a people set is, for the blindness check: a set stored or about to be. */
interface PeopleSetShape {
  id?: number;
  collectionId: number;
  kind: AssessmentSet['kind'];
  responseSetId: number;
  mode: AssessmentSet['mode'];
}

/**
 * Refuses people who would assess the same answers blind in one set and post-editing in
 * another: the post-edit screen shows the LLM's labels, which the blind set hides.
 */
export async function checkAnnotatorBlindness(
  db: Queryable,
  set: PeopleSetShape,
  users: readonly User[],
): Promise<void> {
  const others = (
    await listAssessmentSets(db, { collectionId: set.collectionId, kind: set.kind })
  ).filter(
    (o) =>
      o.id !== set.id &&
      o.assessor === 'people' &&
      o.responseSetId === set.responseSetId &&
      o.mode !== set.mode,
  );
  const conflicts = users.flatMap((u) =>
    others
      .filter((o) => assessmentAnnotatorIds(o).includes(u.id))
      .map((o) => `${u.name} (set "${o.name}")`),
  );
  if (conflicts.length === 0) return;
  const blind = set.mode === 'blind';
  throw new PlatformError(
    'conflict',
    `this set is ${blind ? 'blind' : 'post-edited'} and assesses the answers of a ${blind ? 'post-edited' : 'blind'} set where ${conflicts.join(', ')} already assess${conflicts.length === 1 ? 'es' : ''}: post-editing shows the LLM's labels of answers assessed blind, so they are not added`,
    { annotators: conflicts },
  );
}

/** Runs a change of a people set's annotators with the set locked against another change. */
async function changingAnnotators<T>(
  db: Queryable,
  setId: number,
  change: (trx: Queryable, set: AssessmentSet) => Promise<T>,
): Promise<T> {
  return withTransaction(db, async (trx) => {
    await lockName(trx, `assessment-set-annotators:${setId}`);
    const set = await resolveAssessmentSet(trx, setId);
    if (set.assessor !== 'people')
      throw new PlatformError(
        'invalid_input',
        `assessment set ${setId} is not assessed by people: it has no annotators`,
      );
    return change(trx, set);
  });
}

/**
 * Adds annotators to a people set: they reach it from then on (those named already stay).
 * Someone who assesses the same answers in a set of the other mode is a conflict, and then
 * nobody is added.
 */
export async function addAssessmentAnnotators(
  db: Queryable,
  setId: number,
  refs: ReadonlyArray<string | number>,
): Promise<AssessmentSet> {
  if (refs.length === 0)
    throw new PlatformError('invalid_input', 'name at least one person to add to the set');
  const users = await resolveAnnotators(db, refs);
  await changingAnnotators(db, setId, async (trx, set) => {
    await checkAnnotatorBlindness(trx, set, users);
    const annotators = [...new Set([...assessmentAnnotatorIds(set), ...users.map((u) => u.id)])];
    await updateAssessmentSetSettings(trx, setId, { ...set.settings, annotators });
  });
  return resolveAssessmentSet(db, setId);
}

/**
 * Removes an annotator from a people set: they reach it no more; the labels they gave stay
 * in it. Not_found when the set does not name them.
 */
export async function removeAssessmentAnnotator(
  db: Queryable,
  setId: number,
  ref: string | number,
): Promise<AssessmentSet> {
  const user = await resolveUser(db, ref);
  await changingAnnotators(db, setId, async (trx, set) => {
    const ids = assessmentAnnotatorIds(set);
    if (!ids.includes(user.id))
      throw new PlatformError(
        'not_found',
        `${user.name} is not an annotator of assessment set ${setId}`,
      );
    await updateAssessmentSetSettings(trx, setId, {
      ...set.settings,
      annotators: ids.filter((id) => id !== user.id),
    });
  });
  return resolveAssessmentSet(db, setId);
}
