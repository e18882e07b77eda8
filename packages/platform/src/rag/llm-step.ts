// How every LLM step of RAG evaluation asks its prompts: through the judge engine's one
// cached-and-retried ask (judgeItem: every call stored, a stored answer reused, an
// unreadable answer asked again and then reported with its raw text), with a dry run
// that sends nothing and counts the calls and cost it would spend, and a budget that stops
// sending once the step has paid it.
import {
  buildJudgeRequest,
  judgeItem,
  type JudgeDeps,
  type JudgeSettings,
  type JudgeTemplate,
  type ParsedJudgment,
  type TemplateValues,
} from '@assay/judge';
import {
  callCost,
  DEFAULT_PRICES,
  estimateTokens,
  type ChatClient,
  type ChatRequest,
  type JsonSchema,
  type ModelPrice,
} from '@assay/llm';
import { AnswerRefusingStore } from '../llm/answer-refusals.js';

/** How a step runs its calls. */
export interface LlmStepOptions {
  settings: JudgeSettings;
  /** Calls in flight at once (default 8). */
  concurrency?: number;
  /** Send nothing: count the calls the step would send, their tokens and cost. */
  dryRun?: boolean;
  /** A dry run hands it every request it would send (collecting them for a batch). */
  collect?: (request: ChatRequest) => void;
  /** Stop sending once the step has paid this many USD (calls in flight finish). */
  budgetUsd?: number;
  /** Told after every finished unit of work: done and total. */
  onProgress?: (done: number, total: number) => void;
}

/** What a step spent, or (dry run) would spend. */
export interface LlmStepReport {
  /** Calls sent and paid for this time (failed ones included). */
  paidCalls: number;
  /** Prompts answered from stored calls. */
  cachedAnswers: number;
  /** What the priced calls cost; `unpricedCalls` more were paid at a price not known. */
  costUsd: number;
  unpricedCalls: number;
  /** True when the budget stopped the step with work left. */
  stoppedByBudget: boolean;
  /** Dry run: the calls it would send, their estimated tokens and cost. */
  planned?: { calls: number; promptTokens: number; completionTokens: number; costUsd?: number };
}

/** The outcome of one prompt: read, failed with the reason, or not sent (dry run, budget). */
export type StepAnswer =
  | { status: 'answered'; judgment: ParsedJudgment; cached: boolean }
  | { status: 'failed'; reason: string; raw?: string }
  | { status: 'not_sent' };

/** A client for dry runs: a request that reaches it is never sent (only collected). */
class NeverSend implements ChatClient {
  constructor(private readonly collect?: (request: ChatRequest) => void) {}

  complete(request: ChatRequest): Promise<never> {
    this.collect?.(request);
    return Promise.reject(new Error('dry run: not sent'));
  }
}

/**
 * A template whose answer is one property per numbered item ("1", "2", …), each of the
 * template's own (item) schema: the form of the batched RAG prompts.
 */
export function numberedTemplate(template: JudgeTemplate, count: number): JudgeTemplate {
  const keys = Array.from({ length: count }, (_, i) => String(i + 1));
  const schema: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    required: keys,
    properties: Object.fromEntries(keys.map((k) => [k, template.schema])),
  };
  return { ...template, schema };
}

/** Items as the batched prompts list them: `[1] text`, one per line. */
export function numberedList(texts: readonly string[]): string {
  return texts.map((t, i) => `[${i + 1}] ${t}`).join('\n');
}

/** The labels of a numbered answer, in item order. */
export function numberedLabels(judgment: ParsedJudgment, count: number): string[] {
  return Array.from({ length: count }, (_, i) => judgment.fields[String(i + 1)] as string);
}

/** Runs the prompts of one LLM step and keeps its account. */
export class LlmStep {
  readonly report: LlmStepReport;
  private readonly deps: JudgeDeps;
  private readonly dryDeps: JudgeDeps;

  /** The call store of sent prompts: an answer it cannot keep fails its item, not the step. */
  private readonly refusals: AnswerRefusingStore;

