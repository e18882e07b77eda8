import { type AskAnswer, estimateTokens } from '@assay/llm';
import {
  analyzeQuery,
  documentText,
  weightedRocchioQuery,
  type WeightedRocchioOptions,
} from '@assay/retrieval';
import { l as rougeL, n as rougeN } from 'js-rouge';
import { splitIntoChunks } from './context-chunks.js';
import { weightedRocchioVector, type FeedbackVector } from './dense-rocchio.js';
import { controlScore, type ControlScore } from './llmforum-control.js';
import { defineMethod, type TopicOutcome } from './method-definition.js';
import {
  askStep,
  denseOf,
  documentOf,
  embedQueries,
  usableQuery,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  memoryIndexOf,
} from './method-context.js';
import {
  defaultsOf,
  integer,
  number,
  offSwitch,
  settings,
  SettingsError,
  type SettingsOf,
} from './settings.js';
import type { TraceEntry } from './trace.js';

/** The forum's fixed shape, as the paper gives it. */
export const LLMFORUM = {
  /** Top documents of the ranking that make the context. */
  contextDocs: 5,
  agents: 3,
  rounds: 2,
} as const;

const LLMFORUM_SETTINGS = settings({
  fbDepth: integer('weighted Rocchio: first-stage documents re-ranked by cosine to the query', {
    default: 50,
    max: 10_000,
  }),
  positives: integer('weighted Rocchio: how many of them are positives (the rest negatives)', {
    default: 5,
    max: 10_000,
    paper: '3, 5, 10 and 20 (5 for generation)',
  }),
  alpha: number('weighted Rocchio: weight of the query', { default: 1, min: -100, max: 100 }),
  beta: number('weighted Rocchio: weight of the positive centroid', {
    default: 1,
    min: -100,
    max: 100,
  }),
  gamma: number('weighted Rocchio: weight of the negative centroid', {
    default: 1,
    min: -100,
    max: 100,
  }),
  fbTerms: integer('sparse weighted Rocchio (no embeddings model): expansion terms', {
    default: 10,
    max: 1_000,
  }),
  reformulation: offSwitch(
    'the query-reformation agent (--no-reformulation: retrieve with the question as it is)',
    { flag: 'no-reformulation' },
  ),
  maxRegenerations: integer(
    'regenerations of a text the control block scores below the threshold, at most',
    { default: 5, min: 0, max: 50, paper: 'until the threshold is crossed (no cap)' },
  ),
  controlThreshold: number('the control block score a text must reach', {
    default: 0.5,
    min: 0,
    max: 1,
  }),
  contextTokens: integer(
    'summarise the top-5 context when it is longer than this many tokens (about 4 characters each)',
    { default: 4096, max: 1_000_000, paper: "the model's input length (not given)" },
  ),
  summaryRouge: number(
    "a summary's mean ROUGE-1/2/L F1 against the context must reach this, else it is regenerated",
    { default: 0.2, min: 0, max: 1, paper: 'not given' },
  ),
});

/** LLMForum-RAG settings, parsed. */
export type LlmforumOptions = SettingsOf<typeof LLMFORUM_SETTINGS>;

/** The paper's settings (regenerations capped at 5, which the paper does not cap). */
export const DEFAULT_LLMFORUM: LlmforumOptions = defaultsOf(LLMFORUM_SETTINGS);

const BASE = { method: 'llmforum' } as const;

function rocchioOf(o: LlmforumOptions): WeightedRocchioOptions {
  return {
    depth: o.fbDepth,
    positives: o.positives,
    alpha: o.alpha,
    beta: o.beta,
    gamma: o.gamma,
    fbTerms: o.fbTerms,
  };
}

/**
 * The weighted-Rocchio ranking of one query (at least 5 deep), one round: over embeddings
 * when the run has an embeddings model (the first `fbDepth` documents by cosine, the top
 * `positives` relevant, the rest not; see `weightedRocchioVector`), else over tf-idf
 * vectors from a BM25 first stage (`weightedRocchioQuery` of @assay/retrieval).
 */
