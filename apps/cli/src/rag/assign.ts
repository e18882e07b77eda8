// `assay nuggets assign`, `assay support assign` and `assay rubrics assign`: one LLM
// assessment of a response set's answers, stored as an assessment set of the collection.
// The three differ only in what they judge beside the answers (a nugget bank version, the
// cited passages, a rubric set) and in how they name their work.
import {
  DEFAULT_ASSESSMENT_JUDGE,
  exportAssessmentSet,
  llmAssessmentBatchStep,
  runLlmAssessment,
  type LlmAssessmentInput,
  type LlmAssessmentResult,
  withDiscardedTransaction,
  type Queryable,
} from '@assay/platform';
import type { JudgeTemplate } from '@assay/judge';
import { EXIT } from '../shell/exit-codes.js';
import { type OptionSpec, UsageError } from '../shell/getopt.js';
import { withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';
import { writeAtomically } from '../shell/write-atomically.js';
import {
  parseOptions,
  reportStep,
  required,
  responseSetOf,
  runStepBatch,
  stepDeps,
  stepExit,
  stepRunOptions,
  stepSetup,
  stepTemplate,
  type Parsed,
} from './rag-cli.js';

/** What the assessed answers are judged against: the nugget bank or the rubric set. */
type Basis = Pick<LlmAssessmentInput, 'bank' | 'rubricSet'>;

/** How one kind of assessment differs from the others. */
export interface AssignKind {
  kind: LlmAssessmentInput['kind'];
  /** `assay nuggets assign`, for messages. */
  command: string;
  /** The kind of judge the step needs (`--judge` must name one). */
  judge: JudgeTemplate['kind'];
  /**
   * Reads the kind's own options before anything is opened, and gives what, once the
   * database is open, names what the answers are judged against (storing it first if a
   * file gives it; a dry run's store is rolled back, which its message says).
   */
  basis?: (
    p: Parsed,
    collection: string,
  ) => (db: Queryable, io: PlatformCommandIo, dryRun: boolean) => Promise<Basis>;
  /** The step's account line: what it judged. */
  describe: (result: LlmAssessmentResult) => string;
}

/**
 * Runs an assign subcommand: checks the options and the step (model, budget, endpoint)
 * before opening the database, then judges the answers (or exports, imports or submits
 * the prompts of the batch options), reports what it spent and stores the set.
 */
export async function assignCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
  options: readonly OptionSpec[],
  how: AssignKind,
): Promise<number> {
  const p = parseOptions(argv, options);
  if (p.positionals.length) throw new UsageError(`unexpected argument ${p.positionals[0]}`);
  const collection = required(p, 'collection', '--collection');
  const basis = how.basis?.(p, collection);
  const template = stepTemplate(p, DEFAULT_ASSESSMENT_JUDGE[how.kind], how.judge);
  const batchSize = p.number('batch');
  const setup = await stepSetup(p, io, template);
  const assign = async (db: Queryable) => {
    const against = basis ? await basis(db, io, setup.dryRun) : {};
    const responseSet = await responseSetOf(p, db, io, setup.dryRun);
    const deps = stepDeps(setup, db);
    const name = p.option('name');
    const input: LlmAssessmentInput = {
      collection,
      kind: how.kind,
      ...(name === undefined ? {} : { name }),
      responseSet,
      ...against,
      template,
      ...(batchSize === undefined ? {} : { batchSize }),
      ...stepRunOptions(setup),
    };
    const batched = await runStepBatch(
      io,
      how.command,
      setup,
      db,
      deps,
      llmAssessmentBatchStep(db, deps, input),
    );
    if (batched !== undefined) return batched;
    const result = await runLlmAssessment(db, deps, input);
    reportStep(io, how.describe(result), setup.model, result.report);
    if (setup.dryRun) return EXIT.ok;
    return finishAssessment(io, result, { out: p.option('out'), collection }, db);
  };
  // A dry run plans from stored answers (and rubrics, and the collection made for them):
  // what it reads from files is stored for the run and rolled back after it.
  return withDatabase(io, (db) =>
    setup.dryRun ? withDiscardedTransaction(db, (trx) => assign(trx)) : assign(db),
  );
}

/** What an answer with nothing to judge is, by kind. */
const NOTHING_TO_JUDGE: Record<LlmAssessmentInput['kind'], string> = {
  nuggets: 'have nothing to judge (no nuggets for their topic)',
  rubric: 'have nothing to judge (no criteria for their topic)',
  support: 'cite no passage: nothing to judge, and they score 0',
};

/** The citations a support run could not assess, said with what would let it. */
function cannotAssessNote(result: LlmAssessmentResult, collection: string): string {
  const { citations, passages } = result.cannotAssess;
  if (citations === 0) return '';
  const them = passages === 1 ? 'its passage is' : `their ${passages} passages are`;
  return (
    ` (${citations} cannot be assessed: ${them} not in collection ${JSON.stringify(collection)}; ` +
    `add the documents with 'assay import documents --collection ${collection} FILE' and run again)`
  );
}

/** What every assign subcommand prints after its run, and its exit status. */
async function finishAssessment(
  io: PlatformCommandIo,
  result: LlmAssessmentResult,
  options: { out: string | undefined; collection: string },
  db: Queryable,
): Promise<number> {
  const set = result.set!;
  const out = options.out;
  for (const f of result.failures.slice(0, 20))
    io.stderr(
      `failed: topic ${f.topic}, system ${f.system}, item ${f.item}: ${f.reason}${f.raw === undefined ? '' : `\n  raw answer: ${JSON.stringify(f.raw.slice(0, 300))}`}\n`,
    );
  if (result.failures.length > 20)
    io.stderr(`… and ${result.failures.length - 20} more failed items\n`);
  if (result.skippedAnswers)
    io.stderr(`${result.skippedAnswers} answers ${NOTHING_TO_JUDGE[set.kind]}\n`);
  io.stdout(
    `${result.created ? 'stored' : 'updated'} ${set.kind} assessment set "${set.name}" (id ${set.id}): ` +
      `${set.judged} items judged${cannotAssessNote(result, options.collection)}, ${set.failed} failed${result.pending ? `, ${result.pending} left` : ''}\n`,
  );
  if (out !== undefined) {
    const exported = await exportAssessmentSet(db, set.id);
    writeAtomically(out, exported.text);
    io.stdout(
      `wrote ${out}: ${exported.text === '' ? 0 : exported.text.trim().split('\n').length} answers fully judged\n`,
    );
  }
  return stepExit(result, result.report.stoppedByBudget);
}
