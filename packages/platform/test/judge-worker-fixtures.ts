// Shared by the judge worker's tests: a graded-0-3 job over `doc-k` passages, answers from
// the OpenAI-compatible TEST DOUBLE (never a judge), and worker deps with fast retries.
import { fileURLToPath } from 'node:url';
import type { Queryable } from '@assay/db';
import { loadJudgeTemplates, type JudgeSettings } from '@assay/judge';
import { OpenAIChatClient } from '@assay/llm';
import type { Behaviour } from '@assay/test-support/openai-test-server';
import {
  ensureJudgeJob,
  judgeValues,
  type JudgeItemInput,
  type JudgeWorkerDeps,
} from '../src/index.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
export const template = loadJudgeTemplates(JUDGES).get('graded-0-3')!;
export const settings: JudgeSettings = { model: 'gpt-4o-mini' };

/** `n` items over three topics; document k's passage says `doc-k`. */
export function items(n: number): JudgeItemInput[] {
  return Array.from({ length: n }, (_, k) => ({
    topicId: `q${k % 3}`,
    docId: `doc-${k}`,
    values: judgeValues(
      template,
      { query: `query ${k % 3}` },
      { text: `This passage is doc-${k} and talks about topic ${k % 3}.` },
    ),
  }));
}

/** The document a request is about. */
export function docOf(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ content: string }>;
  return /doc-\d+/.exec(messages[1]!.content)![0];
}

/** A valid answer whose grade is the document number mod 4. */
export function answer(body: Record<string, unknown>, delayMs = 0): Behaviour {
  const grade = Number(docOf(body).slice(4)) % 4;
  return {
    reply: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade }),
    ...(delayMs ? { delayMs } : {}),
  };
}

/** Worker deps against `baseURL` with four quick attempts per call (no real waits). */
export function depsFor(baseURL: string, timeoutMs = 2_000): JudgeWorkerDeps {
  return {
    client: new OpenAIChatClient({ baseURL, apiKey: 'test-key', timeoutMs }),
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 20 },
    // Retry-After is honoured by the policy; the test does not sleep it.
    sleep: async () => {},
  };
}

/** The graded-0-3 job writing label set `labelSet` over `list` (created if new). */
export async function job(db: Queryable, labelSet: string, list: JudgeItemInput[]) {
  return ensureJudgeJob(db, {
    collection: 'files',
    createCollection: true,
    labelSet,
    template,
    settings,
    items: list,
  });
}
