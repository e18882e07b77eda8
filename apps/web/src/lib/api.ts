// The web app's one client of the assay API: every request goes through `request`, which
// adds the token and turns `{ error: { code, message } }` into an ApiError.
import type { Failure, KeyValueStore } from './outbox';

export type Role = 'annotator' | 'admin';

export interface Me {
  id: number;
  name: string;
  role: Role;
}

export interface UserSummary extends Me {
  createdAt: string;
  activeTokens: number;
  lastUsedAt: string | null;
}

export interface CreatedUser extends Me {
  token: string;
}

export interface Collection {
  id: number;
  name: string;
  description: string | null;
  documentCount: number;
  topicCount: number;
}

export interface Topic {
  topicId: string;
  query: string;
  description: string | null;
  narrative: string | null;
}

export interface Run {
  id: number;
  name: string;
  entryCount: number;
  topicCount: number;
}

export interface LabelSet {
  id: number;
  name: string;
  kind: string;
  scaleMin: number;
  scaleMax: number;
  labelCount: number;
  topicCount: number;
}

export interface JudgeJob {
  id: number;
  labelSet: { id: number; name: string };
  judgeId: string;
  model: string;
  status: 'active' | 'paused';
  progress: {
    total: number;
    pending: number;
    running: number;
    labelled: number;
    failed: number;
    /** null: the model has no price (cost unknown). */
    costUsd: number | null;
  };
}

/** Pairs a pool or campaign left out: their topic or document is not in the collection. */
export interface LeftOut {
  topics: { count: number; first: string[] };
  documents: { count: number; first: string[] };
  pairs: number;
  /** The same in words; null when nothing was left out. */
  message: string | null;
}

export interface Pool {
  items: Array<{ topicId: string; docId: string }>;
  stats: {
    total: number;
    perTopic: Array<{ topicId: string; items: number }>;
    perRun: Array<{ run: string; retrieved: number; contributed: number; unique: number }>;
  };
  leftOut: LeftOut;
}

export interface Evaluation {
  runs: Array<{ run: string; mean: Record<string, number> }>;
}

export interface Grade {
  grade: number;
  label: string;
}

export interface AnnotatorProgress {
  userId: number;
  name: string;
  done: number;
  skipped: number;
  total: number;
  seconds: number;
}

export interface Campaign {
  id: number;
  collectionId: number;
  name: string;
  /** What annotators see (the name unless a title was given). */
  title: string;
  /** Pairs of the pool left out when it was made (null: not recorded). */
  leftOut: LeftOut | null;
  labelSet: { id: number; name: string };
  rubric: string;
  scale: { min: number; max: number };
  grades: Grade[];
  overlap: number;
  blind: boolean;
  items: number;
  labelled: number;
  compareWith: Array<{ id: number; name: string }>;
  /** Source, sampling, judge, order (`order: 'topic'`: served topic by topic). */
  settings?: Record<string, unknown>;
  annotators: AnnotatorProgress[];
  /** When it was closed (it takes no labels then), or null while open. */
  closed: { at: string; by: number | null } | null;
  /** People removed from it (their labels stay). */
  removedAnnotators: Array<{ id: number; name: string }>;
}

/** What deleting a campaign deletes (GET /campaigns/{id}/deletion) or deleted. */
export interface CampaignDeletion {
  id: number;
  name: string;
  items: number;
  labels: number;
  labelSet: { id: number; name: string };
  usedBy: Array<{ id: number; name: string }>;
  message: string;
}

/** An estimate with its interval (null where undefined). */
interface PpiInterval {
  estimate: number | null;
  ci_lower: number | null;
  ci_upper: number | null;
}

/** A prediction-powered leaderboard (POST /ppi). */
export interface PpiResult {
  level: number;
  n: number;
  N: number;
  targetHalfWidth?: number;
  needed?: { units: number; more: number };
  campaign?: { topics: number; finishedTopics: number };
  rows: Array<
    PpiInterval & {
      run: string;
      measure: string;
      lambda: number | null;
      human: PpiInterval;
      llm_mean: number | null;
    }
  >;
}