  constructor(
    deps: JudgeDeps,
    readonly options: LlmStepOptions,
  ) {
    this.refusals = new AnswerRefusingStore(deps.store);
    this.deps = { ...deps, store: this.refusals };
    // A dry run reads stored answers but never sends or stores anything.
    this.dryDeps = {
      ...deps,
      client: new NeverSend(options.dryRun ? options.collect : undefined),
      store: { get: (hash) => deps.store.get(hash), put: async () => {} },
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    };
    this.report = {
      paidCalls: 0,
      cachedAnswers: 0,
      costUsd: 0,
      unpricedCalls: 0,
      stoppedByBudget: false,
    };
    if (options.dryRun) this.report.planned = { calls: 0, promptTokens: 0, completionTokens: 0 };
  }

  /** Whether the budget is spent (the step then sends nothing more). */
  get budgetSpent(): boolean {
    const budget = this.options.budgetUsd;
    return budget !== undefined && this.report.costUsd >= budget;
  }

  /** Asks one prompt (a stored answer is reused; a dry run or a spent budget sends nothing). */
  async ask(template: JudgeTemplate, values: TemplateValues): Promise<StepAnswer> {
    const settings = this.options.settings;
    if (this.options.dryRun) {
      const outcome = await judgeItem(template, values, settings, this.dryDeps);
      if (outcome.status === 'labelled') {
        this.report.cachedAnswers++;
        return { status: 'answered', judgment: outcome.judgment, cached: true };
      }
      this.plan(buildJudgeRequest(template, values, settings));
      return { status: 'not_sent' };
    }
    if (this.budgetSpent) {
      // What is already stored costs nothing: only sending stops.
      const stored = await judgeItem(template, values, settings, this.dryDeps);
      if (stored.status === 'labelled') {
        this.report.cachedAnswers++;
        return { status: 'answered', judgment: stored.judgment, cached: true };
      }
      this.report.stoppedByBudget = true;
      return { status: 'not_sent' };
    }
    const outcome = this.refusals.kept(await judgeItem(template, values, settings, this.deps));
    this.report.paidCalls += outcome.paidCalls.length;
    for (const c of outcome.paidCalls) {
      if (c.costUsd === undefined) this.report.unpricedCalls++;
      else this.report.costUsd += c.costUsd;
    }
    // Interrupted before an answer came (the run is stopping): nothing was labelled.
    if (outcome.status === 'stopped') return { status: 'not_sent' };
    if (outcome.status === 'failed')
      return {
        status: 'failed',
        reason: outcome.reason,
        ...(outcome.raw === undefined ? {} : { raw: outcome.raw }),
      };
    if (outcome.cached) this.report.cachedAnswers++;
    return { status: 'answered', judgment: outcome.judgment, cached: outcome.cached };
  }

  /**
   * Counts, in a dry run, calls that cannot be built yet (they depend on answers not
   * stored): `calls` of about `promptChars` characters and `maxTokens` completion each.
   */
  planMore(calls: number, promptChars: number, maxTokens: number): void {
    const planned = this.report.planned;
    if (!planned || calls <= 0) return;
    planned.calls += calls;
    planned.promptTokens += calls * estimateTokens('x'.repeat(Math.max(0, promptChars)));
    planned.completionTokens += calls * maxTokens;
    this.price();
  }

  private plan(request: ReturnType<typeof buildJudgeRequest>): void {
    const planned = this.report.planned!;
    planned.calls++;
    planned.promptTokens += request.messages.reduce((s, m) => s + estimateTokens(m.content), 0);
    planned.completionTokens += request.max_tokens ?? 256;
    this.price();
  }

  private price(): void {
    const planned = this.report.planned!;
    const cost = callCost(
      this.options.settings.model,
      { promptTokens: planned.promptTokens, completionTokens: planned.completionTokens },
      (this.deps.prices ?? DEFAULT_PRICES) as Readonly<Record<string, ModelPrice>>,
    );
    if (cost !== undefined) planned.costUsd = cost;
  }

  /** Runs `work` on every unit, `concurrency` at a time, reporting progress per unit. */
  async forEach<T>(units: readonly T[], work: (unit: T) => Promise<void>): Promise<void> {
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < units.length) {
        const unit = units[next++]!;
        await work(unit);
        this.options.onProgress?.(++done, units.length);
      }
    };
    const width = Math.max(1, Math.min(this.options.concurrency ?? 8, units.length));
    await Promise.all(Array.from({ length: width }, worker));
  }
}
