// For the TEST DOUBLE of an OpenAI-compatible endpoint (openai-test-server.ts): answers
// any prompt from the JSON schema it asks for (plain text otherwise), embeddings and rerank
// scores from hashes, with faults injected by request number. Tests only; never ships.
import { createHash } from 'node:crypto';
import type { Behaviour } from './openai-test-server.js';

const WORDS = ['wing', 'flutter', 'shock', 'waves', 'heat', 'transfer', 'boundary', 'layer'];

/** Words picked by a hash of `seed`: the same request always gets the same text. */
function wordsFor(seed: string, n = 3): string {
  const h = createHash('sha256').update(seed).digest();
  return Array.from({ length: n }, (_, i) => WORDS[h[i]! % WORDS.length]).join(' ');
}

/** A value that satisfies `schema` (the subset prompts use), words chosen from `seed`. */
function fromSchema(schema: Record<string, unknown>, seed: string): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(
        Object.entries(props).map(([key, sub]) => [key, fromSchema(sub, `${seed}/${key}`)]),
      );
    }
    case 'array': {
      const n = Math.max(Number(schema.minItems ?? 1), Math.min(2, Number(schema.maxItems ?? 2)));
      const items = (schema.items ?? { type: 'string' }) as Record<string, unknown>;
      return Array.from({ length: n }, (_, i) => fromSchema(items, `${seed}/${i}`));
    }
    case 'integer':
    case 'number':
      return typeof schema.maximum === 'number' ? schema.maximum : (schema.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return wordsFor(seed);
  }
}

/** The double's answer to request `n`: faults by request number, else an answer from the schema. */
export function faultyAnswer(body: Record<string, unknown>, n: number, path: string): Behaviour {
  if (n % 17 === 3) return { status: 429, retryAfter: '0' };
  if (n % 19 === 5) return { status: 500, retryAfter: '0' };
  if (n % 23 === 7) return { drop: true };
  if (n % 29 === 11) return { malformedBody: true };
  const seed = JSON.stringify(body);
  if (path.endsWith('/embeddings')) {
    const input = body.input as string[];
    return {
      json: {
        data: input.map((text, index) => ({
          index,
          embedding: [...createHash('sha256').update(text).digest().subarray(0, 8)].map(
            (b) => b / 255 + 0.01,
          ),
        })),
        usage: { prompt_tokens: input.length },
      },
    };
  }
  if (path.endsWith('/rerank')) {
    const documents = body.documents as unknown[];
    return {
      json: {
        results: documents.map((_, index) => ({ index, relevance_score: 1 / (index + 1) })),
      },
    };
  }
  // One answer in 31 is prose where JSON is expected: asked again with a new seed.
  const format = body.response_format as
    { json_schema?: { schema?: Record<string, unknown> } } | undefined;
  const schema = format?.json_schema?.schema;
  if (schema) {
    if (n % 31 === 13) return { reply: 'Sure! Here is what I found.' };
    return { reply: JSON.stringify(fromSchema(schema, seed)) };
  }
  return { reply: `[1] > [2] ${wordsFor(seed, 6)}` };
}
