import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  judgeItem,
  loadJudgeTemplates,
  type JudgeDeps,
  type JudgeSettings,
  type JudgeTemplate,
} from '@assay/judge';
import { ChatCallError, RateLimiter, type CallDeps } from '@assay/llm';
import { documentText } from '@assay/retrieval';
import { chatFor, documentOf, type MethodContext } from './method-context.js';

/** The judge that filters candidates between retrieval stages (`judges/binary-filter.md`). */
export const FILTER_JUDGE = 'binary-filter';

/** Filter judgments at once when the run has no rate limiter of its own. */
const DEFAULT_FILTER_CONCURRENCY = 8;

/** What the filter decided about one document. */
export interface FilterDecision {
  relevant: boolean;
  /** Why the judge's answer could not be read (the document is kept: fail open). */
  unreadable?: string;
}

let shippedTemplate: JudgeTemplate | undefined;

/** The shipped binary-filter judge template (read once). */
function filterTemplate(): JudgeTemplate {
  if (shippedTemplate) return shippedTemplate;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'judges');
    if (existsSync(join(candidate, `${FILTER_JUDGE}.md`))) break;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the judges/ folder of this assay checkout');
    dir = parent;
  }
  const template = loadJudgeTemplates(join(dir, 'judges')).get(FILTER_JUDGE);
  if (!template) throw new Error(`no judge template '${FILTER_JUDGE}'`);
  shippedTemplate = template;
  return template;
}

// One limiter per run (the run's deps object) when the run brings none.
const fallbackLimiters = new WeakMap<CallDeps, RateLimiter>();

function limiterOf(deps: CallDeps): RateLimiter {
  if (deps.limiter) return deps.limiter;
  let limiter = fallbackLimiters.get(deps);
  if (!limiter) {
    limiter = new RateLimiter({ concurrency: DEFAULT_FILTER_CONCURRENCY });
    fallbackLimiters.set(deps, limiter);
  }
  return limiter;
}

/**
 * The binary-filter judge for one query: each document is judged once (concurrently, within
 * the run's rate limiter), every judgment a stored call (a rerun sends nothing) counted
 * against the run's budget. A document judged not relevant is dropped. An answer that stays
 * unreadable keeps the document: only documents the judge classifies as not relevant are
 * discarded. A call that fails after its retries fails the topic.
 */
export class RelevanceFilter {
  private readonly decisions = new Map<string, Promise<FilterDecision>>();
  private readonly template = filterTemplate();
  private readonly settings: JudgeSettings;
  private readonly deps: JudgeDeps;

  constructor(
    private readonly context: MethodContext,
    private readonly query: string,
  ) {
    const { client, ...settings } = chatFor(context, FILTER_JUDGE);
    this.settings = settings;
    // The run's call deps (store, budget check, spending, retries) with a limiter.
    this.deps = { ...context.deps, client, limiter: limiterOf(context.deps) };
  }

  /** Whether each document was judged before (by this filter). */
  judged(docno: string): boolean {
    return this.decisions.has(docno);
  }

  /** The decisions for these documents, judging those not judged yet. */
  async judge(docnos: readonly string[]): Promise<Map<string, FilterDecision>> {
    for (const docno of docnos)
      if (!this.decisions.has(docno)) this.decisions.set(docno, this.judgeOne(docno));
    const out = new Map<string, FilterDecision>();
    await Promise.all(
      docnos.map(async (docno) => out.set(docno, await this.decisions.get(docno)!)),
    );
    return out;
  }

  private async judgeOne(docno: string): Promise<FilterDecision> {
    const values = { query: this.query, passage: documentText(documentOf(this.context, docno)) };
    const outcome = await judgeItem(this.template, values, this.settings, this.deps);
    if (outcome.status === 'labelled')
      return { relevant: outcome.judgment.grade! >= (this.template.relevantAt ?? 1) };
    if (outcome.status === 'failed' && outcome.cause === 'unreadable')
      return { relevant: true, unreadable: outcome.reason };
    const reason = outcome.status === 'failed' ? outcome.reason : 'stopped';
    throw new ChatCallError(`${FILTER_JUDGE}: ${reason}`, { retryable: false });
  }
}
