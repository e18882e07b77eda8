// Assessment sets as stored resources: listing, reading, deleting; their judgments as files
// (export, and import of assignments made elsewhere, e.g. NIST's in nuggetizer's form);
// their scores and significance-tested leaderboard (stored as a publishable report); and
// the agreement of two sets on the same items (an LLM and people: κ per topic and overall,
// the confusion matrix).
import {
  createAssessmentSet,
  deleteAssessmentSet,
  findAssessmentSet,
  freezeNuggetBankVersion,
  getUser,
  listAssessmentSets,
  replaceAssessments,
  withTransaction,
  type AssessmentKind,
  type AssessmentRow,
  type AssessmentSet,
  type Queryable,
} from '@assay/db';
import { labelAgreement, type LabelAgreementReport } from '@assay/stats';
import type { CompareSettings } from '../analysis/index.js';
import { PlatformError, writing } from '../core/errors.js';
import type { ResponseSetRef } from '../answers/answer-sets.js';
import { checkNewName } from '../core/names.js';
import { storeComparisonReport, type Actor, type StoredReport } from '../reports/reports.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import {
  ASSESSMENT_LABELS,
  answerKey,
  assessmentRecords,
  currentLabels,
  describeAssessmentSet,
  itemsOf,
  loadAssessmentContext,
  resolveAssessmentSet,
  type AssessmentRecords,
} from './assessment-context.js';
import { resolveAssessmentBasis } from './assessment-basis.js';
import { assessmentAnnotatorIds } from './assessment-annotators.js';
import {
  formatNuggetAssignments,
  formatRubricJudgments,
  formatSupportAssessments,
  parseNuggetAssignments,
  parseRubricJudgments,
  parseSupportAssessments,
} from './rag-files.js';
import {
  citationCounts,
  nuggetAnswerScores,
  ragLeaderboard,
  rubricAnswerScores,
  supportAnswerScores,
  type CitationCounts,
  type RagAnswerScores,
  type RagLeaderboard,
} from './rag-scoring.js';

export type { AssessmentSet };

/** The assessment sets of a collection (optionally of one kind), oldest first. */
export async function listCollectionAssessmentSets(
  db: Queryable,
  collection: CollectionRef,
  kind?: AssessmentKind,
): Promise<AssessmentSet[]> {
  const c = await resolveCollection(db, collection);
  return listAssessmentSets(db, { collectionId: c.id, ...(kind ? { kind } : {}) });
}

/** A collection's assessment set of a kind by name or id; not_found otherwise. */
export async function findCollectionAssessmentSet(
  db: Queryable,
  collection: CollectionRef,
  kind: AssessmentKind,
  ref: string | number,
): Promise<AssessmentSet> {
  const c = await resolveCollection(db, collection);
  const set =
    typeof ref === 'number' || /^[0-9]+$/.test(ref)
      ? await resolveAssessmentSet(db, Number(ref)).catch(() => undefined)
      : await findAssessmentSet(db, c.id, kind, ref);
  if (!set || set.collectionId !== c.id || set.kind !== kind)
    throw new PlatformError(
      'not_found',
      `no ${kind} assessment set ${JSON.stringify(String(ref))} in collection "${c.name}"`,
    );
  return set;
}

/** A set with what it judges (response set, bank version, rubric set) and who assesses it named. */
export async function assessmentSetDetail(db: Queryable, id: number) {
  const set = await resolveAssessmentSet(db, id);
  const annotators: Array<{ id: number; name: string }> = [];
  for (const userId of assessmentAnnotatorIds(set)) {
    const user = await getUser(db, userId);
    if (user) annotators.push({ id: user.id, name: user.name });
  }
  return {
    ...set,
    ...(await describeAssessmentSet(db, set)),
    ...(set.assessor === 'people' ? { annotators } : {}),
  };
}

/** Deletes an assessment set with its judgments. */
export async function removeAssessmentSet(db: Queryable, id: number): Promise<void> {
  await resolveAssessmentSet(db, id);
  await deleteAssessmentSet(db, id);
}

