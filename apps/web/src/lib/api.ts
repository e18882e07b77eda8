// The web app's one client of the assay API: hono's typed client over the server's own
// routes (`hc<AssayApp>`, imported as a type only, so no server code reaches the bundle).
// Every answer type below is the one its route declares; every request goes through `send`
// (the stored token, or the one given) and `answer` (`{ error: { code, message } }` becomes
// an ApiError). Only uploads take another way (upload.ts: XMLHttpRequest, for the progress
// bar the fetch API cannot give), with the same token and errors.
import type { AssayApp } from '@assay/server';
import { hc, type ClientResponse } from 'hono/client';
import type { SuccessStatusCode } from 'hono/utils/http-status';
import type { Failure, KeyValueStore } from './outbox';

/** A failed request: the API's stable code, or `network` when the server was not reached. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * What a failed write means for the outbox: the server not reached, failing (5xx), busy
 * (429) or a write that raced (409) is tried again later; 401 (token unknown or revoked)
 * waits for a new sign-in; any other refusal (400, 403, 404, 422) will never succeed.
 */
export function failureOf(error: unknown): Failure {
  if (!(error instanceof ApiError)) return { kind: 'offline' };
  // A closed campaign (or one the annotator was removed from) is a 409 that trying again
  // will not cure: it is shown with its reason, never taken for a lost connection.
  const closed =
    error.status === 409 &&
    /^(campaign closed|you were removed from this campaign)/.test(error.message);
  if (closed)
    return {
      kind: 'refused',
      reason: { status: error.status, code: error.code, message: error.message },
    };
  if (error.code === 'network' || error.status >= 500 || [408, 409, 429].includes(error.status))
    return { kind: 'offline' };
  if (error.status === 401) return { kind: 'signed-out' };
  return {
    kind: 'refused',
    reason: { status: error.status, code: error.code, message: error.message },
  };
}

const TOKEN_KEY = 'assay.token';
const storage = () => (globalThis as unknown as { localStorage: KeyValueStore }).localStorage;

export function getToken(): string | null {
  return storage().getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token === null) storage().removeItem(TOKEN_KEY);
  else storage().setItem(TOKEN_KEY, token);
}

/** Sends a request with the stored token (unless it names one); a lost connection is an ApiError. */
async function send(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  try {
    return await globalThis.fetch(input, { ...init, headers });
  } catch {
    throw new ApiError('network', 'the server cannot be reached', 0);
  }
}

/** The typed client of the API. */
export const client = hc<AssayApp>('/', { fetch: send });

/** The body of a route's successful JSON answer. */
export type Ok<R> =
  R extends ClientResponse<infer T, infer S, infer _F>
    ? S extends Exclude<SuccessStatusCode, 204>
      ? Exclude<T, string | Response | null | undefined>
      : never
    : never;

/** The successful answer of a typed-client call (a function of the client). */
type AnswerOf<F> = F extends (...args: never[]) => Promise<infer R> ? Ok<R> : never;
/** One element of a list answer. */
type Each<F> = AnswerOf<F> extends ReadonlyArray<infer T> ? T : never;

/** The parsed body of an answer and its headers; ApiError when it failed. */
async function answer<T>(response: Response): Promise<{ body: T; headers: Headers }> {
  if (response.status === 204) return { body: undefined as T, headers: response.headers };
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
  return { body: parsed as T, headers: response.headers };
}

/** The successful answer's JSON (undefined for 204); ApiError otherwise. */
export async function ok<R extends ClientResponse<unknown, number, string>>(
  call: Promise<R>,
): Promise<Ok<R>> {
  return (await answer<Ok<R>>((await call) as unknown as Response)).body;
}

/** A successful answer with its headers (the `X-Next-Cursor` of a page). */
export async function okWithHeaders<R extends ClientResponse<unknown, number, string>>(
  call: Promise<R>,
): Promise<{ body: Ok<R>; headers: Headers }> {
  return answer<Ok<R>>((await call) as unknown as Response);
}

/**
 * Every item of a paged list: follows the `X-Next-Cursor` of each page (the API pages every
 * list; a page holds 100 or 1000 items unless told) until the last page.
 */
