import { unitVector } from './dense-index.js';
import { askStep, type MethodContext } from './method-context.js';

/** The control block's verdict on one answer. */
export interface ControlScore {
  /** Similarity of the answer to the question, 0..1. */
  question: number;
  /** Similarity of the answer to the text it was written from, 0..1. */
  context: number;
  /** The LLM judge's scores, 0..1. */
  groundedness: number;
  relevance: number;
  /** mean(question, context, (groundedness + relevance) / 2). */
  score: number;
  /** Whether the judge's answer came from the call store. */
  cached: boolean;
}

/**
 * Cosine of two texts' term-count vectors, terms as the index analyses them (lowercased,
 * stopwords removed, stemmed): 0..1, 0 when either text has no term.
 */
export function lexicalSimilarity(
  analyze: (text: string) => string[],
  a: string,
  b: string,
): number {
  const counts = (text: string) => {
    const m = new Map<string, number>();
    for (const t of analyze(text)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  };
  const x = counts(a);
  const y = counts(b);
  let dotProduct = 0;
  for (const [t, v] of x) dotProduct += v * (y.get(t) ?? 0);
  const norm = (m: Map<string, number>) =>
    Math.sqrt([...m.values()].reduce((s, v) => s + v * v, 0));
  const n = norm(x) * norm(y);
  return n === 0 ? 0 : dotProduct / n;
}

/**
 * Cosine of two embeddings mapped from −1..1 to 0..1: (1 + cos) / 2, so the embedding
 * similarity has the 0..1 range of the judge's scores it is averaged with (the paper
 * normalises the cosine without saying how; the lexical cosine of term counts is already
 * 0..1 and is used as it is).
 */
export function embeddingSimilarity(a: Float32Array, b: Float32Array): number {
  const x = unitVector(a);
  const y = unitVector(b);
  let cos = 0;
  for (let j = 0; j < x.length; j++) cos += x[j]! * y[j]!;
  return (1 + cos) / 2;
}

/**
 * LLMForum-RAG's control block on one answer: its semantic similarity to the question and
 * to its text (embeddings' cosine, normalised to 0..1, when an embeddings model is
 * configured; the lexical cosine otherwise) and the LLM judge's groundedness and relevance (prompt
 * `llmforum-control`), averaged as mean(question, context, mean(groundedness, relevance)).
 */
export async function controlScore(
  context: MethodContext,
  question: string,
  text: string,
  answer: string,
): Promise<ControlScore> {
  let simQuestion: number;
  let simContext: number;
  if (context.embeddings) {
    // The question on the query side, the text and the answer on the passage side: one request.
    const { client, model, queryPrefix, passagePrefix } = context.embeddings;
    const [q, c, a] = await client.embed(model, [
      queryPrefix + question,
      passagePrefix + text,
      passagePrefix + answer,
    ]);
    simQuestion = embeddingSimilarity(q!, a!);
    simContext = embeddingSimilarity(c!, a!);
  } else {
    const analyze = (t: string) => context.bm25.index.analyzer.analyze(t);
    simQuestion = lexicalSimilarity(analyze, question, answer);
    simContext = lexicalSimilarity(analyze, text, answer);
  }
  const judged = await askStep(context, 'llmforum-control', { question, context: text, answer });
  const { groundedness, relevance } = judged.json as { groundedness: number; relevance: number };
  return {
    question: simQuestion,
    context: simContext,
    groundedness,
    relevance,
    score: (simQuestion + simContext + (groundedness + relevance) / 2) / 3,
    cached: judged.cached,
  };
}
