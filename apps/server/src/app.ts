import type { AssayConfig, AssayDb } from '@assay/platform';
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { authentication } from './access/auth.js';
import { FailedAuthLimiter } from './access/auth-rate-limit.js';
import { requireDeclaredRole, RouteAccess } from './access/route-access.js';
import { ComputationGate } from './core/computations.js';
import { policyOf } from './core/page-policies.js';
import { ApiError, handleError } from './core/errors.js';
import { forbiddenError } from './core/schemas.js';
import type { AppEnv } from './router.js';
import { responseSets } from './answers/response-sets.js';
import { scoreSets } from './answers/score-sets.js';
import { assessmentSets, collectionAssessmentSets } from './rag/assessment-sets.js';
import { nuggetBanks } from './rag/nugget-banks.js';
import { rubricSets } from './rag/rubric-sets.js';
import { campaigns, collectionCampaigns } from './campaigns/campaigns.js';
import { collectionIndex } from './retrieval/collection-index.js';
import { collections } from './catalog/collections.js';
import { documents } from './catalog/documents.js';
import { evaluations } from './analysis/evaluations.js';
import { inputGuard } from './core/input-guard.js';
import { health } from './core/health.js';
import { collectionJudgeJobs, judgeJobs } from './judging/judge-jobs.js';
import { labelSets } from './catalog/label-sets.js';
import { judges } from './judging/judges.js';
import { leaderboards, publicLeaderboards } from './reports/leaderboards.js';
import { pools } from './catalog/pools.js';
import { reports } from './reports/reports.js';
import { retrieve } from './retrieval/retrieve.js';
import { runTraces } from './retrieval/run-traces.js';
import { runs } from './catalog/runs.js';
import { topics } from './catalog/topics.js';
import { judgeReports, ppi } from './analysis/trust.js';
import { me, users } from './people/users.js';
import { defaultWebDir, serveWebApp } from './core/web-app.js';

/** What the API needs. */
export interface AppDeps {
  /** The open database (from openDatabase / createDb). */
  db: AssayDb['db'];
  /** The server's configuration (judge jobs take ASSAY_JUDGE_MODEL as their default model). */
  config?: AssayConfig;
  /** Where internal errors go (default: stderr). Never given request headers. */
  log?: (line: string) => void;
  /** Largest request body in bytes (default 256 MiB). */
  maxBodyBytes?: number;
  /** The built web app served at `/` (default: apps/web/build of this checkout; null: none). */
  webDir?: string | null;
  /**
   * Failed authentications one client address may make per minute before it is answered
   * 429 with Retry-After (default 20).
   */
  maxAuthFailures?: number;
  /**
   * Heavy computations (pools, evaluations, comparisons, agreements, campaigns and judge
   * jobs made from pools) run at once (default 2); the next `waiting` (default 32) wait
   * for their turn, at most `waitMs` (default 60 s), any more are answered 503 busy.
   */
  computations?: { running?: number; waiting?: number; waitMs?: number };
}

/** Default upload limit: room for a large run file (a few million lines). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;

/** Where the OpenAPI document is served (to anyone). */
const API_DOCUMENT = '/api/openapi.json';

