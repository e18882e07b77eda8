import { createHash } from 'node:crypto';
import type { ChatRequest } from './chat-client.js';

/** JSON with object keys sorted at every level, so equal requests serialise identically. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * SHA-256 (hex) of the canonical request: endpoint, model, messages and parameters. It is
 * the cache key: the same request is never paid for twice. The API key is never part of it.
 */
export function requestHash(request: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

/** The cache key of a chat-completions request: requestHash with the endpoint named. */
export function chatRequestHash(request: ChatRequest): string {
  return requestHash({ endpoint: 'chat.completions', ...request });
}
