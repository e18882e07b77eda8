import {
  checkRelevanceFormat,
  defaultMeasuresFor,
  formatTrecText,
  resolveMeasures,
  type RelevanceFormat,
  type RunEvaluation,
  type ZScoreTable,
} from '@assay/measures';
import {
  QrelsColumnsParser,
  parsePrefs,
  parseQrelsJg,
  parseQrelsPrefs,
  TrecFormatError,
} from '@assay/trec';
import { csvRow } from '@assay/platform/formats';
import { evaluateRunFiles, readText, type RelevanceInput } from './evaluate-files.js';
import { topicIdsOf } from '../analysis/compare-qrels.js';
import {
  ENCODING_HINT,
  ENCODING_OPTION,
  inputEncoding,
  readChunks,
  type InputEncoding,
} from '../shell/read-input.js';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  oneOf,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { CliError, type CommandIo } from '../shell/io.js';

export const EVAL_OPTIONS: readonly OptionSpec[] = [
  {
    short: 'm',
    long: 'measure',
    key: 'm',
    kind: TEXT,
    arg: 'MEASURE',
    help: `measure, nickname or ir_measures name; repeatable
(official [default], all_trec, set, P.5,10, ndcg_cut.10, nDCG@10,
P(rel=2)@10, AP, RR, R@100, Judged@10, Success@5, Bpref, infAP, Rprec,
ERR@20, nERR@20; aliases in any case such as MAP, MRR@10, ndcg@10,
recall@100, P_10 print under the name typed;
with -R prefs or qrels_prefs: prefs [default], all_prefs;
with -R qrels_jg: qrels_jg [default], map_avgjg, P_avgjg.10)`,
  },
  {
    short: 'R',
    long: 'Rel_info_format',
    key: 'R',
    kind: TEXT,
    arg: 'FORMAT',
    help: `how QRELS is read: qrels (default); qrels_jg (the iter column names
a judgment group); prefs (qid jg jsg docno level lines); qrels_prefs
(qrels read as preferences, the iter column as judgment group)`,
  },
  {
    short: 'q',
    long: 'query_eval_wanted',
    key: 'q',
    kind: FLAG,
    help: 'also print the value for each topic',
  },
  {
    short: 'c',
    long: 'complete_rel_info_wanted',
    key: 'c',
    kind: FLAG,
    help: `average over every qrels topic; topics a run lacks score 0
(without -c such a topic is an error, as in trec_eval 10.0)`,
  },
  {
    short: 'l',
    long: 'level_for_rel',
    key: 'l',
    kind: integer(),
    arg: 'LEVEL',
    help: 'minimum grade that counts as relevant (default 1)',
  },
  {
    short: 'M',
    long: 'Max_retrieved_per_topic',
    key: 'M',
    kind: integer(),
    arg: 'DEPTH',
    help: 'evaluate at most DEPTH documents per topic',
  },
  {
    short: 'J',
    long: 'Judged_docs_only',
    key: 'J',
    kind: FLAG,
    help: 'keep only judged documents in each ranking',
  },
  {
    short: 'N',
    long: 'Number_docs_in_coll',
    key: 'N',
    kind: integer(),
    arg: 'COUNT',
    help: 'number of documents in the collection (for utility)',
  },
  {
    short: 'Z',
    long: 'Zscore',
    key: 'Z',
    kind: FILE,
    arg: 'FILE',
    help: 'print z-scores using the per-topic means and deviations in FILE',
  },
  { short: 'n', long: 'nosummary', key: 'n', kind: FLAG, help: 'no summary lines' },
  {
    short: 'T',
    long: 'Results_format',
    key: 'T',
    kind: TEXT,
    arg: 'FORMAT',
    help: 'how RUN is read: trec_results (the default and only one)',
  },
  {
    long: 'format',
    key: 'format',
    kind: oneOf('text', 'json', 'csv'),
    arg: 'F',
    help: `text (default), json or csv: {run, measure, qid, value} rows at full
precision; qid "all" is the summary, per-topic rows come with -q`,
  },
  {
    long: 'topics',
    key: 'topics',
    kind: FILE,
    arg: 'FILE',
    help: `evaluate only the topics FILE lists (TSV, JSONL or TREC topics, as
assay import topics reads); listed topics the qrels do not judge
are named on stderr`,
  },
  ENCODING_OPTION,
  HELP_OPTION,
];