/** A set's judgments as JSONL: nuggetizer's form, the support form, the rubric form. */
export async function exportAssessmentSet(
  db: Queryable,
  id: number,
): Promise<{ text: string; records: AssessmentRecords }> {
  const records = await assessmentRecords(db, id);
  const text =
    records.set.kind === 'nuggets'
      ? formatNuggetAssignments(records.nuggets!)
      : records.set.kind === 'support'
        ? formatSupportAssessments(records.support!)
        : formatRubricJudgments(records.rubric!);
  return { text, records };
}

/** Per-answer scores of records of a kind. */
export function answerScoresOf(
  records: AssessmentRecords,
  kind: AssessmentKind,
  options: { firstCitationOnly?: boolean } = {},
): RagAnswerScores[] {
  if (kind === 'nuggets') return nuggetAnswerScores(records.nuggets ?? []);
  if (kind === 'support') return supportAnswerScores(records.support ?? [], options);
  return rubricAnswerScores(records.rubric ?? []);
}

/** The scores of a stored set: per answer, the leaderboard, what was left out. */
export interface AssessmentScores {
  set: AssessmentSet;
  answers: RagAnswerScores[];
  /** Absent when fewer than two systems or topics were scored. */
  leaderboard?: RagLeaderboard;
  incomplete: AssessmentRecords['incomplete'];
  /** Support: the citations scored, and those "cannot assess" (counted in neither score). */
  citations?: CitationCounts;
}

/**
 * Scores a stored set: per answer whose every item is judged (nugget scores, support
 * precision and recall, rubric scores), and over the topics where every answer is fully
 * judged, the systems' leaderboard with intervals, paired tests and corrections. Every
 * system of the response set is on it; one without an answer to a topic scores 0 there.
 */
export async function scoreAssessmentSet(
  db: Queryable,
  id: number,
  settings: CompareSettings,
  options: { firstCitationOnly?: boolean } = {},
): Promise<AssessmentScores> {
  const records = await assessmentRecords(db, id);
  const set = records.set;
  if (options.firstCitationOnly && set.kind !== 'support')
    throw new PlatformError('invalid_input', 'first-citation-only applies to support assessments');
  const answers = answerScoresOf(records, set.kind, options);
  const systems = new Set(answers.map((a) => a.system));
  const result: AssessmentScores = { set, answers, incomplete: records.incomplete };
  if (set.kind === 'support') result.citations = citationCounts(records.support ?? [], options);
  // Every system of the response set competes, answered or not.
  const context = await loadAssessmentContext(db, set);
  const all = [...new Set([...context.answers.map((a) => a.system), ...systems])].sort();
  if (all.length >= 2 && records.topics.length >= 2)
    result.leaderboard = ragLeaderboard(set.kind, answers, settings, set.name, records.topics, all);
  return result;
}

/** Storing a set's leaderboard as a report. */
export interface AssessmentReportInput {
  settings: CompareSettings;
  firstCitationOnly?: boolean;
  title?: string;
  createdBy?: Actor;
}

/**
 * Scores a set (as {@link scoreAssessmentSet}) and stores its leaderboard as a comparison
 * report of the collection, with what judged it in the provenance; it can be published
 * under a slug like any comparison.
 */
