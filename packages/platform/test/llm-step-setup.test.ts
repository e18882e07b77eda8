import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queryable } from '@assay/db';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  API_STEP_SPELLING,
  DbCallStore,
  llmStepClients,
  loadConfig,
  PlatformError,
  prepareLlmStep,
  prepareModelRetrieval,
} from '../src/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-llm-step-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CLI = {
  model: '--model',
  budget: '--budget',
  prices: ['--price-in', '--price-out'] as const,
};

function config(env: Record<string, string> = {}) {
  return loadConfig({ ASSAY_DATA_DIR: dir, OPENAI_API_KEY: 'k', ...env }, '/');
}

function refusal(work: () => unknown): PlatformError {
  try {
    work();
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('an LLM step', () => {
  it('takes the model asked for, else ASSAY_JUDGE_MODEL, else the judge’s own', () => {
    const withDefault = config({ ASSAY_JUDGE_MODEL: 'env-model' });
    const step = (c: ReturnType<typeof config>, model?: string) =>
      prepareLlmStep(c, {
        ...(model === undefined ? {} : { model }),
        templateModel: 'judge-model',
        spell: CLI,
      }).model;
    expect(step(withDefault, 'asked')).toBe('asked');
    expect(step(withDefault)).toBe('env-model');
    expect(step(config())).toBe('judge-model');
    const none = refusal(() => prepareLlmStep(config(), { spell: API_STEP_SPELLING }));
    expect(none.code).toBe('invalid_input');
    expect(none.details).toEqual({ field: 'model' });
    expect(none.message).toBe(
      'no model: give "model", set ASSAY_JUDGE_MODEL, or name one in the judge\'s front matter (model: { name })',
    );
  });

  it('prices its model from the list, prices.json and its own price, in that order', () => {
    writeFileSync(
      join(dir, 'prices.json'),
      JSON.stringify({ 'house-model': { input: 1, output: 2 }, 'gpt-4o': { input: 9, output: 9 } }),
    );
    const step = prepareLlmStep(config(), {
      model: 'own-model',
      price: { input: 0.5, output: 0.25 },
      spell: CLI,
    });
    expect(step.prices['house-model']).toEqual({ input: 1, output: 2 });
    expect(step.prices['gpt-4o']).toEqual({ input: 9, output: 9 });
    expect(step.prices['own-model']).toEqual({ input: 0.5, output: 0.25 });
    expect(step.endpoint.prices).toEqual({ 'own-model': { input: 0.5, output: 0.25 } });
  });

  it('refuses a budget for a model without a price, in one wording spelled for CLI and API', () => {
    const path = join(dir, 'prices.json');
    const cli = refusal(() =>
      prepareLlmStep(config(), { model: 'house-model', budgetUsd: 1, spell: CLI }),
    );
    expect(cli.code).toBe('invalid_input');
    expect(cli.details).toEqual({ field: 'budgetUsd' });
    expect(cli.message).toBe(
      `--budget needs the price of house-model: give --price-in and --price-out (USD per million tokens), or add it to ${path} ({"house-model": {"input": USD, "output": USD}} per million tokens)`,
    );
    const api = refusal(() =>
      prepareLlmStep(config(), { model: 'house-model', budgetUsd: 1, spell: API_STEP_SPELLING }),
    );
    expect(api.message).toBe(
      `"budgetUsd" needs the price of house-model: add it to ${path} ({"house-model": {"input": USD, "output": USD}} per million tokens)`,
    );
    // A retrieval with models refuses in the same words.
    const retrieval = refusal(() =>
      prepareModelRetrieval(
        config(),
        { method: 'query2doc', model: 'house-model', budgetUsd: 1 },
        { spell: (key) => `"${key}"` },
      ),
    );
    expect(retrieval.message).toBe(api.message);
    // A price of its own, or a budget of none, is no refusal.
    const priced = prepareLlmStep(config(), {
      model: 'house-model',
      budgetUsd: 1,
      price: { input: 1, output: 1 },
      spell: CLI,
    });
    expect(priced.budgetUsd).toBe(1);
    expect(prepareLlmStep(config(), { model: 'house-model', spell: CLI }).budgetUsd).toBe(
      undefined,
    );
  });

  it('goes through the database’s call store, with the prices it was checked with, paced as asked', () => {
    const step = prepareLlmStep(config(), {
      model: 'm',
      endpoint: { baseUrl: 'http://127.0.0.1:9/v1', rpm: 60 },
      concurrency: 3,
      spell: CLI,
    });
    const clients = llmStepClients({} as Queryable, step);
    expect(clients.store).toBeInstanceOf(DbCallStore);
    expect(clients.prices).toBe(step.prices);
    expect(clients.limiter).toBeDefined();
    expect(llmStepClients({} as Queryable, { ...step, endpoint: {} }).limiter).toBeUndefined();
  });
});
