// Where methods search: assay's own BM25 index (the default), or a search service the user
// already runs (Anserini's REST API, an Elasticsearch or OpenSearch `_search` endpoint).
import { createAnalyzer, DEFAULT_ANALYZER, type Analyzer } from '@assay/retrieval';
import { rankEntries, type Run } from '@assay/trec';
import {
  ownIndexHasTerm,
  type DocumentText,
  type FirstStage,
  type OwnIndexSearcher,
  type ScoredDoc,
} from './method-context.js';
import { choice, SettingsError, text, type Spell } from './settings.js';

/** One search engine as methods use it: a query in, ranked docnos out. */
export interface SearchService {
  /** The top `k` documents for a query, best first. */
  search(query: string, k: number): Promise<ScoredDoc[]>;
  /** Whether the query has a term the engine can match (an unusable rewrite has none). */
  hasTerm(query: string): boolean;
  /** The text of a document a search returned, when the engine returns texts. */
  textOf?(docno: string): DocumentText | undefined;
}

/** assay's own BM25 index (in memory or on disk) as a search service: the default. */
export class IndexSearch implements SearchService {
  constructor(private readonly searcher: OwnIndexSearcher) {}

  search(query: string, k: number): Promise<ScoredDoc[]> {
    return Promise.resolve(this.searcher.search(query, k));
  }

  hasTerm(query: string): boolean {
    return ownIndexHasTerm(this.searcher, query);
  }
}

/** A search service that failed: unreachable, an HTTP error, or an answer it should not give. */
export class SearchServiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchServiceError';
  }
}

/** The APIs assay speaks with a search service. */
export const SEARCH_APIS = ['anserini', 'elasticsearch'] as const;
export type SearchApi = (typeof SEARCH_APIS)[number];

/** Whether a text is an http(s) URL. */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The search service settings of the methods that search again with generated queries:
 * absent `search`, assay's own index.
 */
export const SEARCH_SETTINGS = {
  search: text(
    "search the generated queries with this service instead of assay's own index: an Anserini REST server or an Elasticsearch/OpenSearch node (documents' texts come from its hits)",
    { arg: 'URL', expects: 'an http(s) URL', check: isHttpUrl },
  ),
  searchApi: choice(
    SEARCH_APIS,
    "the service's API: anserini (GET /api/v1.0/indexes/INDEX/search) or elasticsearch (POST /INDEX/_search, a BM25 match query; OpenSearch too)",
    { onlyWith: { key: 'search' } },
  ),
  searchIndex: text('the index the service searches (an Anserini index name, an Elasticsearch index)', {
    arg: 'NAME',
    onlyWith: { key: 'search' },
  }),
  searchField: text(
    "elasticsearch: the field matched and read as the document's text [contents]",
    { arg: 'FIELD', onlyWith: { key: 'searchApi', value: 'elasticsearch' } },
  ),
};

/**
 * The first-stage setting of the methods that start from BM25 of the topic's query: absent,
 * BM25 over the own index.
 */
export const FIRST_STAGE_SETTINGS = {
  firstStage: text(
    "take each topic's candidates from this TREC run instead of BM25 of its query (the command line: a run file; the API: a stored run of the collection); a topic the run lacks gets no entries and is named",
    { arg: 'RUN' },
  ),
};

/** A run as a first stage: each topic's entries in trec_eval's order (score desc, docno desc). */
export function firstStageOf(name: string, run: Run): FirstStage {
  return {
    name,
    topics: new Map(
      [...run.topics].map(([topic, entries]) => [
        topic,
        rankEntries(entries).map((e) => ({ docno: e.docno, score: e.score })),
      ]),
    ),
  };
}

/** The search settings as parsed. */
export interface SearchSettings {
  search?: string;
  searchApi?: SearchApi;
  searchIndex?: string;
  searchField?: string;
}

/** Checks that a configured service names its API and index (a SettingsError otherwise). */
export function checkSearchSettings(s: SearchSettings, spell: Spell): void {
  if (s.search === undefined) return;
  if (s.searchApi === undefined)
    throw new SettingsError(
      'searchApi',
      `${spell('search')} needs ${spell('searchApi')} (${SEARCH_APIS.join(' or ')})`,
    );
  if (s.searchIndex === undefined)
    throw new SettingsError('searchIndex', `${spell('search')} needs ${spell('searchIndex')}`);
}

/** The configured external service, or undefined for assay's own index. */
export function externalSearch(
  s: SearchSettings,
  fetcher: typeof fetch = fetch,
): SearchService | undefined {
  if (s.search === undefined) return undefined;
  checkSearchSettings(s, (key) => key);
  return s.searchApi === 'elasticsearch'
    ? new ElasticsearchSearch(s.search, s.searchIndex!, s.searchField ?? 'contents', fetcher)
    : new AnseriniSearch(s.search, s.searchIndex!, fetcher);
}