/** An item the campaign's annotators disagree on (GET /campaigns/{id}/disagreements). */
export interface Disagreement {
  item: number;
  topicId: string;
  query: string;
  docId: string;
  grades: Array<{ annotator: string; grade: number }>;
  label: number | null;
  adjudicated: number | null;
  /** tie: the most given grades are given equally often (the label takes the lower one). */
  status: 'tie' | 'majority' | 'adjudicated';
  labelSets?: Array<{ labelSet: string; grade: number | null }>;
}

/** One item for the adjudicator's document view (GET /campaigns/{id}/adjudication/{item}). */
export interface AdjudicationItem extends Omit<Disagreement, 'status'> {
  status: Disagreement['status'] | 'agreed' | 'unlabelled';
  topic: { id: string; query: string; description?: string; narrative?: string };
  document: { id: string; title?: string; text: string };
}

export interface PublishedLeaderboard {
  slug: string;
  reportId: number;
  publishedAt: string;
  url: string;
}

export interface MyCampaign {
  id: number;
  title: string;
  blind: boolean;
  progress: { done: number; total: number };
  /** Closed by the admin: it takes no more labels. */
  closed?: boolean;
  /** The caller was removed from it. */
  removed?: boolean;
}

export interface ConversationTurn {
  role: string;
  text: string;
}

export interface AnnotationItem {
  /** inputLockMs: how long keys are ignored after a new item appears (0: never). */
  campaign: { id: number; title: string; inputLockMs: number };
  item: {
    id: number;
    topic: {
      id: string;
      query: string;
      description?: string;
      narrative?: string;
      context?: { previousTurns?: ConversationTurn[]; userBackground?: string[] };
    };
    document: { id: string; title?: string; text: string };
  };
  scale: { min: number; max: number; grades: Grade[] };
  rubric: string;
  progress: { done: number; total: number };
  reference?: Array<{ labelSet: string; grade: number | null }>;
  /** Why other label sets' grades are not shown (a blind campaign has the same item). */
  referenceHidden?: string;
  grade?: number | null;
}

/** The caller's next items, in the order they are served, and their progress. */
export interface NextItems {
  items: AnnotationItem[];
  progress: { done: number; total: number };
}

export interface SavedLabel {
  item: number;
  grade: number | null;
  progress: { done: number; total: number };
}

/** `assay agree --format json` (statistics that are undefined come as null). */
export interface AgreementReport {
  n: number;
  onlyA: number;
  onlyB: number;
  exactAgreement: number | null;
  cohenKappa: { unweighted: number | null; linear: number | null; quadratic: number | null };
  krippendorffAlpha: { nominal: number | null; ordinal: number | null; interval: number | null };
  binarized: Array<{
    threshold: number;
    kappa: number | null;
    agreement: number | null;
    alpha: number | null;
  }>;
  confusion: { labels: number[]; matrix: number[][] };
}

export interface CampaignAgreement {
  campaign: { id: number; name: string; labelSet: string };
  annotators: {
    people: Array<{ id: number; name: string; labels: number }>;
    /** A pair with no item in common: n 0, report null and the reason. */
    pairwise: Array<{ a: string; b: string } & PairAgreement>;
    overall: {
      items: number;
      fleissKappa: { items: number; value: number | null };
      krippendorffAlpha: {
        nominal: number | null;
        ordinal: number | null;
        interval: number | null;
      };
    };
    perTopic: Array<{
      topic: string;
      items: number;
      /** Too few items for a figure (fewer than 10). */
      tooFew?: boolean;
      krippendorffAlpha: number | null;
    }>;
  };
  compareWith: Array<
    PairAgreement & {
      labelSet: { id: number; name: string };
      perTopic: Array<{
        topic: string;
        n: number;
        tooFew?: boolean;
        exactAgreement: number | null;
        cohenKappa: number | null;
        krippendorffAlpha: number | null;
      }>;
    }
  >;
}

/** Two sources' agreement over the items both labelled, or why there is none. */
export type PairAgreement =
  | { n: number; report: AgreementReport; reason?: undefined }
  | { n: 0; report: null; reason: string };

export interface LeaderboardRow {
  run: string;
  means: Record<string, number | null>;
  /** Absent from leaderboards of answers' scores. */
  judgedAt10?: number | null;
  /** 95% bootstrap interval of each mean (absent from older stored reports). */
  ci?: Record<string, [number, number]>;
  betterThan: Record<string, string[]>;
  differsFrom: Record<string, string[]>;
}