/** Builds the assay API under /api. It never listens: serve app.fetch, or call app.request(). */
export function createApp(deps: AppDeps) {
  const log = deps.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new OpenAPIHono<AppEnv>();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An assay API token (the first admin token is printed when the server starts).',
  });
  const limiter = new FailedAuthLimiter(deps.maxAuthFailures ?? 20, 60_000);
  const computations = new ComputationGate(
    deps.computations?.running,
    deps.computations?.waiting,
    deps.computations?.waitMs,
  );
  // Every response: no content sniffing, and a policy that forbids framing (API responses
  // are data, never a page to render; pages bring their own policy).
  app.use('*', async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
    c.header('content-security-policy', policyOf(c.res.headers.get('content-security-policy')));
  });
  // Order matters: who you are is settled before any body is read.
  app.use('/api/*', async (c, next) => {
    c.set('db', deps.db);
    c.set('config', deps.config);
    c.set('computations', computations);
    await next();
  });
  // Who may call each route is declared on the route; the table is filled once the routes
  // are mounted (below), before any request.
  const access = new RouteAccess();
  app.use('/api/*', authentication(limiter, access));
  app.use('/api/*', requireDeclaredRole(access));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError(
          'payload_too_large',
          `the request body is larger than the server accepts (${formatBytes(maxBodyBytes)})`,
        );
      },
    }),
  );
  app.use('/api/*', inputGuard);
  const routes = app
    .route('/api/health', health)
    .route('/api/collections', collections)
    .route('/api/collections/:collection/index', collectionIndex)
    .route('/api/collections/:collection/documents', documents)
    .route('/api/collections/:collection/topics', topics)
    .route('/api/collections/:collection/runs/retrieve', retrieve)
    .route('/api/collections/:collection/runs/:run/trace', runTraces)
    .route('/api/collections/:collection/runs', runs)
    .route('/api/collections/:collection/label-sets', labelSets)
    .route('/api/collections/:collection/pools', pools)
    .route('/api/collections/:collection/judge-jobs', collectionJudgeJobs)
    .route('/api/judge-jobs', judgeJobs)
    .route('/api/judges', judges)
    .route('/api/evaluations', evaluations)
    .route('/api/ppi', ppi)
    .route('/api/judge-reports', judgeReports)
    .route('/api/reports', reports)
    .route('/api/leaderboards', leaderboards)
    .route('/api/response-sets', responseSets)
    .route('/api/score-sets', scoreSets)
    .route('/api/collections/:collection/nugget-banks', nuggetBanks)
    .route('/api/collections/:collection/rubric-sets', rubricSets)
    .route('/api/collections/:collection/assessment-sets', collectionAssessmentSets)
    .route('/api/assessment-sets', assessmentSets)
    .route('/api/public/leaderboards', publicLeaderboards)
    .route('/api/me', me)
    .route('/api/users', users)
    .route('/api/collections/:collection/campaigns', collectionCampaigns)
    .route('/api/campaigns', campaigns)
    .doc31(API_DOCUMENT, {
      openapi: '3.1.0',
      info: {
        title: 'assay API',
        version: '0.1.0',
        description:
          'Test collections, runs and label sets, pools and LLM judge jobs, and ' +
          'trec_eval-exact evaluation. Each operation says who may call it in `x-access`: ' +
          '`public` (no token), `annotator` (any token: annotators reach only their own ' +
          'campaign items, labels and tokens) or `admin` (an admin token; others get 403). ' +
          'All but the public ones need `Authorization: Bearer <token>`. Errors are ' +
          '`{ "error": { "code", "message" } }` with a stable code.',
      },
      tags: [
        { name: 'collections' },
        { name: 'documents' },
        { name: 'topics' },
        { name: 'runs' },
        { name: 'label sets' },
        { name: 'judging' },
        { name: 'evaluations' },
        { name: 'reports' },
        { name: 'leaderboards' },
        { name: 'answers' },
        { name: 'rag' },
        { name: 'system' },
        { name: 'users' },
        { name: 'campaigns' },
      ],
    });
  access.learn(app.openAPIRegistry.definitions, forbiddenError);
  access.declare('get', API_DOCUMENT, 'public');
  app.use('*', serveWebApp(deps.webDir === null ? undefined : (deps.webDir ?? defaultWebDir())));
  app.notFound((c) => {
    throw new ApiError('not_found', `no route ${c.req.method} ${c.req.path}`);
  });
  app.onError((error, c) => handleError(error, c, log));
  return routes;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`;
}

/** The API's type, for hono's typed client (`hc<AssayApp>`). */
export type AssayApp = ReturnType<typeof createApp>;
