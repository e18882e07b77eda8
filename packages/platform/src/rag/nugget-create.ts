// Nugget creation the AutoNuggetizer way (Pradeep et al., "The Great Nugget Recall", SIGIR
// 2025; castorini/nuggetizer): a topic's relevant passages go to the model in batches, the
// nugget list is updated after each batch and kept to at most `maxNuggets` (most important
// first), then the nuggets are labelled vital or okay in batches. Prompts: judges/
// nugget-create.md and nugget-importance.md.
import type { JudgeTemplate } from '@assay/judge';
import type { NuggetImportance } from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import { numberedLabels, numberedList, numberedTemplate, type LlmStep } from './llm-step.js';

/** A topic to make nuggets for: its request and relevant passages, most relevant first. */
export interface NuggetSourceTopic {
  topicId: string;
  query: string;
  passages: ReadonlyArray<{ id: string; text: string }>;
}

/** How nuggets are made. */
export interface CreateNuggetsSettings {
  /** The creation prompt (kind nugget-creation) and the importance prompt (nugget-importance). */
  creator: JudgeTemplate;
  scorer: JudgeTemplate;
  /** Passages per creation call (default 10). */
  batchSize?: number;
  /** Most nuggets per topic (default 30). */
  maxNuggets?: number;
  /** Nuggets per importance call (default 10). */
  scoreBatch?: number;
}

/** A topic's nuggets, or why it has none. */
export type CreatedTopic =
  | {
      topicId: string;
      status: 'created';
      nuggets: Array<{ text: string; importance: NuggetImportance }>;
    }
  | { topicId: string; status: 'failed'; reason: string; raw?: string }
  /** Dry run or spent budget: not finished. */
  | { topicId: string; status: 'not_sent' };

/** The defaults of nugget creation, as nuggetizer's. */
export const NUGGET_CREATION_DEFAULTS = { batchSize: 10, maxNuggets: 30, scoreBatch: 10 } as const;

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new PlatformError('invalid_input', `${name} must be a positive integer, got ${value}`);
  return value;
}

/** Refuses templates of the wrong kind. */
export function checkCreationTemplates(creator: JudgeTemplate, scorer: JudgeTemplate): void {
  if (creator.kind !== 'nugget-creation')
    throw new PlatformError('invalid_input', `judge ${creator.id} is not a nugget-creation judge`);
  if (scorer.kind !== 'nugget-importance')
    throw new PlatformError('invalid_input', `judge ${scorer.id} is not a nugget-importance judge`);
}

/** Cleans a model's list: trimmed, no blanks, no repeats (case-insensitive), at most `max`. */
function cleanList(list: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of list) {
    const text = raw.replace(/\s+/g, ' ').trim();
    const key = text.toLowerCase();
    if (text === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length === max) break;
  }
  return out;
}

/**
 * Makes the nuggets of every topic (topics side by side, each topic's batches in turn).
 * A topic whose prompt stays unreadable or whose call fails is reported failed with the
 * reason and raw answer, and gets no nuggets; a dry run counts the calls it would send.
 */
export async function createNuggets(
  topics: readonly NuggetSourceTopic[],
  settings: CreateNuggetsSettings,
  step: LlmStep,
): Promise<CreatedTopic[]> {
  checkCreationTemplates(settings.creator, settings.scorer);
  const batchSize = positive(
    'the batch size',
    settings.batchSize ?? NUGGET_CREATION_DEFAULTS.batchSize,
  );
  const maxNuggets = positive(
    'the most nuggets',
    settings.maxNuggets ?? NUGGET_CREATION_DEFAULTS.maxNuggets,
  );
  const scoreBatch = positive(
    'the scoring batch',
    settings.scoreBatch ?? NUGGET_CREATION_DEFAULTS.scoreBatch,
  );
  const creatorTokens = settings.creator.model.maxTokens ?? 1500;
  const scorerTokens = settings.scorer.model.maxTokens ?? 400;
  const results = new Map<string, CreatedTopic>();

  await step.forEach(topics, async (topic) => {
    const batches: Array<typeof topic.passages> = [];
    for (let i = 0; i < topic.passages.length; i += batchSize)
      batches.push(topic.passages.slice(i, i + batchSize));
    let nuggets: string[] = [];
    for (let b = 0; b < batches.length; b++) {
      const answer = await step.ask(settings.creator, {
        query: topic.query,
        passages: numberedList(batches[b]!.map((p) => p.text)),
        nuggets: nuggets.length ? numberedList(nuggets) : undefined,
        max_nuggets: String(maxNuggets),
      });
      if (answer.status === 'failed') {
        results.set(topic.topicId, { topicId: topic.topicId, ...answer });
        return;
      }
      if (answer.status === 'not_sent') {
        // The later prompts depend on this answer: estimate them from their passages.
        for (const later of batches.slice(b + 1))
          step.planMore(
            1,
            later.reduce((s, p) => s + p.text.length, 0) +
              topic.query.length +
              maxNuggets * 80 +
              1500,
            creatorTokens,
          );
        step.planMore(
          Math.ceil(maxNuggets / scoreBatch),
          topic.query.length + scoreBatch * 80 + 800,
          scorerTokens,
        );
        results.set(topic.topicId, { topicId: topic.topicId, status: 'not_sent' });
        return;
      }
      nuggets = cleanList(answer.judgment.fields.nuggets as string[], maxNuggets);
    }
    const importance: NuggetImportance[] = [];
    for (let i = 0; i < nuggets.length; i += scoreBatch) {
      const batch = nuggets.slice(i, i + scoreBatch);
      const answer = await step.ask(numberedTemplate(settings.scorer, batch.length), {
        query: topic.query,
        nuggets: numberedList(batch),
      });
      if (answer.status === 'failed') {
        results.set(topic.topicId, { topicId: topic.topicId, ...answer });
        return;
      }
      if (answer.status === 'not_sent') {
        const left = Math.ceil((nuggets.length - i) / scoreBatch) - 1;
        step.planMore(left, topic.query.length + scoreBatch * 80 + 800, scorerTokens);
        results.set(topic.topicId, { topicId: topic.topicId, status: 'not_sent' });
        return;
      }
      importance.push(...(numberedLabels(answer.judgment, batch.length) as NuggetImportance[]));
    }
    results.set(topic.topicId, {
      topicId: topic.topicId,
      status: 'created',
      nuggets: nuggets.map((text, i) => ({ text, importance: importance[i]! })),
    });
  });
  return topics.map((t) => results.get(t.topicId)!);
}
