import type { AssayConfig, AssayDb, User } from '@assay/platform';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ComputationGate } from './core/computations.js';

/** What every handler can read from the context. */
export interface AppEnv {
  Variables: {
    db: AssayDb['db'];
    /** The server's configuration, when it was given one. */
    config: AssayConfig | undefined;
    /** The authenticated user; set on every route that is not public. */
    user: User;
    /** Where heavy computations take turns. */
    computations: ComputationGate;
  };
}

/**
 * A router for one resource. Validation failures are thrown (not answered here) so the
 * app's one onError shapes them like every other error.
 */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw result.error;
    },
  });
}