async function weightedRocchioRanking(
  context: MethodContext,
  topic: MethodTopic,
  query: string,
  options: LlmforumOptions,
): Promise<ScoredDoc[]> {
  const o = rocchioOf(options);
  // The forum reads the top 5 even when the run keeps fewer.
  const depth = Math.max(context.k, LLMFORUM.contextDocs);
  if (context.embeddings) {
    const dense = denseOf(context);
    const [vector0] = await embedQueries(dense, [query]);
    const first = dense.index.search(vector0!, o.depth);
    const feedback: FeedbackVector[] = first.map((hit) => ({
      vector: dense.index.vectorOf(hit.docno)!,
      similarity: hit.score,
    }));
    const vector = weightedRocchioVector(
      vector0!,
      feedback.slice(0, o.positives),
      feedback.slice(o.positives),
      o,
    );
    return dense.index.search(vector, depth);
  }
  const own = memoryIndexOf(context, 'llmforum without an embeddings model (tf-idf Rocchio)');
  const index = own.index;
  const terms = analyzeQuery(index, query);
  const first = own.searchWeighted(terms, o.depth);
  const expanded = weightedRocchioQuery(index, terms, first, o);
  context.trace({
    ...BASE,
    topic: topic.id,
    step: 'query',
    text: [...expanded]
      .sort((a, b) => b[1] - a[1])
      .map(([t, w]) => `${index.data.terms[t]}^${w.toFixed(4)}`)
      .join(' '),
  });
  return own.searchWeighted(expanded, depth);
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
function attemptNote(
  attempt: number,
  previous: { score: number } | undefined,
  threshold: number,
  what = 'control check',
): string {
  if (attempt === 1 || !previous) return '(First attempt.)';
  return (
    `(Attempt ${attempt}. Your previous text scored ${previous.score.toFixed(2)} in the ${what}, ` +
    `below ${threshold}: keep closer to the question and to what you were given.)`
  );
}

type Speaker =
  | { step: 'agent-answer'; prompt: 'llmforum-agent'; name: string; round: number }
  | { step: 'supervisor-answer'; prompt: 'llmforum-supervisor'; name: 'supervisor' }
  | { step: 'reformed-query'; prompt: 'llmforum-reform'; name: 'reformer' };

/**
 * Generates a text and runs the control block on it; a text scoring below the threshold is
 * generated again (the prompt then says which attempt it is and the failed score) until it
 * reaches the threshold, at most `maxRegenerations` times. The last text is kept, whatever
 * its score.
 */
async function controlledText(
  context: MethodContext,
  topic: MethodTopic,
  options: LlmforumOptions,
  speaker: Speaker,
  generate: (note: string) => Promise<AskAnswer>,
  groundText: string,
): Promise<string> {
  const base: Omit<TraceEntry, 'step' | 'text'> = {
    ...BASE,
    topic: topic.id,
    speaker: speaker.name,
    ...('round' in speaker ? { round: speaker.round } : {}),
  };
  const threshold = options.controlThreshold;
  let previous: ControlScore | undefined;
  for (let attempt = 1; ; attempt++) {
    const answer = await generate(attemptNote(attempt, previous, threshold));
    context.trace({
      ...base,
      step: speaker.step,
      prompt: speaker.prompt,
      attempt,
      text: answer.text,
      cached: answer.cached,
    });
    const control = await controlScore(context, topic.text, groundText, answer.text);
    const passed = control.score >= threshold;
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
            ? `below ${threshold}, kept after ${options.maxRegenerations} regenerations`
            : `below ${threshold}, regenerated`),
      cached: control.cached,
    });
    if (passed || last) return answer.text;
    previous = control;
  }
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * The summariser's control: the mean of ROUGE-1, ROUGE-2 and ROUGE-L F1 of a summary
 * against the text it summarises (lowercased runs of letters and digits as tokens).
 */
export function summaryRouge(summary: string, text: string): number {
  const tokenizer = words;
  return (
    (rougeN(summary, text, { n: 1, tokenizer }) +
      rougeN(summary, text, { n: 2, tokenizer }) +
      rougeL(summary, text, { tokenizer })) /
    3
  );
}

/**
 * The context the agents read: the top documents' texts joined in rank order, or, when it
 * is longer than `contextTokens`, a summary of it (`llmforum-summarise`) whose mean ROUGE
 * F1 against it reaches `summaryRouge`; a summary below it is regenerated, at most
 * `maxRegenerations` times, and the best-scoring one kept.
 */