export async function createAssessmentReport(
  db: Queryable,
  id: number,
  input: AssessmentReportInput,
): Promise<StoredReport> {
  const scores = await scoreAssessmentSet(db, id, input.settings, {
    ...(input.firstCitationOnly ? { firstCitationOnly: true } : {}),
  });
  if (!scores.leaderboard)
    throw new PlatformError(
      'invalid_input',
      `assessment set ${id} scores fewer than two systems on two fully judged topics; there is no leaderboard to store`,
    );
  const set = scores.set;
  const described = await describeAssessmentSet(db, set);
  const collection = await resolveCollection(db, set.collectionId);
  const { comparison } = scores.leaderboard.report.leaderboards[0]!;
  return storeComparisonReport(db, {
    collection: { id: collection.id, name: collection.name },
    title: input.title ?? `${set.kind} scores of ${described.responseSet.name} by ${set.name}`,
    provenance: {
      labelSets: [],
      runs: [],
      measures: comparison.measures,
      testedMeasures: comparison.measures,
      test: comparison.test,
      correction: comparison.correction,
      alpha: comparison.alpha,
      seed: comparison.seed,
      permutations: input.settings.permutations,
      bootstrapSamples: 10000,
      topicHandling: comparison.topicHandling,
      rag: {
        kind: set.kind,
        assessmentSet: { id: set.id, name: set.name },
        responseSet: described.responseSet,
        assessor: set.assessor,
        ...(described.nuggetBank
          ? {
              nuggetBank: {
                id: described.nuggetBank.id,
                name: described.nuggetBank.name,
                version: described.nuggetBank.version,
              },
            }
          : {}),
        ...(described.rubricSet ? { rubricSet: described.rubricSet } : {}),
        ...(input.firstCitationOnly ? { firstCitationOnly: true } : {}),
        incompleteAnswers: scores.incomplete.length,
      },
    },
    result: scores.leaderboard.report,
    ...(input.createdBy ? { createdBy: input.createdBy } : {}),
  });
}

/** Agreement of two sets of one kind on the items both judged. */
export interface AssessmentAgreement extends LabelAgreementReport {
  a: { id: number; name: string; assessor: string };
  b: { id: number; name: string; assessor: string };
  kind: AssessmentKind;
}

/**
 * The agreement of two assessment sets of the same answers (and the same nugget bank
 * version or rubric set): over the items both labelled (failed items left out), exact
 * agreement, Cohen's kappa and the confusion matrix (rows: `a`), overall and per topic.
 */
export async function assessmentAgreement(
  db: Queryable,
  a: number,
  b: number,
): Promise<AssessmentAgreement> {
  const [setA, setB] = [await resolveAssessmentSet(db, a), await resolveAssessmentSet(db, b)];
  if (
    setA.kind !== setB.kind ||
    setA.responseSetId !== setB.responseSetId ||
    setA.nuggetVersionId !== setB.nuggetVersionId ||
    setA.rubricSetId !== setB.rubricSetId
  )
    throw new PlatformError(
      'invalid_input',
      `assessment sets ${a} and ${b} judge different things (kind, answers, nuggets or rubric)`,
    );
  const [labelsA, labelsB] = [await currentLabels(db, a), await currentLabels(db, b)];
  const pairs: Array<{ topic: string; a: string; b: string }> = [];
  for (const [key, items] of labelsA) {
    const other = labelsB.get(key);
    if (!other) continue;
    const [topic] = JSON.parse(key) as [string, string];
    for (const [item, row] of items) {
      const label = other.get(item)?.label;
      if (row.label !== null && label != null) pairs.push({ topic, a: row.label, b: label });
    }
  }
  return {
    a: { id: setA.id, name: setA.name, assessor: setA.assessor },
    b: { id: setB.id, name: setB.name, assessor: setB.assessor },
    kind: setA.kind,
    ...labelAgreement(pairs, ASSESSMENT_LABELS[setA.kind]),
  };
}

/** Judgments made elsewhere to store as an assessment set. */
export interface ImportAssessmentsInput {
  collection: CollectionRef;
  kind: AssessmentKind;
  name: string;
  responseSet: ResponseSetRef;
  bank?: { name: string; version?: number };
  rubricSet?: string;
  /** JSONL in the kind's form (nuggetizer's for nuggets). */
  text: string;
  file?: string;
  createdBy?: Actor;
}

/**
 * Stores judgments made elsewhere (NIST's nugget assignments in nuggetizer's form, support
 * or rubric files) as an `imported` set, matched to the stored items: a nugget by its
 * topic and text in the bank version, a citation by its sentence and position, a criterion
 * by its topic and text. A line naming an answer, nugget, citation or criterion that is not
 * there fails with `file:line`; nothing is stored then.
 */