/** One paired test between runs a and b on one measure. */
export interface PairTest {
  a: string;
  b: string;
  measure: string;
  /** Mean over topics of a − b. */
  meanDiff: number;
  p: number;
  /** p after the per-measure correction. */
  pAdjusted: number;
  significant: boolean;
}

export interface Comparison {
  measures: string[];
  topics: number;
  test: string;
  correction: string;
  alpha: number;
  /** Set when every run was tested against this one only. */
  baseline?: string;
  runs: LeaderboardRow[];
  /** The pairwise tests (absent from older published leaderboards). */
  pairs?: PairTest[];
  /** Per-topic values by measure and run, in `topicIds` order (stored reports only). */
  perTopic?: Record<string, Record<string, number[]>>;
  topicIds?: string[];
}

export interface CompareResult {
  leaderboards: Array<{ qrels: string; comparison: Comparison }>;
  rankCorrelation?: Record<string, { kendallTauB: number | null; tauAP: number | null }>;
}

export interface ReportSummary {
  id: number;
  kind: 'evaluation' | 'comparison' | 'agreement';
  title: string;
  createdAt: string;
  slugs: string[];
}

export interface Report extends ReportSummary {
  result: unknown;
}

/** What `assay compare --format json` writes (the public leaderboard's `leaderboard`). */
export interface CompareJson {
  test: string;
  correction: string;
  alpha: number;
  measures: string[];
  baseline?: string;
  qrels?: string;
  topics?: number;
  runs?: LeaderboardRow[];
  pairs?: PairTest[];
  leaderboards?: Array<{
    qrels: string;
    topics: number;
    runs: LeaderboardRow[];
    pairs?: PairTest[];
  }>;
  rankCorrelation?: CompareResult['rankCorrelation'];
}

export interface PublicLeaderboard {
  slug: string;
  title: string;
  publishedAt: string;
  leaderboard: CompareJson;
  downloads: Record<string, string>;
}

export interface ResponseSet {
  id: number;
  name: string;
  provenance: Record<string, unknown>;
  responses: number;
  topics: number;
  systems: number;
  createdAt: string;
}

export interface ScoreSet {
  id: number;
  responseSetId: number;
  name: string;
  judgeId: string;
  mode: 'pointwise' | 'comparative' | 'imported';
  criteria: string[];
  settings: Record<string, unknown>;
  scored: number;
  failed: number;
  createdAt: string;
}

export interface Answer {
  topicId: string;
  system: string;
  query: string | null;
  answer: string;
  references: string[] | null;
}

export interface ResponseSetDetail extends ResponseSet {
  answers: Answer[];
  scoreSets: ScoreSet[];
}

export interface AnswerScore {
  topicId: string;
  system: string;
  trial: number;
  scores: Record<string, number> | null;
  justification: string | null;
  label: string | null;
  error: string | null;
  raw: string | null;
}

export interface ScoreSetDetail extends ScoreSet {
  rows: AnswerScore[];
}

/** Per criterion, agreement of two score sets of the same answers (null: undefined). */
export interface CriterionAgreement {
  criterion: string;
  n: number;
  exact: number | null;
  kappaLinear: number | null;
  kappaQuadratic: number | null;
  alphaOrdinal: number | null;
  alphaInterval: number | null;
}

/** A judge template as `/api/judges` lists it. */
export interface JudgeTemplateSummary {
  id: string;
  kind: string;
  scale: { min: number; max: number };
  description: string;
}

/** A grade a person gave one criterion of an answer, as stored. */
export interface HandScore {
  topicId: string;
  system: string;
  criterion: string;
  grade: number;
  updatedAt: string;
}

/** The caller's stored hand scores of a response set and the rubric they are given on. */
export interface HandScores {
  responseSet: { id: number; name: string };
  rubric: {
    judgeId: string;
    description: string;
    criteria: string[];
    scale: { min: number; max: number };
    instructions: string;
  };
  scores: HandScore[];
}

/** `assay answers report --format json`. */
export interface AnswersReport {
  systems: Array<{
    system: string;
    n: number;
    means: Record<string, number>;
    ci: Record<string, [number, number]>;
    winRate: Record<string, number>;
    winRateNormalised: Record<string, number>;
  }>;
  tests: Array<{
    a: string;
    b: string;
    criterion: string;
    test: 'paired' | 'welch';
    statistic: number;
    p: number;
    pAdjusted: number;
    significant: boolean;
  }>;
}

