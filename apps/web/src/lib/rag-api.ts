// The RAG evaluation pages' client: hono's typed client over the server's own routes
// (`hc<AssayApp>`), so every request and answer has the type its route declares. `ok`
// turns `{ error: { code, message } }` into the app's ApiError.
import type { AssayApp } from '@assay/server';
import { hc, type ClientResponse } from 'hono/client';
import type { SuccessStatusCode } from 'hono/utils/http-status';
import { ApiError, getToken } from './api';

/** Sends a request with the stored token; a lost connection is an ApiError. */
async function send(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  try {
    return await globalThis.fetch(input, { ...init, headers });
  } catch {
    throw new ApiError('network', 'the server cannot be reached', 0);
  }
}

/** The typed client of the API. */
export const client = hc<AssayApp>('/', { fetch: send });

/** The body of a route's successful JSON answer. */
type Ok<R> =
  R extends ClientResponse<infer T, infer S, infer _F>
    ? S extends Exclude<SuccessStatusCode, 204>
      ? Exclude<T, string | Response | null | undefined>
      : never
    : never;

/** The successful answer's JSON (undefined for 204); ApiError otherwise. */
export async function ok<R extends ClientResponse<unknown, number, string>>(
  call: Promise<R>,
): Promise<Ok<R>> {
  const response = (await call) as unknown as Response;
  if (response.status === 204) return undefined as Ok<R>;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError('internal', `unexpected answer (${response.status})`, response.status);
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code: string; message: string } } | undefined)?.error;
    throw new ApiError(
      error?.code ?? 'internal',
      error?.message ?? `HTTP ${response.status}`,
      response.status,
    );
  }
  return parsed as Ok<R>;
}

/** Path parameters go into the URL as given: names are encoded here. */
export const enc = encodeURIComponent;

/** Kinds of assessment, and what each calls its labels on the keyboard. */
export const KEYS: Record<'nuggets' | 'support' | 'rubric', Record<string, string>> = {
  nuggets: { '2': 'support', '1': 'partial_support', '0': 'not_support' },
  support: { '2': 'full', '1': 'partial', '0': 'none', x: 'cannot_assess' },
  rubric: { '2': 'met', '1': 'partly_met', '0': 'not_met' },
};