async function allPages<R extends ClientResponse<unknown, number, string>>(
  page: (query: { after?: string }) => Promise<R>,
): Promise<Ok<R>> {
  const items: unknown[] = [];
  let after: string | null = null;
  for (;;) {
    const { body, headers }: { body: Ok<R>; headers: Headers } = await okWithHeaders(
      page(after === null ? {} : { after }),
    );
    items.push(...(body as unknown[]));
    after = headers.get('x-next-cursor');
    if (after === null) return items as Ok<R>;
  }
}

/** Path parameters go into the URL as given: names are encoded here. */
export const enc = encodeURIComponent;

const api_ = client.api;
const users = api_.users[':user'];
const collection = api_.collections[':collection'];
const jobs = api_['judge-jobs'][':id'];
const campaign = api_.campaigns[':id'];
const campaignItem = campaign.items[':item'];
const responseSet = api_['response-sets'][':responseSet'];
const scoreSet = api_['score-sets'][':id'];
const asToken = (token?: string) =>
  token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } };
const id = (n: number) => ({ id: String(n) });
type CampaignInput = Parameters<typeof collection.campaigns.$post>[0]['json'];

// --- What the routes answer (types derived from their declared schemas) ---

export type Me = AnswerOf<typeof api_.me.$get>;
export type Role = Me['role'];
export type UserSummary = Each<typeof api_.users.$get>;
export type CreatedUser = AnswerOf<typeof api_.users.$post>;
export type Collection = AnswerOf<typeof collection.$get>;
export type Run = Each<typeof collection.runs.$get>;
export type LabelSet = Each<(typeof collection)['label-sets']['$get']>;
export type JudgeJob = AnswerOf<typeof jobs.start.$post>;
/** A page of a pool, its statistics and the pairs left out. */
export type Pool = AnswerOf<typeof collection.pools.$post>;
export type PpiResult = AnswerOf<typeof api_.ppi.$post>;

export type Campaign = AnswerOf<typeof campaign.$get>;
/** What deleting a campaign deletes (GET /campaigns/{id}/deletion) or deleted. */
export type CampaignDeletion = AnswerOf<typeof campaign.deletion.$get>;
/** An item the campaign's annotators disagree on (GET /campaigns/{id}/disagreements). */
export type Disagreement = Each<typeof campaign.disagreements.$get>;
/** One item for the adjudicator's document view (GET /campaigns/{id}/adjudication/{item}). */
export type AdjudicationItem = AnswerOf<(typeof campaign.adjudication)[':item']['$get']>;
export type MyCampaign = Each<typeof api_.campaigns.$get>;
/** An item as the labelling screen holds it: `grade` when it was opened from the history. */
export type AnnotationItem = NextItems['items'][number] & { grade?: number | null };
/** The caller's next items, in the order they are served, and their progress. */
export type NextItems = AnswerOf<(typeof campaign)['next-items']['$get']>;
export type CampaignAgreement = AnswerOf<typeof campaign.agreement.$get>;

export type ReportSummary = Each<typeof api_.reports.$get>;
/** A stored report, its `result` typed by its `kind` (an agreement report’s is left open). */
export type Report = AnswerOf<(typeof api_.reports)[':id']['$get']>;

export type ResponseSetDetail = AnswerOf<typeof responseSet.$get>;
export type Answer = ResponseSetDetail['answers'][number];
export type ScoreSet = ResponseSetDetail['scoreSets'][number];
export type ScoreSetDetail = AnswerOf<typeof scoreSet.$get>;
export type AnswerScore = ScoreSetDetail['rows'][number];
/** Per criterion, agreement of two score sets of the same answers (null: undefined). */
export type CriterionAgreement = Each<(typeof scoreSet.agreement)[':other']['$get']>;
/** A judge template as `/api/judges` lists it. */
export type JudgeTemplateSummary = Each<typeof api_.judges.$get>;
/** The caller's stored hand scores of a response set and the rubric they are given on. */
export type HandScores = AnswerOf<(typeof responseSet)['hand-scores']['$get']>;

// --- Leaderboards: a stored comparison, and the JSON of a published one ---

/** A comparison report's result: one leaderboard per label set, and their rank correlation. */
type StoredCompareResult = Extract<Report, { kind: 'comparison' }>['result'];
type StoredComparison = StoredCompareResult['leaderboards'][number]['comparison'];
export type LeaderboardRow = StoredComparison['runs'][number];
/** One paired test between runs a and b on one measure. */
export type PairTest = StoredComparison['pairs'][number];
/**
 * A leaderboard as the views take it: a stored one, or one from `assay compare --format
 * json` (which has no per-topic values, and may lack the tests).
 */