/** The `assay compare --format json` shape as the leaderboard views take it. */
export function fromCompareJson(json: CompareJson): CompareResult {
  const settings = {
    measures: json.measures,
    test: json.test,
    correction: json.correction,
    alpha: json.alpha,
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

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  return (await exchange<T>(method, path, body, token)).body;
}

/**
 * Every item of a paged list: follows the `X-Next-Cursor` of each page (the API pages every
 * list; a page holds 100 or 1000 items unless told) until the last page.
 */
async function listAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let after: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const page: { body: T[]; headers: Headers } = await exchange<T[]>(
      'GET',
      after === null ? path : `${path}${sep}after=${encodeURIComponent(after)}`,
    );
    items.push(...page.body);
    after = page.headers.get('x-next-cursor');
    if (after === null) return items;
  }
}

/** A request and its answer: the parsed body and the headers; ApiError when it failed. */
export async function exchange<T>(
  method: string,
  path: string,
  body?: unknown,
  asToken?: string,
): Promise<{ body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  const token = asToken ?? getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError('network', 'the server cannot be reached', 0);
  }
  if (response.status === 204) return { body: undefined as T, headers: response.headers };
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError('internal', `unexpected answer (${response.status})`, response.status);
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code: string; message: string } })?.error;
    throw new ApiError(
      error?.code ?? 'internal',
      error?.message ?? `HTTP ${response.status}`,
      response.status,
    );
  }
  return { body: parsed as T, headers: response.headers };
}

const enc = encodeURIComponent;

