import { ask, estimateTokens, type AskAnswer } from '@assay/llm';
import {
  analyzeQuery,
  DEFAULT_WEIGHTED_ROCCHIO,
  documentText,
  weightedRocchioQuery,
  type WeightedRocchioOptions,
} from '@assay/retrieval';
import { splitIntoChunks } from './context-chunks.js';
import { weightedRocchioVector, type FeedbackVector } from './dense-rocchio.js';
import { controlScore, type ControlScore } from './llmforum-control.js';
import type { MethodDefinition, TopicOutcome } from './method-definition.js';
import {
  chatOf,
  denseOf,
  documentOf,
  promptOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import type { TraceEntry } from './trace.js';

/** LLMForum-RAG settings. */
export interface LlmforumOptions {
  /** Weighted Rocchio over the collection's embeddings (true) or over tf-idf vectors. */
  dense: boolean;
  /** First-stage depth, positives, α, β, γ (and expansion terms, sparse only). */
  rocchio: WeightedRocchioOptions;
  /** Regenerations of an answer the control block scores below the threshold. */
  maxRegenerations: number;
}

/** The forum's fixed shape, as the paper gives it. */
export const LLMFORUM = {
  /** Top documents of the ranking that make the context. */
  contextDocs: 5,
  agents: 3,
  rounds: 2,
  /** An answer scoring below this is generated again. */
  threshold: 0.5,
  /** The paper regenerates until the threshold is crossed; assay caps it (2 by default). */
  maxRegenerations: 2,
} as const;

/**
 * The weighted-Rocchio ranking of one topic (at least 5 deep), one round: over embeddings (the first `depth`
 * documents by cosine, the top `positives` relevant, the rest not; see
 * `weightedRocchioVector`) or, without embeddings, over tf-idf vectors from a BM25 first
 * stage (`weightedRocchioQuery` of @assay/retrieval).
 */
async function weightedRocchioRanking(
  context: MethodContext,
  topic: MethodTopic,
  options: LlmforumOptions,
): Promise<ScoredDoc[]> {
  const o = options.rocchio;
  // The forum reads the top 5 even when the run keeps fewer.
  const depth = Math.max(context.k, LLMFORUM.contextDocs);
  if (options.dense) {
    const dense = denseOf(context);
    const [query] = await dense.client.embed(dense.model, [topic.text]);
    const first = dense.index.search(query!, o.depth);
    const feedback: FeedbackVector[] = first.map((hit) => ({
      vector: dense.index.vectorOf(hit.docno)!,
      similarity: hit.score,
    }));
    const vector = weightedRocchioVector(
      query!,
      feedback.slice(0, o.positives),
      feedback.slice(o.positives),
      o,
    );
    return dense.index.search(vector, depth);
  }
  const index = context.bm25.index;
  const query = analyzeQuery(index, topic.text);
  const first = context.bm25.searchWeighted(query, o.depth);
  const expanded = weightedRocchioQuery(index, query, first, o);
  context.trace({
    topic: topic.id,
    method: 'llmforum',
    step: 'query',
    text: [...expanded]
      .sort((a, b) => b[1] - a[1])
      .map(([t, w]) => `${index.data.terms[t]}^${w.toFixed(4)}`)
      .join(' '),
  });
  return context.bm25.searchWeighted(expanded, depth);
}

/** One answer of the forum, as later speakers and the supervisor see it. */
interface ForumAnswer {
  round: number;
  agent: number;
  text: string;
}

/** The discussion as the prompts show it. */
function formatDiscussion(answers: readonly ForumAnswer[]): string {
  if (answers.length === 0) return '(none yet: you answer first)';
  return answers.map((a) => `Round ${a.round}, agent ${a.agent}: ${a.text}`).join('\n\n');
}

/** The note closing a prompt: `(First attempt.)`, or the attempt and the failed score. */
function attemptNote(attempt: number, previous?: ControlScore): string {
  if (attempt === 1 || !previous) return '(First attempt.)';
  return (
    `(Attempt ${attempt}. Your previous answer scored ${previous.score.toFixed(2)} in the control ` +
    `check, below ${LLMFORUM.threshold}: keep closer to the question and to what you were given.)`
  );
}

/**
 * Generates an answer and runs the control block on it; an answer scoring below 0.5 is
 * generated again (the prompt then says which attempt it is and the failed score), at
 * most `maxRegenerations` times. The last answer is kept, whatever its score.
 */
async function controlledAnswer(
  context: MethodContext,
  topic: MethodTopic,
  options: LlmforumOptions,
  speaker: { step: 'agent-answer' | 'supervisor-answer'; name: string; round?: number },
  generate: (note: string) => Promise<AskAnswer>,
  groundText: string,
): Promise<string> {
  const base: Omit<TraceEntry, 'step' | 'text'> = {
    topic: topic.id,
    method: 'llmforum',
    speaker: speaker.name,
    ...(speaker.round !== undefined ? { round: speaker.round } : {}),
  };
  let previous: ControlScore | undefined;
  for (let attempt = 1; ; attempt++) {
    const answer = await generate(attemptNote(attempt, previous));
    context.trace({
      ...base,
      step: speaker.step,
      prompt: speaker.step === 'agent-answer' ? 'llmforum-agent' : 'llmforum-supervisor',
      attempt,
      text: answer.text,
      cached: answer.cached,
    });
    const control = await controlScore(context, topic.text, groundText, answer.text);
    const passed = control.score >= LLMFORUM.threshold;
    const last = attempt > options.maxRegenerations;
    context.trace({
      ...base,
      step: 'control',
      prompt: 'llmforum-control',
      attempt,
      score: control.score,
      text:
        `score ${control.score.toFixed(4)} = mean(question ${control.question.toFixed(4)}, ` +
        `context ${control.context.toFixed(4)}, judge ${((control.groundedness + control.relevance) / 2).toFixed(4)} ` +
        `[groundedness ${control.groundedness}, relevance ${control.relevance}]): ` +
        (passed
          ? 'accepted'
          : last
            ? `below ${LLMFORUM.threshold}, kept after ${options.maxRegenerations} regenerations`
            : `below ${LLMFORUM.threshold}, regenerated`),
      cached: control.cached,
    });
    if (passed || last) return answer.text;
    previous = control;
  }
}

/**
 * LLMForum-RAG for one topic: the weighted-Rocchio ranking; its top 5 documents' texts,
 * joined in rank order, split into three overlapping chunks, one per agent; two rounds in
 * which agents 1, 2, 3 answer in turn from their chunk, seeing every earlier answer; a
 * supervisor's final answer from the question and the whole discussion. Every answer
 * passes the control block (regenerated below 0.5). The ranking is the run's; the answer
 * cites the top 5 documents.
 */
export async function llmforumTopic(
  context: MethodContext,
  topic: MethodTopic,
  options: LlmforumOptions,
): Promise<TopicOutcome> {
  const ranking = await weightedRocchioRanking(context, topic, options);
  const references = ranking.slice(0, LLMFORUM.contextDocs).map((d) => d.docno);
  const fullContext = references
    .map((docno) => documentText(documentOf(context, docno)))
    .join('\n\n');
  const chunks = splitIntoChunks(fullContext);
  const chat = chatOf(context);
  const settings = { model: chat.model };
  const agentPrompt = promptOf(context, 'llmforum-agent');
  const supervisorPrompt = promptOf(context, 'llmforum-supervisor');
  const emptyText = '(this part of the text is empty)';

  const discussion: ForumAnswer[] = [];
  for (let round = 1; round <= LLMFORUM.rounds; round++)
    for (let agent = 1; agent <= LLMFORUM.agents; agent++) {
      const passage = chunks[agent - 1]!.text || emptyText;
      const seen = formatDiscussion(discussion);
      const text = await controlledAnswer(
        context,
        topic,
        options,
        { step: 'agent-answer', name: `agent ${agent}`, round },
        (note) =>
          ask(
            chat.client,
            agentPrompt,
            {
              question: topic.text,
              agent: String(agent),
              round: String(round),
              passage,
              discussion: seen,
              attempt_note: note,
            },
            settings,
            context.deps,
          ),
        passage,
      );
      discussion.push({ round, agent, text });
    }

  const all = formatDiscussion(discussion);
  const final = await controlledAnswer(
    context,
    topic,
    options,
    { step: 'supervisor-answer', name: 'supervisor' },
    (note) =>
      ask(
        chat.client,
        supervisorPrompt,
        { question: topic.text, discussion: all, attempt_note: note },
        settings,
        context.deps,
      ),
    fullContext || emptyText,
  );
  context.trace({
    topic: topic.id,
    method: 'llmforum',
    step: 'final-answer',
    speaker: 'supervisor',
    text: final,
  });
  return { docs: ranking.slice(0, context.k), answer: { text: final, references } };
}

function settingsOf(options: {
  forumDense?: boolean;
  weightedRocchio?: Partial<WeightedRocchioOptions>;
  maxRegenerations?: number;
}): LlmforumOptions {
  return {
    dense: options.forumDense ?? false,
    rocchio: { ...DEFAULT_WEIGHTED_ROCCHIO, ...options.weightedRocchio },
    maxRegenerations: options.maxRegenerations ?? LLMFORUM.maxRegenerations,
  };
}

// Tokens assumed per passage in a dry-run estimate (the documents are not read then).
const PASSAGE_TOKENS = 512;

/** `llmforum`: weighted-Rocchio retrieval and the supervised collaboration forum. */
export const llmforumMethod: MethodDefinition = {
  name: 'llmforum',
  answers: true,
  check(options) {
    const o = settingsOf(options);
    if (!Number.isInteger(o.maxRegenerations) || o.maxRegenerations < 0)
      throw new Error(`max regenerations must be a whole number ≥ 0, not ${o.maxRegenerations}`);
    if (o.rocchio.positives > o.rocchio.depth)
      throw new Error(
        `positives (${o.rocchio.positives}) cannot exceed the first-stage depth (${o.rocchio.depth})`,
      );
  },
  needsChat: () => true,
  needsEmbeddings: (options) => options.forumDense === true,
  needsDocumentText: () => true,
  parameters(options, p) {
    const o = settingsOf(options);
    p['llmforum.retrieval'] = o.dense ? 'dense' : 'sparse';
    p['llmforum.depth'] = o.rocchio.depth;
    p['llmforum.positives'] = o.rocchio.positives;
    if (!o.dense) p['llmforum.fb-terms'] = o.rocchio.fbTerms;
    p['llmforum.alpha'] = o.rocchio.alpha;
    p['llmforum.beta'] = o.rocchio.beta;
    p['llmforum.gamma'] = o.rocchio.gamma;
    p['llmforum.rocchio-rounds'] = 1;
    p['llmforum.context-docs'] = LLMFORUM.contextDocs;
    p['llmforum.chunks'] = '3 by words, 10% overlap';
    p['llmforum.agents'] = LLMFORUM.agents;
    p['llmforum.rounds'] = LLMFORUM.rounds;
    p['llmforum.control-similarity'] = o.dense ? 'embedding cosine' : 'lexical cosine';
    p['llmforum.control-threshold'] = LLMFORUM.threshold;
    p['llmforum.max-regenerations'] = o.maxRegenerations;
  },
  runTopic: (context, topic, options) => llmforumTopic(context, topic, settingsOf(options)),
  estimateTopic(topic, options, sink) {
    const o = settingsOf(options);
    const q = estimateTokens(topic.text);
    const attempts = o.maxRegenerations + 1;
    const chunk = Math.ceil((LLMFORUM.contextDocs * PASSAGE_TOKENS) / 2.8);
    const agentAnswer = sink.max('llmforum-agent');
    const answers = LLMFORUM.agents * LLMFORUM.rounds;
    for (let i = 0; i < answers; i++)
      for (let a = 0; a < attempts; a++) {
        sink.call('llmforum-agent', q + chunk + i * agentAnswer);
        sink.call('llmforum-control', q + chunk + agentAnswer);
      }
    for (let a = 0; a < attempts; a++) {
      sink.call('llmforum-supervisor', q + answers * agentAnswer);
      sink.call(
        'llmforum-control',
        q + LLMFORUM.contextDocs * PASSAGE_TOKENS + sink.max('llmforum-supervisor'),
      );
    }
    if (o.dense) {
      const checks = (answers + 1) * attempts;
      sink.embed(1 + 3 * checks, q * (1 + 2 * checks) + checks * (chunk + agentAnswer));
    }
  },
};