/** The base URL without its trailing slashes. */
function trimmed(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Texts returned by a service's hits, and the analyzer that tells a query with terms. */
abstract class RemoteSearch implements SearchService {
  private readonly texts = new Map<string, DocumentText>();
  private readonly analyzer: Analyzer = createAnalyzer(DEFAULT_ANALYZER);

  constructor(
    /** What errors call the service (its URL and index). */
    protected readonly fetcher: typeof fetch,
  ) {}

  abstract search(query: string, k: number): Promise<ScoredDoc[]>;

  /** A query with a word that is no English stopword: the service's vocabulary is unknown. */
  hasTerm(query: string): boolean {
    return this.analyzer.analyze(query).length > 0;
  }

  textOf(docno: string): DocumentText | undefined {
    return this.texts.get(docno);
  }

  protected keep(docno: string, doc: DocumentText | undefined): void {
    if (doc) this.texts.set(docno, doc);
  }

  /** The JSON answer of a request, or an error naming the URL and what went wrong. */
  protected async json(url: string, init: RequestInit, what: string): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetcher(url, { ...init, signal: AbortSignal.timeout(120_000) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new SearchServiceError(
        `the ${what} search service at ${url} is unreachable: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    const body = await response.text().catch(() => '');
    if (!response.ok)
      throw new SearchServiceError(
        `the ${what} search service at ${url} answered HTTP ${response.status}${body ? `: ${body.slice(0, 200)}` : ''}`,
      );
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw new SearchServiceError(
        `the ${what} search service at ${url} answered something that is not JSON: ${JSON.stringify(body.slice(0, 100))}`,
      );
    }
  }
}

function malformed(what: string, url: string, problem: string): SearchServiceError {
  return new SearchServiceError(`the ${what} search service at ${url} answered malformed results: ${problem}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A document's text from a stored JSON document (`contents`, `segment`, `text`; `title`). */
function storedText(doc: unknown): DocumentText | undefined {
  if (typeof doc === 'string') {
    // Anserini returns the raw stored document: JSON for JSON collections, else the text.
    try {
      const parsed = JSON.parse(doc) as unknown;
      if (isObject(parsed)) return storedText(parsed);
    } catch {
      // not JSON: the text itself
    }
    return { text: doc };
  }
  if (!isObject(doc)) return undefined;
  const body = [doc.contents, doc.segment, doc.text].find((v) => typeof v === 'string') as
    | string
    | undefined;
  if (body === undefined) return undefined;
  return typeof doc.title === 'string' && doc.title !== ''
    ? { title: doc.title, text: body }
    : { text: body };
}

/**
 * Anserini's REST API (`io.anserini.server`, the one Pyserini and the TREC RAG tools call):
 * `GET {url}/api/v1.0/indexes/{index}/search?query=…&hits=k` answers
 * `{"query": {...}, "candidates": [{"docid", "score", "doc"}]}`, `doc` the stored document
 * (its `contents`, `segment` or `text`, and `title`, become the document's text).
 */
export class AnseriniSearch extends RemoteSearch {
  constructor(
    private readonly url: string,
    private readonly index: string,
    fetcher: typeof fetch = fetch,
  ) {
    super(fetcher);
  }

  async search(query: string, k: number): Promise<ScoredDoc[]> {
    const url = `${trimmed(this.url)}/api/v1.0/indexes/${encodeURIComponent(this.index)}/search?query=${encodeURIComponent(query)}&hits=${k}`;
    const json = await this.json(url, { method: 'GET' }, 'Anserini');
    const shown = `${trimmed(this.url)}/api/v1.0/indexes/${this.index}/search`;
    if (!isObject(json) || !Array.isArray(json.candidates))
      throw malformed('Anserini', shown, 'no "candidates" list');
    return json.candidates.slice(0, k).map((c: unknown, i) => {
      if (!isObject(c) || typeof c.docid !== 'string' || typeof c.score !== 'number')
        throw malformed('Anserini', shown, `candidate ${i + 1} lacks a string "docid" or a number "score"`);
      this.keep(c.docid, storedText(c.doc ?? (c.contents === undefined ? undefined : c)));
      return { docno: c.docid, score: c.score };
    });
  }
}

/**
 * Elasticsearch's and OpenSearch's search API: `POST {url}/{index}/_search` with
 * `{"size": k, "query": {"match": {field: query}}}` (BM25, their default similarity)
 * answers `{"hits": {"hits": [{"_id", "_score", "_source"}]}}`; `_source[field]` (and
 * `title`) is the document's text.
 */
export class ElasticsearchSearch extends RemoteSearch {
  constructor(
    private readonly url: string,
    private readonly index: string,
    private readonly field: string,
    fetcher: typeof fetch = fetch,
  ) {
    super(fetcher);
  }

  async search(query: string, k: number): Promise<ScoredDoc[]> {
    const url = `${trimmed(this.url)}/${encodeURIComponent(this.index)}/_search`;
    const json = await this.json(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ size: k, query: { match: { [this.field]: query } } }),
      },
      'Elasticsearch',
    );
    const hits = isObject(json) && isObject(json.hits) ? json.hits.hits : undefined;
    if (!Array.isArray(hits)) throw malformed('Elasticsearch', url, 'no "hits.hits" list');
    return hits.slice(0, k).map((h: unknown, i) => {
      if (!isObject(h) || typeof h._id !== 'string' || typeof h._score !== 'number')
        throw malformed('Elasticsearch', url, `hit ${i + 1} lacks a string "_id" or a number "_score"`);
      const source = isObject(h._source) ? h._source : undefined;
      const body = source?.[this.field];
      if (typeof body === 'string')
        this.keep(
          h._id,
          typeof source!.title === 'string' && source!.title !== ''
            ? { title: source!.title, text: body }
            : { text: body },
        );
      return { docno: h._id, score: h._score };
    });
  }
}