export type Comparison = Omit<StoredComparison, 'perTopic' | 'topicIds' | 'pairs'> &
  Partial<Pick<StoredComparison, 'perTopic' | 'topicIds' | 'pairs'>>;
export type CompareResult = Omit<StoredCompareResult, 'leaderboards'> & {
  leaderboards: Array<{ qrels: string; comparison: Comparison }>;
};

/** A published leaderboard: its `leaderboard` is what `assay compare --format json` writes. */
export type PublicLeaderboard = AnswerOf<(typeof api_.public.leaderboards)[':slug']['$get']>;
/** What `assay compare --format json` writes (a public leaderboard, an assessment set's). */
export type CompareJson = PublicLeaderboard['leaderboard'];

/** `assay answers report --format json` of a score set. */
export type AnswersReport = AnswerOf<typeof scoreSet.report.$get>;

/** The `assay compare --format json` shape as the leaderboard views take it. */
export function fromCompareJson(json: CompareJson): CompareResult {
  const settings = {
    topicHandling: json.topicHandling,
    measures: json.measures,
    test: json.test,
    correction: json.correction,
    alpha: json.alpha,
    seed: json.seed,
    ...(json.source === undefined ? {} : { source: json.source }),
    ...(json.permutations === undefined ? {} : { permutations: json.permutations }),
    ...(json.baseline === undefined ? {} : { baseline: json.baseline }),
  };
  const boards = json.leaderboards ?? [
    {
      qrels: json.qrels ?? '',
      topics: json.topics ?? 0,
      runs: json.runs ?? [],
      ...(json.pairs ? { pairs: json.pairs } : {}),
    },
  ];
  return {
    leaderboards: boards.map((b) => ({
      qrels: b.qrels,
      comparison: {
        ...settings,
        topics: b.topics,
        runs: b.runs,
        ...(b.pairs ? { pairs: b.pairs } : {}),
      },
    })),
    ...(json.rankCorrelation ? { rankCorrelation: json.rankCorrelation } : {}),
  };
}

