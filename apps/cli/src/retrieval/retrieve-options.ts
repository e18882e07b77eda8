// The options of `assay retrieve`: the run's own, the lexical feedback options, the model
// options, and every method setting, the last made from the methods' settings schemas.
import {
  compactMethods,
  listOf,
  methodsWithSetting,
  settingDefaults,
  settingsCatalogue,
  type ModelMethod,
} from '@assay/methods';
import { FLAG, integer, number, optionsHelp, type OptionSpec, TEXT } from '../shell/getopt.js';
import { DOCS_FORMAT_OPTION } from '../shell/input-files.js';
import { ANALYZER_OPTIONS } from './retrieval-inputs.js';

/** A count: a whole number, at least 1. */
const COUNT = integer({ min: 1 });

/** The options every method takes (input, output, BM25). */
export const RUN_OPTIONS: OptionSpec[] = [
  {
    long: 'method',
    key: 'method',
    kind: TEXT,
    arg: 'M',
    help: `bm25, rm3, rocchio, rocchio-weighted or qbd; with models: query2doc, amd,
dense, hybrid, grill, gr-qr, gr-ad, gr-qd, gr-aqd, gr-aqd-a, llmforum, srsa,
simple-search, react or rerank (see below)`,
  },
  {
    long: 'docs',
    key: 'docs',
    kind: TEXT,
    arg: 'FILE',
    help: 'collection: JSONL, TSV or Cranfield cran.all.1400, plain or gzip (indexed in memory)',
  },
  DOCS_FORMAT_OPTION,
  {
    long: 'index',
    key: 'index',
    kind: TEXT,
    arg: 'INDEX',
    help: `a saved index (assay index build) instead of --docs; an on-disk one serves bm25
and the methods with models, which read documents' texts from --docs given too`,
  },
  {
    long: 'topics',
    key: 'topics',
    kind: TEXT,
    arg: 'FILE',
    help: 'TSV, JSONL or TREC topics, or Cranfield cran.qry (ids 1..225 by position)',
  },
  { long: 'out', key: 'out', kind: TEXT, arg: 'RUN', help: 'the run file to write' },
  { long: 'k', key: 'k', kind: COUNT, arg: 'N', help: 'documents per topic (default 1000)' },
  { long: 'k1', key: 'k1', kind: number({ min: 0 }), arg: 'X', help: 'BM25 k1 (default 0.9)' },
  { long: 'b', key: 'b', kind: number({ min: 0, max: 1 }), arg: 'Y', help: 'BM25 b (default 0.4)' },
  { long: 'tag', key: 'tag', kind: TEXT, arg: 'NAME', help: 'run tag (default: the method)' },
  ...ANALYZER_OPTIONS,
  {
    long: 'strict',
    key: 'strict',
    kind: FLAG,
    help: `a topic without results is an error: exit status 4 (the run is still
written; the summary names each such topic and why)`,
  },
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

/** Which lexical methods take each feedback option. */
export const LEXICAL_USES: Record<string, string[]> = {
  fbDocs: ['rm3', 'rocchio', 'qbd'],
  fbTerms: ['rm3', 'rocchio', 'rocchio-weighted', 'qbd'],
  fbWeight: ['rm3'],
  alpha: ['rocchio', 'rocchio-weighted'],
  beta: ['rocchio', 'rocchio-weighted'],
  gamma: ['rocchio', 'rocchio-weighted'],
  fbDepth: ['rocchio-weighted'],
  positives: ['rocchio-weighted'],
};

/** The feedback options of the lexical methods (defaults in brackets). */
export const FEEDBACK_OPTIONS: OptionSpec[] = [
  {
    long: 'fb-docs',
    key: 'fbDocs',
    kind: COUNT,
    arg: 'N',
    help: 'feedback documents: rm3 [10], rocchio [10], qbd documents as queries [10]',
  },
  {
    long: 'fb-terms',
    key: 'fbTerms',
    kind: COUNT,
    arg: 'N',
    help: 'expansion terms (rm3, rocchio, rocchio-weighted) or terms per document (qbd) [10]',
  },
  {
    long: 'fb-weight',
    key: 'fbWeight',
    kind: number({ min: 0, max: 1 }),
    arg: 'W',
    help: 'rm3: weight of the original query [0.5]',
  },
  {
    long: 'alpha',
    key: 'alpha',
    kind: number(),
    arg: 'A',
    help: 'Rocchio weights α, β, γ: rocchio [1, 0.75, 0], rocchio-weighted [1, 1, 1]',
  },
  { long: 'beta', key: 'beta', kind: number(), arg: 'B' },
  { long: 'gamma', key: 'gamma', kind: number(), arg: 'G' },
  {
    long: 'fb-depth',
    key: 'fbDepth',
    kind: COUNT,
    arg: 'N',
    help: 'rocchio-weighted: documents re-ranked by cosine [50]',
  },
  {
    long: 'positives',
    key: 'positives',
    kind: COUNT,
    arg: 'N',
    help: 'rocchio-weighted: how many of them are positives [5]',
  },
];

/** The options of the methods that call models, besides the methods' own settings. */
export const MODEL_OPTIONS: OptionSpec[] = [
  {
    long: 'model',
    key: 'model',
    kind: TEXT,
    arg: 'M',
    help: 'chat model (every method here but dense and hybrid)',
  },
  {
    long: 'embedding-model',
    key: 'embeddingModel',
    kind: TEXT,
    arg: 'E',
    help: `embeddings model (dense, hybrid, --aggregation dense, llmforum's dense
method); needs --docs`,
  },
  {
    long: 'reranker-model',
    key: 'rerankerModel',
    kind: TEXT,
    arg: 'M',
    help: "the cross-encoder's model (--reranker cross-encoder)",
  },
  {
    long: 'query-prefix',
    key: 'queryPrefix',
    kind: TEXT,
    arg: 'TEXT',
    help: `put before every query-side text embedded ("query: " for E5 models)`,
  },
  {
    long: 'passage-prefix',
    key: 'passagePrefix',
    kind: TEXT,
    arg: 'TEXT',
    help: `put before every document embedded ("passage: " for E5 models)`,
  },
  {
    long: 'temperature',
    key: 'temperature',
    kind: TEXT,
    arg: 'T',
    help: "sampling temperature of every step (default: each prompt's own, mostly 0)",
  },
  {
    long: 'top-p',
    key: 'topP',
    kind: TEXT,
    arg: 'P',
    help: "top_p of every step (default: the endpoint's)",
  },
  {
    long: 'step-model',
    key: 'stepModel',
    kind: TEXT,
    arg: 'STEP=M',
    help: `the model of one step, by prompt id (gr-answer, grill-gaps, binary-filter,
rankgpt …); repeatable`,
  },
  {
    long: 'step-temperature',
    key: 'stepTemperature',
    kind: TEXT,
    arg: 'STEP=T',
    help: 'the temperature of one step; repeatable',
  },
  {
    long: 'step-top-p',
    key: 'stepTopP',
    kind: TEXT,
    arg: 'STEP=P',
    help: 'the top_p of one step; repeatable',
  },
  {
    long: 'budget',
    key: 'budget',
    kind: number({ min: 0 }),
    arg: 'USD',
    help: `send no call once USD were spent (every model priced: assay's list prices and
the data directory's prices.json)`,
  },
  {
    long: 'dry-run',
    key: 'dryRun',
    kind: FLAG,
    help: 'print the calls, tokens and cost it would take at most; send nothing',
  },
  {
    long: 'concurrency',
    key: 'concurrency',
    kind: COUNT,
    arg: 'N',
    help: 'topics worked on at once [4]',
  },
  {
    long: 'base-url',
    key: 'baseUrl',
    kind: TEXT,
    arg: 'URL',
    help: 'the chat endpoint instead of OPENAI_BASE_URL',
  },
  {
    long: 'embedding-base-url',
    key: 'embeddingBaseUrl',
    kind: TEXT,
    arg: 'URL',
    help: `an endpoint of its own for /v1/embeddings (ASSAY_EMBEDDING_BASE_URL, key
ASSAY_EMBEDDING_API_KEY; default the chat endpoint)`,
  },
  {
    long: 'rerank-base-url',
    key: 'rerankBaseUrl',
    kind: TEXT,
    arg: 'URL',
    help: `an endpoint of its own for /v1/rerank (ASSAY_RERANK_BASE_URL, key
ASSAY_RERANK_API_KEY; default the chat endpoint)`,
  },
  {
    long: 'methods',
    key: 'methods',
    kind: TEXT,
    arg: 'DIR',
    help: 'read method prompts from DIR instead of the shipped methods/',
  },
  {
    long: 'answers',
    key: 'answers',
    kind: TEXT,
    arg: 'FILE',
    help: `methods that answer (llmforum, srsa, simple-search, react): write the answers
as JSONL {topic, system, answer, references, route?} (system = the run tag),
the responses assay answers score reads`,
  },
];

/** Words folded into lines of at most `width` characters. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** The method settings as options: one per setting of any method, from the catalogue. */
export function settingOptions(): OptionSpec[] {
  return settingsCatalogue().map((s) => ({
    long: s.info.flag,
    key: s.key,
    kind: s.info.arg !== undefined ? TEXT : FLAG,
    ...(s.info.arg ? { arg: s.info.arg } : {}),
    help: wrap(
      `${compactMethods(methodsWithSetting(s.key)).join(', ')}: ${s.info.help} [${defaultsOf(s)}]`,
      54,
    ),
  }));
}

function defaultsOf(s: ReturnType<typeof settingsCatalogue>[number]): string {
  if (s.info.kind === 'switch') return 'off';
  if (s.info.kind === 'off-switch') return 'on';
  if (s.info.kind === 'date') return "the clock's";
  const defaults = new Set(s.methods.map((m) => m.default));
  return defaults.size === 1
    ? s.methods[0]!.default === undefined
      ? 'none'
      : String(s.methods[0]!.default)
    : settingDefaults(s);
}

/** Every option of `assay retrieve`, each long name once (getopt's declaration). */
export function retrieveOptionSpecs(): OptionSpec[] {
  const specs = [...RUN_OPTIONS, ...FEEDBACK_OPTIONS, ...MODEL_OPTIONS];
  const seen = new Set(specs.map((s) => s.long));
  for (const s of settingOptions()) if (!seen.has(s.long)) specs.push(s);
  return specs;
}

/** How `assay retrieve` names a setting or field in messages: `--rounds`, `--model`. */
export function cliSpelling(key: string): string {
  if (key === 'steps') return '--step-model/--step-temperature/--step-top-p';
  if (key === 'budgetUsd') return '--budget';
  const setting = settingsCatalogue().find((s) => s.key === key);
  if (setting) return `--${setting.info.flag}`;
  const spec = [...RUN_OPTIONS, ...MODEL_OPTIONS].find((s) => s.key === key);
  return spec?.long ? `--${spec.long}` : `--${key}`;
}

/** The methods a setting flag applies to, as an error says it. */
export function appliesTo(key: string, method: string): string {
  const models = methodsWithSetting(key) as ModelMethod[];
  const lexical = LEXICAL_USES[key];
  const all = [...(lexical ?? []), ...compactMethods(models)];
  return `${cliSpelling(key)} applies to ${listOf(all)} only, not ${method}`;
}

/** The help of `assay retrieve`, its option lists made from the declarations. */
export function retrieveUsage(): string {
  const settings = settingOptions();
  return `Usage: assay retrieve --method METHOD (--docs FILE | --index INDEX [--docs FILE]) --topics FILE --out RUN
                      [--k 1000] [--k1 0.9] [--b 0.4] [--tag NAME] [--strict] [options]

Retrieves the top k documents of every topic and writes a TREC run, ranked as trec_eval
ranks (score desc, docno desc). The run starts with '# key: value' lines recording the
method, analyzer, every setting, index fingerprint and assay version. Every input is read
and checked before anything is written: a bad line fails with file:line and no run is
written. The summary on stderr counts the topics with results and names each topic
without, and why.

${optionsHelp(RUN_OPTIONS)}

Lexical feedback (defaults in brackets):
${optionsHelp(FEEDBACK_OPTIONS)}

Methods with models (the endpoint is OPENAI_BASE_URL / OPENAI_API_KEY, as for judges; every
call is kept in the database's call store, so a rerun sends no request; every generated
text goes to RUN.trace.jsonl; prompts are the files of methods/):
${optionsHelp(MODEL_OPTIONS)}

Method settings (each applies to the methods named; defaults in brackets; docs/methods.md
says which are the papers' and how to run each paper's setting):
${optionsHelp(settings)}

A topic whose answer stays unusable after three attempts, or whose calls fail after their
retries, fails with the reason (no entries). A rewrite or generated query without a term
of the collection falls back to the raw request, and grill's relevance filter rejecting
every first-stage document keeps them: both are traced.

Exit status: 0 written, every topic with results; 1 usage or configuration error;
2 unreadable or malformed input; 4 with --strict, a topic without results (the run is
written); 5 failed topics, or --budget stopped the run (the run holds the rest).`;
}
