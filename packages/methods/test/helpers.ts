import { fileURLToPath } from 'node:url';
import { loadMethodPrompts, MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { buildIndex, DEFAULT_ANALYZER } from '@assay/retrieval';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import type { ModelResources } from '../src/index.js';

/** The prompts assay ships. */
export const PROMPTS = loadMethodPrompts(
  fileURLToPath(new URL('../../../methods', import.meta.url)),
);

/** A tiny collection with hand-chosen terms. */
export const DOCS = [
  { id: 'd1', text: 'alpha beta' },
  { id: 'd2', text: 'beta' },
  { id: 'd3', text: 'gamma' },
];

/** The user message of a chat request the double received. */
export function userMessage(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

/** Scripted chat and embedding answers: `chat(user, n)` and a text → vector table. */
export async function startDouble(
  chat: (user: string, n: number, body: Record<string, unknown>) => Behaviour,
  vectors: Record<string, number[]> = {},
): Promise<TestServer> {
  return startOpenAITestServer((body, n, path) => {
    if (path.endsWith('/embeddings')) {
      const input = body.input as string[];
      const missing = input.find((t) => !(t in vectors));
      if (missing !== undefined) return { status: 400, message: `no vector for '${missing}'` };
      return {
        json: {
          data: input.map((t, index) => ({ index, embedding: vectors[t] })),
          usage: { prompt_tokens: 1 },
        },
      };
    }
    return chat(userMessage(body), n, body);
  });
}

/** Resources for a run against the double, on `store`. */
export function resources(
  server: TestServer,
  store: MemoryCallStore,
  options: { model?: string; embeddingModel?: string } = {},
): ModelResources {
  const r: ModelResources = {
    index: buildIndex(DOCS, DEFAULT_ANALYZER),
    prompts: PROMPTS,
    deps: { store, sleep: async () => {}, random: () => 0 },
    chat: {
      client: new OpenAIChatClient({ baseURL: server.baseURL }),
      model: options.model ?? 'm',
    },
    documents: DOCS,
  };
  if (options.embeddingModel)
    r.embeddings = { endpoint: { baseURL: server.baseURL }, model: options.embeddingModel };
  return r;
}
