import type { LlmCallRecord } from '@assay/llm';

/** Thrown before a paid call once the budget is spent: the run stops cleanly. */
export class BudgetExceededError extends Error {
  constructor(readonly budgetUsd: number) {
    super(`budget of $${budgetUsd} reached`);
    this.name = 'BudgetExceededError';
  }
}

/**
 * Counts what a run pays: calls sent (answered or failed), tokens and USD for priced
 * models. With a budget, no call is sent once the spending reached it (calls already in
 * flight still finish and are kept).
 */
export class SpendTracker {
  calls = 0;
  failedCalls = 0;
  /** Answered calls to a model with no price: their cost is unknown (not counted in costUsd). */
  unpricedCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  /** USD of the priced calls. */
  costUsd = 0;

  constructor(readonly budgetUsd?: number) {}

  /** For `CallDeps.beforePaidCall`. */
  readonly check = (): void => {
    if (this.budgetUsd !== undefined && this.costUsd >= this.budgetUsd)
      throw new BudgetExceededError(this.budgetUsd);
  };

  /** For `CallDeps.onPaidCall`. */
  readonly add = (record: LlmCallRecord): void => {
    this.calls++;
    if (record.error !== undefined) this.failedCalls++;
    this.promptTokens += record.promptTokens;
    this.completionTokens += record.completionTokens;
    if (record.costUsd !== undefined) this.costUsd += record.costUsd;
    else if (record.response !== undefined) this.unpricedCalls++;
  };
}