/** Every call the app makes (lists come whole: allPages follows their pages). */
export const api = {
  /** Who the stored token (or `token`) signs in. */
  me: (token?: string) => ok(api_.me.$get({}, asToken(token))),
  users: () => allPages((query) => api_.users.$get({ query })),
  addUser: (name: string, role: Role) => ok(api_.users.$post({ json: { name, role } })),
  issueToken: (user: number) =>
    ok(users.tokens.$post({ param: { user: String(user) }, query: {} })),
  revokeUser: (user: number) => ok(users.revoke.$post({ param: { user: String(user) } })),

  collections: () => allPages((query) => api_.collections.$get({ query })),
  collection: (c: string) => ok(collection.$get({ param: { collection: c } })),
  topics: (c: string) =>
    allPages((query) => collection.topics.$get({ param: { collection: c }, query })),
  runs: (c: string) =>
    allPages((query) => collection.runs.$get({ param: { collection: c }, query })),
  labelSets: (c: string) =>
    allPages((query) => collection['label-sets'].$get({ param: { collection: c }, query })),
  pool: (c: string, runs: string[], depth: number) =>
    ok(collection.pools.$post({ param: { collection: c }, query: {}, json: { runs, depth } })),
  ppi: (body: Parameters<typeof api_.ppi.$post>[0]['json']) => ok(api_.ppi.$post({ json: body })),
  evaluate: (collection: string, labelSet: string, runs: string[], measures: string[]) =>
    ok(api_.evaluations.$post({ json: { collection, labelSet, runs, measures } })),

  judgeJobs: (c: string) =>
    allPages((query) => collection['judge-jobs'].$get({ param: { collection: c }, query })),
  startJob: (n: number) => ok(jobs.start.$post({ param: id(n) })),
  stopJob: (n: number) => ok(jobs.stop.$post({ param: id(n) })),
  retryJob: (n: number) => ok(jobs['retry-failed'].$post({ param: id(n) })),

  campaigns: (c: string) =>
    allPages((query) => collection.campaigns.$get({ param: { collection: c }, query })),
  /** The body as the campaign form builds it; the server validates it (422 when wrong). */
  createCampaign: (c: string, body: Record<string, unknown>) =>
    ok(collection.campaigns.$post({ param: { collection: c }, json: body as CampaignInput })),
  campaign: (n: number) => ok(campaign.$get({ param: id(n) })),
  agreement: (n: number) => ok(campaign.agreement.$get({ param: id(n) })),
  disagreements: (n: number, withLabelSets: boolean) =>
    ok(
      campaign.disagreements.$get({
        param: id(n),
        query: withLabelSets ? { labelSets: '1' } : {},
      }),
    ),
  adjudicate: (n: number, item: number, grade: number | null) =>
    ok(campaignItem.adjudicate.$post({ param: { ...id(n), item: String(item) }, json: { grade } })),
  adjudicationItem: (n: number, item: number, withLabelSets: boolean) =>
    ok(
      campaign.adjudication[':item'].$get({
        param: { ...id(n), item: String(item) },
        query: withLabelSets ? { labelSets: '1' } : {},
      }),
    ),
  closeCampaign: (n: number) => ok(campaign.close.$post({ param: id(n) })),
  reopenCampaign: (n: number) => ok(campaign.reopen.$post({ param: id(n) })),
  addAnnotators: (n: number, annotators: string[], allItems: boolean) =>
    ok(campaign.annotators.$post({ param: id(n), json: { annotators, allItems } })),
  removeAnnotator: (n: number, user: number) =>
    ok(campaign.annotators[':user'].$delete({ param: { ...id(n), user: String(user) } })),
  campaignDeletion: (n: number) => ok(campaign.deletion.$get({ param: id(n) })),
  deleteCampaign: (n: number, force: boolean) =>
    ok(campaign.$delete({ param: id(n), query: force ? { force: 'true' } : {} })),
  myCampaigns: () => allPages((query) => api_.campaigns.$get({ query })),
  nextItems: (n: number, count: number) =>
    ok(campaign['next-items'].$get({ param: id(n), query: { count: String(count) } })),
  item: (n: number, item: number) =>
    ok(campaignItem.$get({ param: { ...id(n), item: String(item) } })),
  label: (n: number, item: number, grade: number, seconds: number) =>
    ok(campaign.labels.$post({ param: id(n), json: { item, grade, seconds } })),
  undo: (n: number, item: number) =>
    ok(campaign.labels[':item'].undo.$post({ param: { ...id(n), item: String(item) } })),
  skip: (n: number, item: number) => ok(campaign.skip.$post({ param: id(n), json: { item } })),

  reports: (collection: string) =>
    allPages((query) => api_.reports.$get({ query: { collection, ...query } })),
  report: (n: number) => ok(api_.reports[':id'].$get({ param: id(n) })),
  compare: (body: Parameters<typeof api_.reports.comparisons.$post>[0]['json']) =>
    ok(api_.reports.comparisons.$post({ json: body })),
  publish: (n: number, slug: string) =>
    ok(api_.reports[':id'].publish.$post({ param: id(n), json: { slug } })),
  unpublish: (slug: string) => ok(api_.leaderboards[':slug'].$delete({ param: { slug } })),
  publicLeaderboard: (slug: string) =>
    ok(api_.public.leaderboards[':slug'].$get({ param: { slug }, query: {} })),

  responseSets: () => allPages((query) => api_['response-sets'].$get({ query })),
  responseSet: (set: string, topic?: string) =>
    ok(
      responseSet.$get({
        param: { responseSet: set },
        query: topic === undefined ? {} : { topic },
      }),
    ),
  scoreSet: (n: number, topic?: string) =>
    ok(scoreSet.$get({ param: id(n), query: topic === undefined ? {} : { topic } })),
  importScoreSet: (set: string, name: string, scores: string, judge?: string) =>
    ok(
      responseSet['score-sets'].import.$post({
        param: { responseSet: set },
        json: { name, scores, ...(judge ? { judge } : {}) },
      }),
    ),
  scoreAgreement: (n: number, other: number) =>
    ok(scoreSet.agreement[':other'].$get({ param: { ...id(n), other: String(other) } })),
  answersReport: (n: number) => ok(scoreSet.report.$get({ param: id(n), query: {} })),
  judges: () => ok(api_.judges.$get()),
  handScores: (set: string, judge: string) =>
    ok(responseSet['hand-scores'].$get({ param: { responseSet: set }, query: { judge } })),
  giveHandScore: (
    set: string,
    score: { judge: string; topic: string; system: string; criterion: string; grade: number },
  ) => ok(responseSet['hand-scores'].$put({ param: { responseSet: set }, json: score })),
};
