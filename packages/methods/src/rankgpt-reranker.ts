import { UnusableAnswerError } from '@assay/llm';
import { documentText } from '@assay/retrieval';
import {
  askStep,
  documentOf,
  type MethodContext,
  type Reranker,
  type ScoredDoc,
} from './method-context.js';

/** RankGPT's sliding window (Sun et al., 2023): 20 passages, moved up by 10. */
export interface RankGptOptions {
  /** Passages per prompt (default 20). */
  window: number;
  /** How far the window moves up after each prompt (default 10). */
  step: number;
  /** Words of a passage kept in the prompt (default 300). */
  passageWords: number;
}

/** The settings of the paper's experiments. */
export const DEFAULT_RANKGPT: RankGptOptions = { window: 20, step: 10, passageWords: 300 };

/**
 * The windows of a sliding-window pass over `n` candidates, as `[start, end)` positions in
 * the order they are ranked: from the bottom of the list to the top, each `step` above the
 * last, so the best passages of a window are carried up into the next. The last window is
 * cut at the top of the list (it starts at 0), so the top is always ranked last.
 */
export function slidingWindows(n: number, window: number, step: number): Array<[number, number]> {
  if (!(window >= 1 && step >= 1 && step <= window))
    throw new Error(`window ${window} and step ${step}: need 1 <= step <= window`);
  const windows: Array<[number, number]> = [];
  if (n <= 1) return windows;
  for (let end = n; ; end -= step) {
    const start = Math.max(0, end - window);
    windows.push([start, end]);
    if (start === 0) return windows;
  }
}

/**
 * The permutation in a model's answer for `size` passages, as 0-based positions: the
 * bracketed identifiers (`[3] > [1] > [2]`; bare numbers when there is no bracket) in the
 * order given, unknown identifiers ignored, repeats dropped, and the passages not named
 * appended in their original order. Undefined when the answer names no passage at all.
 */
export function parsePermutation(answer: string, size: number): number[] | undefined {
  const bracketed = [...answer.matchAll(/\[\s*(\d+)\s*\]/g)].map((m) => Number(m[1]));
  const ids = bracketed.length > 0 ? bracketed : [...answer.matchAll(/\d+/g)].map(Number);
  const order: number[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    const position = id - 1;
    if (position < 0 || position >= size || seen.has(position)) continue;
    seen.add(position);
    order.push(position);
  }
  if (order.length === 0) return undefined;
  for (let p = 0; p < size; p++) if (!seen.has(p)) order.push(p);
  return order;
}

/** A passage as RankGPT shows it: the first `words` words of `title text`. */
export function truncateWords(text: string, words: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, words).join(' ');
}

/**
 * RankGPT (Sun et al., EMNLP 2023): listwise reranking by a chat model. Windows of
 * `window` numbered passages are ranked from the bottom of the list to the top, moving up
 * by `step`; the model answers a permutation (`[3] > [1] > [2]`) that reorders the window.
 * An answer that names no passage is asked again (three attempts in all); if it stays
 * unusable the window keeps its order and the trace says so (step `unusable-window`).
 * Scores are the final positions counted down from the number of candidates.
 */
export class RankGptReranker implements Reranker {
  readonly name: string;
  readonly options: RankGptOptions;

  /** `model` names the chat model the `rankgpt` step uses, for the run's parameters. */
  constructor(model: string, options: Partial<RankGptOptions> = {}) {
    this.options = { ...DEFAULT_RANKGPT, ...options };
    slidingWindows(0, this.options.window, this.options.step);
    if (!Number.isInteger(this.options.passageWords) || this.options.passageWords < 1)
      throw new Error(`passage words must be a positive integer, not ${this.options.passageWords}`);
    this.name = `rankgpt:${model}`;
  }

  async rerank(
    query: string,
    candidates: readonly ScoredDoc[],
    context: MethodContext,
    topic = '',
  ): Promise<ScoredDoc[]> {
    const { window, step, passageWords } = this.options;
    const passages = new Map(
      candidates.map((c) => [
        c.docno,
        truncateWords(documentText(documentOf(context, c.docno)), passageWords),
      ]),
    );
    const order = candidates.map((c) => c.docno);
    for (const [start, end] of slidingWindows(order.length, window, step)) {
      const slice = order.slice(start, end);
      const values = {
        query,
        count: String(slice.length),
        passages: slice.map((docno, i) => `[${i + 1}] ${passages.get(docno)}`).join('\n\n'),
      };
      const base = { topic, method: 'rankgpt', prompt: 'rankgpt' };
      let permutation: number[];
      try {
        const answer = await askStep(context, 'rankgpt', values, (text) =>
          parsePermutation(String(text), slice.length)
            ? undefined
            : 'the answer names no passage of the window',
        );
        permutation = parsePermutation(answer.text, slice.length)!;
        context.trace({
          ...base,
          step: 'permutation',
          text: `${start + 1}-${end}: ${answer.text}`,
          cached: answer.cached,
        });
      } catch (error) {
        if (!(error instanceof UnusableAnswerError)) throw error;
        permutation = slice.map((_, i) => i);
        context.trace({
          ...base,
          step: 'unusable-window',
          text: `${start + 1}-${end}: kept in its order (${error.message})`,
        });
      }
      permutation.forEach((p, i) => (order[start + i] = slice[p]!));
    }
    return order.map((docno, i) => ({ docno, score: order.length - i }));
  }
}
