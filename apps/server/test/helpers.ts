import type { z } from '@hono/zod-openapi';
import { addUser, ensureAdmin, type AssayDb } from '@assay/platform';
import { createApp, type AppDeps } from '../src/index.js';

/** An app over a test database, with an admin and an annotator token. */
export interface TestApi {
  app: ReturnType<typeof createApp>;
  admin: string;
  annotator: string;
  /** Internal errors the app logged. */
  logged: string[];
  /** A request with an optional bearer token; a string body is sent as text/plain. */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: string | FormData; json?: unknown; type?: string },
  ): Promise<Response>;
}

export const ADMIN_TOKEN = 'assay_test-admin-token-0123456789';

/** Builds the app over `db` and creates the two users. */
export async function setUpApi(
  db: AssayDb['db'],
  deps: Partial<Omit<AppDeps, 'db'>> = {},
): Promise<TestApi> {
  const logged: string[] = [];
  // Suites probe many routes without a token on purpose: far more failed authentications
  // than the default limit allows (server-defaults.test.ts tests the limit itself).
  const app = createApp({
    db,
    log: (line) => logged.push(line),
    maxAuthFailures: 10_000,
    ...deps,
  });
  await ensureAdmin(db, { token: ADMIN_TOKEN });
  const { token: annotator } = await addUser(db, { name: 'ann', role: 'annotator' });
  return {
    app,
    admin: ADMIN_TOKEN,
    annotator,
    logged,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = {};
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | FormData | undefined = options.body;
      if (options.json !== undefined) {
        body = JSON.stringify(options.json);
        headers['content-type'] = 'application/json';
      } else if (typeof body === 'string') {
        headers['content-type'] = options.type ?? 'text/plain';
      }
      return app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
    },
  };
}

const errors = new WeakMap<Response, Promise<{ error: { code: string; message: string } }>>();

/** The `{ error: { code, message } }` body of a response, with its status (readable twice). */
export async function errorOf(response: Response) {
  let body = errors.get(response);
  if (!body) {
    body = response.json() as Promise<{ error: { code: string; message: string } }>;
    errors.set(response, body);
  }
  return { status: response.status, ...(await body).error };
}

/** The JSON schema a route declares for a status (tests parse real answers with it). */
export function declared(
  api: TestApi,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  status: number,
): z.ZodType {
  for (const d of api.app.openAPIRegistry.definitions) {
    if (d.type !== 'route' || d.route.method !== method || d.route.path !== path) continue;
    const response = d.route.responses[String(status)] as
      { content?: Record<string, { schema?: z.ZodType }> } | undefined;
    const schema = response?.content?.['application/json']?.schema;
    if (schema) return schema;
  }
  throw new Error(`${method} ${path} declares no JSON answer for ${status}`);
}