async function forumContext(
  context: MethodContext,
  topic: MethodTopic,
  full: string,
  options: LlmforumOptions,
): Promise<string> {
  if (estimateTokens(full) <= options.contextTokens) return full;
  const base = { ...BASE, topic: topic.id };
  const limit = Math.max(1, Math.floor((options.contextTokens * 3) / 4));
  let best: { text: string; score: number } | undefined;
  let previous: { score: number } | undefined;
  for (let attempt = 1; attempt <= options.maxRegenerations + 1; attempt++) {
    const answer = await askStep(context, 'llmforum-summarise', {
      question: topic.text,
      context: full,
      words: String(limit),
      attempt_note: attemptNote(attempt, previous, options.summaryRouge, 'ROUGE check'),
    });
    const score = summaryRouge(answer.text, full);
    const passed = score >= options.summaryRouge;
    context.trace({
      ...base,
      step: 'summary',
      prompt: 'llmforum-summarise',
      attempt,
      score,
      text: answer.text,
      reason: `mean ROUGE-1/2/L F1 ${score.toFixed(4)} against the ${estimateTokens(full)}-token context: ${passed ? 'accepted' : `below ${options.summaryRouge}`}`,
      cached: answer.cached,
    });
    if (!best || score > best.score) best = { text: answer.text, score };
    if (passed) break;
    previous = { score };
  }
  return best!.text;
}

/**
 * LLMForum-RAG for one topic: the question reformed into a structured query by an agent
 * under the control block (unless turned off); the weighted-Rocchio ranking of that query;
 * its top 5 documents' texts, joined in rank order (summarised when longer than the
 * model's input), split into three overlapping chunks, one per agent; two rounds in which
 * agents 1, 2, 3 answer in turn from their chunk, seeing every earlier answer; a
 * supervisor's final answer from the question and the whole discussion. Every answer
 * passes the control block. The ranking is the run's; the answer cites the top 5 documents.
 */
export async function llmforumTopic(
  context: MethodContext,
  topic: MethodTopic,
  options: LlmforumOptions,
): Promise<TopicOutcome> {
  let query = topic.text;
  if (options.reformulation) {
    const reformed = await controlledText(
      context,
      topic,
      options,
      { step: 'reformed-query', prompt: 'llmforum-reform', name: 'reformer' },
      (note) =>
        askStep(context, 'llmforum-reform', { question: topic.text, attempt_note: note }),
      topic.text,
    );
    // Dense retrieval embeds any text; the sparse ranking needs a term of the collection.
    query = context.embeddings
      ? reformed
      : usableQuery(context, { ...BASE, topic: topic.id }, reformed, topic.text, 'reformed query');
  }
  const ranking = await weightedRocchioRanking(context, topic, query, options);
  const references = ranking.slice(0, LLMFORUM.contextDocs).map((d) => d.docno);
  const full = references.map((docno) => documentText(documentOf(context, docno))).join('\n\n');
  const fullContext = await forumContext(context, topic, full, options);
  const chunks = splitIntoChunks(fullContext);
  const emptyText = '(this part of the text is empty)';

  const discussion: ForumAnswer[] = [];
  for (let round = 1; round <= LLMFORUM.rounds; round++)
    for (let agent = 1; agent <= LLMFORUM.agents; agent++) {
      const passage = chunks[agent - 1]!.text || emptyText;
      const seen = formatDiscussion(discussion);
      const text = await controlledText(
        context,
        topic,
        options,
        { step: 'agent-answer', prompt: 'llmforum-agent', name: `agent ${agent}`, round },
        (note) =>
          askStep(context, 'llmforum-agent', {
            question: topic.text,
            agent: String(agent),
            round: String(round),
            passage,
            discussion: seen,
            attempt_note: note,
          }),
        passage,
      );
      discussion.push({ round, agent, text });
    }

  const all = formatDiscussion(discussion);
  const final = await controlledText(
    context,
    topic,
    options,
    { step: 'supervisor-answer', prompt: 'llmforum-supervisor', name: 'supervisor' },
    (note) =>
      askStep(context, 'llmforum-supervisor', {
        question: topic.text,
        discussion: all,
        attempt_note: note,
      }),
    fullContext || emptyText,
  );
  context.trace({
    ...BASE,
    topic: topic.id,
    step: 'final-answer',
    speaker: 'supervisor',
    text: final,
  });
  return { docs: ranking.slice(0, context.k), answer: { text: final, references } };
}

// Tokens assumed per passage in a dry-run estimate (the documents are not read then).
const PASSAGE_TOKENS = 512;

const WITHOUT_EMBEDDINGS =
  "llmforum without an embeddings model (--embedding-model) is not the paper's method: it ranks by sparse tf-idf weighted Rocchio over BM25 and its control block compares texts by their words, not by embeddings";