export async function importAssessmentSet(
  db: Queryable,
  input: ImportAssessmentsInput,
): Promise<AssessmentSet> {
  const file = input.file ?? `${input.kind}.jsonl`;
  const name = checkNewName(input.name, 'assessment set name');
  const collection = await resolveCollection(db, input.collection);
  const { responseSet, nuggetVersionId, rubricSetId } = await resolveAssessmentBasis(
    db,
    collection.id,
    input.kind,
    input,
  );
  const draft: AssessmentSet = {
    id: 0,
    collectionId: collection.id,
    kind: input.kind,
    name,
    responseSetId: responseSet.id,
    nuggetVersionId,
    rubricSetId,
    assessor: 'imported',
    mode: null,
    referenceSetId: null,
    settings: {},
    createdBy: null,
    createdAt: new Date(),
    judged: 0,
    failed: 0,
  };
  const context = await loadAssessmentContext(db, draft);
  const answers = new Map(context.answers.map((a) => [answerKey(a.topicId, a.system), a]));
  const rows: AssessmentRow[] = [];
  const lines = input.text.split(/\r?\n/);
  const lineOf = (qid: string, system: string) => {
    const i = lines.findIndex((l) => {
      try {
        const v = JSON.parse(l) as { qid?: unknown; system?: unknown };
        return String(v.qid) === qid && String(v.system) === system;
      } catch {
        return false;
      }
    });
    return i + 1;
  };
  const fail = (qid: string, system: string, reason: string): never => {
    const line = lineOf(qid, system);
    throw new PlatformError('invalid_input', `${file}:${line}: ${reason}`, { file, line });
  };
  const answerOf = (qid: string, system: string) =>
    answers.get(answerKey(qid, system)) ??
    fail(
      qid,
      system,
      `response set ${responseSet.name} has no answer of ${system} to topic ${qid}`,
    );
  if (input.kind === 'nuggets')
    for (const r of parseNuggetAssignments(input.text, file)) {
      const answer = answerOf(r.qid, r.system);
      const items = itemsOf(context, answer);
      for (const n of r.nuggets) {
        const item = items.find((i) => i.text === n.text);
        if (!item)
          fail(
            r.qid,
            r.system,
            `no nugget ${JSON.stringify(n.text)} for topic ${r.qid} in the nugget bank`,
          );
        rows.push({ topicId: r.qid, system: r.system, item: item!.item, label: n.assignment });
      }
    }
  else if (input.kind === 'rubric')
    for (const r of parseRubricJudgments(input.text, file)) {
      const answer = answerOf(r.qid, r.system);
      const items = itemsOf(context, answer);
      for (const c of r.criteria) {
        const item = items.find((i) => i.text === c.criterion);
        if (!item)
          fail(
            r.qid,
            r.system,
            `no criterion ${JSON.stringify(c.criterion.slice(0, 60))} for topic ${r.qid} in the rubric set`,
          );
        rows.push({ topicId: r.qid, system: r.system, item: item!.item, label: c.judgment });
      }
    }
  else
    for (const r of parseSupportAssessments(input.text, file)) {
      const answer = answerOf(r.qid, r.system);
      const items = itemsOf(context, answer);
      r.sentences.forEach((s, si) =>
        s.citations.forEach((c, k) => {
          const item = items.find((i) => i.item === `${si}/${k}`);
          if (!item || item.docid !== c.docid)
            fail(
              r.qid,
              r.system,
              `sentence ${si} of the answer does not cite ${c.docid} at position ${k}`,
            );
          rows.push({ topicId: r.qid, system: r.system, item: `${si}/${k}`, label: c.support });
        }),
      );
    }
  const id = await writing(
    () =>
      withTransaction(db, async (trx) => {
        const id = await createAssessmentSet(trx, {
          ...draft,
          settings: { file },
          createdBy: input.createdBy?.id ?? null,
        });
        if (nuggetVersionId !== null) await freezeNuggetBankVersion(trx, nuggetVersionId);
        await replaceAssessments(trx, id, rows);
        return id;
      }),
    `a ${input.kind} assessment set named ${JSON.stringify(name)} exists`,
    file,
  );
  return resolveAssessmentSet(db, id);
}