export const EVAL_USAGE = commandHelp({
  usage: `assay eval [trec_eval options] [-m MEASURE]... QRELS RUN...`,
  about: `Evaluates each RUN against QRELS and prints what trec_eval 10.0 prints for the same
arguments, one block per run in argument order. QRELS or one RUN may be - (standard
input); gzip-compressed input (a .gz file or standard input) is decompressed as it is read,
up to 4 GiB.`,
  sections: [{ specs: EVAL_OPTIONS }],
});

/** `assay eval`: trec_eval-compatible evaluation of one or more runs. */
export async function evalCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = getopt(argv, EVAL_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${EVAL_USAGE}\n`);
    return 0;
  }
  const format = last(options.get('format')) ?? 'text';
  const relFormat = last(options.get('R')) ?? 'qrels';
  if (!REL_FORMATS.includes(relFormat)) {
    throw new CliError(
      `relevance format '${relFormat}' is not supported; use -R ${REL_FORMATS.join(', ')}`,
      1,
    );
  }
  const measureFormat: RelevanceFormat =
    relFormat === 'qrels_jg' ? 'qrels_jg' : relFormat === 'qrels' ? 'qrels' : 'prefs';
  const resultsFormat = last(options.get('T')) ?? 'trec_results';
  if (resultsFormat !== 'trec_results') {
    throw new CliError(
      `results format '${resultsFormat}' is not supported; assay reads TREC runs (-T trec_results)`,
      1,
    );
  }
  if (positionals.length < 2) throw new UsageError('expected QRELS and at least one RUN');
  const [qrelsPath, ...runPaths] = positionals as [string, ...string[]];
  if (positionals.filter((p) => p === '-').length > 1)
    throw new UsageError('standard input (-) can be read only once');

  const measureSpecs = options.get('m') ?? [...defaultMeasuresFor(measureFormat)];
  // Reject unknown measures, and measures the relevance format cannot give, before
  // reading any file.
  checkRelevanceFormat(resolveMeasures(measureSpecs), measureFormat);
  const evaluation = {
    relevanceLevel: parsed.number('l') ?? 1,
    maxDocs: parsed.number('M') ?? Number.MAX_SAFE_INTEGER,
    numDocsInCollection: parsed.number('N') ?? 0,
    judgedOnly: options.has('J'),
    completeTopics: options.has('c'),
    ...(options.has('Z') ? { zscores: readZScores(last(options.get('Z'))!) } : {}),
  };

  // Everything is parsed and evaluated before anything is printed, so a bad line in the
  // last run never leaves a partial table behind.
  const encoding = inputEncoding(options.get('encoding'));
  let qrels = await readRelevance(relFormat, qrelsPath, encoding);
  const topicsFile = last(options.get('topics'));
  if (topicsFile !== undefined) {
    const chosen = onlyTopics(qrels, topicIdsOf(topicsFile, encoding));
    if (chosen.topics === 0)
      throw new CliError(`${topicsFile}: none of the listed topics is judged in ${qrelsPath}`, 2);
    qrels = chosen.qrels;
    if (chosen.unjudged.length > 0)
      io.stderr(
        `assay eval: ${topicsFile}: ${chosen.unjudged.length} listed topic(s) have no judgments in ${qrelsPath} and are not evaluated (${chosen.unjudged
          .slice(0, 5)
          .join(', ')}${chosen.unjudged.length > 5 ? ', …' : ''})\n`,
      );
  }
  const textOptions = {
    perQuery: options.has('q'),
    summary: !options.has('n'),
    zscores: options.has('Z'),
  };
  const evaluated = await evaluateRunFiles(
    qrels,
    runPaths,
    measureSpecs,
    evaluation,
    io.parallelism,
    format === 'text' ? textOptions : undefined,
    encoding,
  );

  if (format === 'text') {
    io.stdout(evaluated.map((r) => r.text ?? formatTrecText(r.result, textOptions)).join(''));
  } else {
    const results: RunEvaluation[] = evaluated.map((r) => r.result);
    const rows = results.flatMap((r) =>
      evaluationRows(r, { perQuery: options.has('q'), summary: !options.has('n') }),
    );
    io.stdout(format === 'json' ? `${JSON.stringify(rows, null, 2)}\n` : toCsv(rows));
  }
  return 0;
}

/** One value of one run as a flat row. */
export interface EvaluationRow {
  run: string;
  measure: string;
  qid: string;
  value: number | string;
}

/** Flattens an evaluation into rows: per-topic values (with -q), then the summary (qid "all"). */
export function evaluationRows(
  r: RunEvaluation,
  include: { perQuery: boolean; summary: boolean },
): EvaluationRow[] {
  const rows: EvaluationRow[] = [];
  for (const topic of include.perQuery ? r.topics : []) {
    r.columns.forEach((col, i) => {
      if (col.perQuery)
        rows.push({ run: r.runid, measure: col.name, qid: topic.qid, value: topic.values[i]! });
    });
  }
  if (include.summary) {
    r.columns.forEach((col, i) => {
      const value = r.summary[i];
      if (value === null || value === undefined || col.aggregate === 'runid') return;
      rows.push({ run: r.runid, measure: col.name, qid: 'all', value });
    });
  }
  return rows;
}

function toCsv(rows: EvaluationRow[]): string {
  return `run,measure,qid,value\n${rows.map((r) => csvRow([r.run, r.measure, r.qid, r.value])).join('\n')}\n`;
}

/** trec_eval's relevance formats (-R). */
const REL_FORMATS = ['qrels', 'qrels_jg', 'prefs', 'qrels_prefs'];

async function readRelevance(
  format: string,
  path: string,
  encoding: InputEncoding,
): Promise<RelevanceInput> {
  switch (format) {
    case 'qrels_jg':
      return { format: 'qrels_jg', qrels: parseQrelsJg(readText(path, encoding), path) };
    case 'prefs':
      return { format: 'prefs', prefs: parsePrefs(readText(path, encoding), path) };
    case 'qrels_prefs':
      return { format: 'prefs', prefs: parseQrelsPrefs(readText(path, encoding), path) };
    default: {
      // Plain qrels are read in chunks straight into columns (large qrels stay small).
      const parser = new QrelsColumnsParser(path, ENCODING_HINT);
      await readChunks(path, (chunk) => parser.push(chunk), encoding);
      return { format: 'qrels-columns', qrels: parser.end() };
    }
  }
}

/**
 * The relevance information of the `wanted` topics only, and the wanted topics it has no
 * judgments for (which trec_eval could not evaluate either).
 */
function onlyTopics(
  input: RelevanceInput,
  wanted: readonly string[],
): { qrels: RelevanceInput; topics: number; unjudged: string[] } {
  const keep = <V>(all: Map<string, V>): Map<string, V> => {
    const kept = new Map<string, V>();
    for (const topic of wanted) if (all.has(topic)) kept.set(topic, all.get(topic)!);
    return kept;
  };
  const all: Map<string, unknown> =
    input instanceof Map ? input : input.format === 'prefs' ? input.prefs : input.qrels;
  const unique = [...new Set(wanted)];
  const unjudged = unique.filter((t) => !all.has(t));
  const counts = { topics: unique.length - unjudged.length, unjudged };
  if (input instanceof Map) return { qrels: keep(input), ...counts };
  if (input.format === 'qrels-columns')
    return { qrels: { format: 'qrels-columns', qrels: keep(input.qrels) }, ...counts };
  if (input.format === 'qrels_jg')
    return { qrels: { format: 'qrels_jg', qrels: keep(input.qrels) }, ...counts };
  return { qrels: { format: 'prefs', prefs: keep(input.prefs) }, ...counts };
}

function last(values: string[] | undefined): string | undefined {
  return values?.[values.length - 1];
}

function readZScores(path: string): ZScoreTable {
  const table: ZScoreTable = new Map();
  const lines = readText(path).split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const fields = line.trim().split(/\s+/);
    const [qid, measure, mean, stddev] = fields;
    if (fields.length !== 4 || !Number.isFinite(Number(mean)) || !Number.isFinite(Number(stddev))) {
      throw new TrecFormatError(path, index + 1, 'expected 4 fields (qid measure mean stddev)');
    }
    let forTopic = table.get(qid!);
    if (!forTopic) table.set(qid!, (forTopic = new Map()));
    forTopic.set(measure!, { mean: Number(mean), stddev: Number(stddev) });
  });
  return table;
}