/** `llmforum`: weighted-Rocchio retrieval and the supervised collaboration forum. */
export const llmforumMethod = defineMethod({
  name: 'llmforum',
  paper:
    'Chaudhuri, Saha & Das (2025), LLMForum-RAG: A Multilingual, Multi-domain Framework for Factual Reasoning via Weighted Retrieval and LLM Collaboration',
  steps:
    'a reformation agent restates the question as a structured query; weighted Rocchio, one round, over the embeddings (top 50 by cosine, top 5 positive, similarity-weighted centroids); the top 5 (summarised when longer than `--context-tokens`, the summary held to a mean ROUGE-1/2/L F1) split into 3 word chunks with 10% overlap; agents 1-3 answer in turn for 2 rounds; a supervisor answers; a control block (cosine to question and text, normalised (1 + cos)/2, and an LLM groundedness/relevance score) regenerates every text below the threshold',
  calls:
    '8 texts (reformation, 6 agent answers, supervisor) + 8 controls, +1 summary of a long context; each regeneration 2 more, at most (16 + 1) × (1 + max regenerations)',
  reproduce:
    "The paper's method is dense: give the embeddings model (multilingual-e5-large with `--query-prefix \"query: \" --passage-prefix \"passage: \"`, or bge-small-bioasq), else assay warns and runs sparse tf-idf Rocchio and a lexical control. Its agents are Llama-3.1-8B-Instruct (`--model`); it regenerates without a cap (raise `--max-regenerations`). `--positives 3|5|10|20` are its four runs.",
  settings: LLMFORUM_SETTINGS,
  prompts: [
    'llmforum-reform',
    'llmforum-summarise',
    'llmforum-agent',
    'llmforum-supervisor',
    'llmforum-control',
  ],
  answers: true,
  check(s, spell) {
    if (s.positives > s.fbDepth)
      throw new SettingsError(
        'positives',
        `${spell('positives')} (${s.positives}) cannot exceed ${spell('fbDepth')} (${s.fbDepth})`,
      );
  },
  needsChat: () => true,
  embeddings: () => 'optional',
  needsDocumentText: () => true,
  readsTermVectors: (_s, models) => !models.embeddings,
  warnings: (_s, models) => (models.embeddings ? [] : [WITHOUT_EMBEDDINGS]),
  parameters(_s, p, models) {
    p['llmforum.retrieval'] = models.embeddings ? 'dense' : 'sparse';
    p['llmforum.rocchio-rounds'] = 1;
    p['llmforum.context-docs'] = LLMFORUM.contextDocs;
    p['llmforum.chunks'] = '3 by words, 10% overlap';
    p['llmforum.agents'] = LLMFORUM.agents;
    p['llmforum.rounds'] = LLMFORUM.rounds;
    p['llmforum.control-similarity'] = models.embeddings
      ? 'embedding cosine, (1 + cos) / 2'
      : 'lexical cosine';
  },
  runTopic: (context, topic, s) => llmforumTopic(context, topic, s),
  estimateTopic(topic, o, sink, extra) {
    const q = estimateTokens(topic.text);
    const attempts = o.maxRegenerations + 1;
    const context = LLMFORUM.contextDocs * PASSAGE_TOKENS;
    const shown = Math.min(context, o.contextTokens);
    const chunk = Math.ceil(shown / 2.8);
    const agentAnswer = sink.max('llmforum-agent');
    const answers = LLMFORUM.agents * LLMFORUM.rounds;
    let checks = 0;
    if (o.reformulation)
      for (let a = 0; a < attempts; a++) {
        sink.call('llmforum-reform', q);
        sink.call('llmforum-control', 2 * q + sink.max('llmforum-reform'));
        checks++;
      }
    if (context > o.contextTokens)
      for (let a = 0; a < attempts; a++) sink.call('llmforum-summarise', q + context);
    for (let i = 0; i < answers; i++)
      for (let a = 0; a < attempts; a++) {
        sink.call('llmforum-agent', q + chunk + i * agentAnswer);
        sink.call('llmforum-control', q + chunk + agentAnswer);
        checks++;
      }
    for (let a = 0; a < attempts; a++) {
      sink.call('llmforum-supervisor', q + answers * agentAnswer);
      sink.call('llmforum-control', q + shown + sink.max('llmforum-supervisor'));
      checks++;
    }
    if (extra.embeddings)
      sink.embed(1 + 3 * checks, q * (1 + 2 * checks) + checks * (chunk + agentAnswer));
  },
});