/** Every call the app makes (lists come whole: listAll follows their pages). */
export const api = {
  /** Who the stored token (or `token`) signs in. */
  me: (token?: string) => request<Me>('GET', '/me', undefined, token),
  users: () => listAll<UserSummary>('/users'),
  addUser: (name: string, role: Role) => request<CreatedUser>('POST', '/users', { name, role }),
  issueToken: (id: number) => request<CreatedUser>('POST', `/users/${id}/tokens`),
  revokeUser: (id: number) => request<{ revoked: number }>('POST', `/users/${id}/revoke`),

  collections: () => listAll<Collection>('/collections'),
  collection: (c: string) => request<Collection>('GET', `/collections/${enc(c)}`),
  topics: (c: string) => listAll<Topic>(`/collections/${enc(c)}/topics`),
  runs: (c: string) => listAll<Run>(`/collections/${enc(c)}/runs`),
  labelSets: (c: string) => listAll<LabelSet>(`/collections/${enc(c)}/label-sets`),
  pool: (c: string, runs: string[], depth: number) =>
    request<Pool>('POST', `/collections/${enc(c)}/pools`, { runs, depth }),
  ppi: (body: Record<string, unknown>) => request<PpiResult>('POST', '/ppi', body),
  evaluate: (collection: string, labelSet: string, runs: string[], measures: string[]) =>
    request<Evaluation>('POST', '/evaluations', { collection, labelSet, runs, measures }),

  judgeJobs: (c: string) => listAll<JudgeJob>(`/collections/${enc(c)}/judge-jobs`),
  startJob: (id: number) => request<JudgeJob>('POST', `/judge-jobs/${id}/start`),
  stopJob: (id: number) => request<JudgeJob>('POST', `/judge-jobs/${id}/stop`),
  retryJob: (id: number) => request<JudgeJob>('POST', `/judge-jobs/${id}/retry-failed`),

  campaigns: (c: string) => listAll<Campaign>(`/collections/${enc(c)}/campaigns`),
  createCampaign: (c: string, body: Record<string, unknown>) =>
    request<Campaign>('POST', `/collections/${enc(c)}/campaigns`, body),
  campaign: (id: number) => request<Campaign>('GET', `/campaigns/${id}`),
  agreement: (id: number) => request<CampaignAgreement>('GET', `/campaigns/${id}/agreement`),
  disagreements: (id: number, withLabelSets: boolean) =>
    request<Disagreement[]>(
      'GET',
      `/campaigns/${id}/disagreements${withLabelSets ? '?labelSets=1' : ''}`,
    ),
  adjudicate: (id: number, item: number, grade: number | null) =>
    request<{ item: number; grade: number | null }>(
      'POST',
      `/campaigns/${id}/items/${item}/adjudicate`,
      { grade },
    ),
  adjudicationItem: (id: number, item: number, withLabelSets: boolean) =>
    request<AdjudicationItem>(
      'GET',
      `/campaigns/${id}/adjudication/${item}${withLabelSets ? '?labelSets=1' : ''}`,
    ),
  closeCampaign: (id: number) => request<Campaign>('POST', `/campaigns/${id}/close`),
  reopenCampaign: (id: number) => request<Campaign>('POST', `/campaigns/${id}/reopen`),
  addAnnotators: (id: number, annotators: string[], allItems: boolean) =>
    request<{ added: Array<{ userId: number; name: string; items: number }>; campaign: Campaign }>(
      'POST',
      `/campaigns/${id}/annotators`,
      { annotators, allItems },
    ),
  removeAnnotator: (id: number, user: number) =>
    request<{ kept: number; released: number; message: string; campaign: Campaign }>(
      'DELETE',
      `/campaigns/${id}/annotators/${user}`,
    ),
  campaignDeletion: (id: number) => request<CampaignDeletion>('GET', `/campaigns/${id}/deletion`),
  deleteCampaign: (id: number, force: boolean) =>
    request<CampaignDeletion>('DELETE', `/campaigns/${id}${force ? '?force=true' : ''}`),
  myCampaigns: () => listAll<MyCampaign>('/campaigns'),
  nextItems: (id: number, count: number) =>
    request<NextItems>('GET', `/campaigns/${id}/next-items?count=${count}`),
  item: (id: number, item: number) =>
    request<AnnotationItem>('GET', `/campaigns/${id}/items/${item}`),
  label: (id: number, item: number, grade: number, seconds: number) =>
    request<SavedLabel>('POST', `/campaigns/${id}/labels`, { item, grade, seconds }),
  undo: (id: number, item: number) =>
    request<SavedLabel>('POST', `/campaigns/${id}/labels/${item}/undo`),
  skip: (id: number, item: number) =>
    request<SavedLabel>('POST', `/campaigns/${id}/skip`, { item }),

  reports: (collection: string) => listAll<ReportSummary>(`/reports?collection=${enc(collection)}`),
  report: (id: number) => request<Report>('GET', `/reports/${id}`),
  compare: (body: Record<string, unknown>) => request<Report>('POST', '/reports/comparisons', body),
  publish: (id: number, slug: string) =>
    request<PublishedLeaderboard>('POST', `/reports/${id}/publish`, { slug }),
  unpublish: (slug: string) => request<void>('DELETE', `/leaderboards/${enc(slug)}`),
  publicLeaderboard: (slug: string) =>
    request<PublicLeaderboard>('GET', `/public/leaderboards/${enc(slug)}`),

  responseSets: () => listAll<ResponseSet>('/response-sets'),
  responseSet: (set: string, topic?: string) =>
    request<ResponseSetDetail>(
      'GET',
      `/response-sets/${enc(set)}${topic === undefined ? '' : `?topic=${enc(topic)}`}`,
    ),
  scoreSet: (id: number, topic?: string) =>
    request<ScoreSetDetail>(
      'GET',
      `/score-sets/${id}${topic === undefined ? '' : `?topic=${enc(topic)}`}`,
    ),
  importScoreSet: (set: string, name: string, scores: string, judge?: string) =>
    request<ScoreSet>('POST', `/response-sets/${enc(set)}/score-sets/import`, {
      name,
      scores,
      ...(judge ? { judge } : {}),
    }),
  scoreAgreement: (id: number, other: number) =>
    request<CriterionAgreement[]>('GET', `/score-sets/${id}/agreement/${other}`),
  answersReport: (id: number) => request<AnswersReport>('GET', `/score-sets/${id}/report`),
  judges: () => request<JudgeTemplateSummary[]>('GET', '/judges'),
  handScores: (set: string, judge: string) =>
    request<HandScores>('GET', `/response-sets/${enc(set)}/hand-scores?judge=${enc(judge)}`),
  giveHandScore: (
    set: string,
    score: { judge: string; topic: string; system: string; criterion: string; grade: number },
  ) => request<HandScore>('PUT', `/response-sets/${enc(set)}/hand-scores`, score),
};
