import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../core/errors.js';
import type { AppEnv } from '../router.js';

/**
 * Who may call a route, declared once on the route (its `x-access`, which the OpenAPI
 * document shows):
 * - `public`: anyone, without a token (health, the API document, published leaderboards);
 * - `annotator`: any valid token, so annotators too: what their campaigns need (their next
 *   item, their items, history, notes, labels, undo and skip; each use-case refuses items
 *   that are not theirs), labelling RAG answers by hand (in the people sets naming them;
 *   the use-cases refuse any other set), and their own tokens;
 * - `admin`: admin tokens only: every label set, report, run and judge job, so no route
 *   shows an annotator another label set's grades.
 */
export type Access = 'public' | 'annotator' | 'admin';

/** What a route spreads into its `createRoute` config to declare who may call it. */
export interface AccessDeclaration {
  'x-access': Access;
  security: Array<Record<string, string[]>>;
}

/** An annotator's answer on a route that needs an admin. */
const FORBIDDEN =
  'annotators reach only their own campaign items, labels and tokens; this needs an admin API token';

type Definitions = OpenAPIHono['openAPIRegistry']['definitions'];

interface DeclaredRoute {
  /** `GET /api/campaigns/{id}/next`, as the OpenAPI document names it. */
  name: string;
  /** Its path segments; null where any one segment goes (a path parameter). */
  segments: (string | null)[];
  access: Access;
}

/**
 * Every route's declared access, matched against requests as the router matches them: a
 * `{param}` is any one path segment, HEAD is GET. The authentication and the role check
 * read it before any body is read; what no route declares (an unknown path) needs an admin.
 */
export class RouteAccess {
  readonly #routes = new Map<string, DeclaredRoute[]>();

  /**
   * Takes the access each route of an OpenAPI registry declares, and writes what it means
   * into the document: an admin route's description leads with "Admin only." and it lists
   * the 403 `forbidden` response. A route without a declaration, or two routes one request
   * could reach with different access, are a mistake in the code: the app refuses to start.
   */
  learn(definitions: Definitions, forbidden: RouteConfig['responses'][string]): void {
    for (const d of definitions) {
      if (d.type !== 'route') continue;
      const route = d.route as typeof d.route & { 'x-access'?: unknown };
      const access = route['x-access'];
      if (access !== 'public' && access !== 'annotator' && access !== 'admin')
        throw new Error(`${route.method.toUpperCase()} ${route.path} declares no access`);
      this.declare(route.method, route.path, access);
      if (access !== 'admin') continue;
      if (!route.description?.startsWith('Admin only.'))
        route.description = route.description ? `Admin only. ${route.description}` : 'Admin only.';
      route.responses[403] ??= forbidden;
    }
  }

  /** Declares a route that is not in the OpenAPI registry (the document itself). */
  declare(method: string, path: string, access: Access): void {
    const segments = path.split('/').map((s) => (/^\{[^}]+\}$/.test(s) ? null : s));
    const route = { name: `${method.toUpperCase()} ${path}`, segments, access };
    const key = `${method.toUpperCase()} ${segments.length}`;
    const same = this.#routes.get(key) ?? [];
    const clash = same.find((r) => r.access !== access && overlap(r.segments, segments));
    if (clash)
      throw new Error(
        `${clash.name} (${clash.access}) and ${route.name} (${access}) match the same requests`,
      );
    this.#routes.set(key, [...same, route]);
  }

  /** Who may call `method path`; `admin` when no route is declared there. */
  of(method: string, path: string): Access {
    const segments = path.split('/');
    const key = `${method === 'HEAD' ? 'GET' : method.toUpperCase()} ${segments.length}`;
    const route = this.#routes
      .get(key)
      ?.find((r) =>
        r.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i])),
      );
    return route?.access ?? 'admin';
  }
}

/** Whether some path matches both segment patterns (of the same length). */
function overlap(a: (string | null)[], b: (string | null)[]): boolean {
  return a.every((s, i) => s === null || b[i] === null || s === b[i]);
}

/**
 * Admin routes answer anyone else 403 before anything is read. Annotator routes let every
 * token through (their use-cases refuse what is not the caller's); public ones have no user.
 */
export function requireDeclaredRole(routes: RouteAccess) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (routes.of(c.req.method, c.req.path) !== 'admin' || c.get('user')?.role === 'admin')
      return next();
    throw new ApiError('forbidden', FORBIDDEN);
  });
}
