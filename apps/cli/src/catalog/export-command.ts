import { checkBinaryTemplate, formatFinetuneJsonl, type FinetunePair } from '@assay/judge';
import { exportLabelSet, exportRun, judgeValues } from '@assay/platform';
import { parseQrels, TrecFormatError } from '@assay/trec';
import { readText } from '../eval/evaluate-files.js';
import {
  commandHelp,
  FILE,
  flagName,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  type OptionSpec,
  type ParsedArgs,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import type { CommandIo } from '../shell/io.js';
import { loadCheckedTemplate } from '../judging/judge-options.js';
import {
  DOCS_FORMAT_OPTION,
  readConversationalTopics,
  readDocuments,
} from '../shell/input-files.js';
import { withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';
import { writeAtomically } from '../shell/write-atomically.js';

export const EXPORT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'collection',
    short: 'c',
    key: 'collection',
    kind: TEXT,
    arg: 'C',
    help: 'run, qrels: the collection (name, or id when all digits)',
  },
  {
    long: 'labels',
    key: 'labels',
    kind: FILE,
    arg: 'QRELS',
    help: 'finetune: TREC qrels (qid iter docno grade)',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: FILE,
    help: `finetune: TSV, JSONL, TREC or cran.qry topics (description and narrative
are used if the template asks for them)`,
  },
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    help: 'finetune: the collection (JSONL, TSV or cran.all.1400, plain or gzip)',
  },
  { ...DOCS_FORMAT_OPTION, help: `finetune: ${DOCS_FORMAT_OPTION.help}` },
  {
    long: 'binary-at',
    key: 'binaryAt',
    kind: integer(),
    arg: 'G',
    help: 'finetune: the lowest grade that counts as relevant',
  },
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'finetune: the judge template [binary-filter]',
  },
  {
    long: 'judges',
    key: 'judges',
    kind: FILE,
    arg: 'DIR',
    help: 'finetune: read templates from DIR',
  },
  {
    long: 'balance',
    key: 'balance',
    kind: FLAG,
    help: 'finetune: keep as many not-relevant pairs as relevant ones (drawn at random)',
  },
  {
    long: 'sample',
    key: 'sample',
    kind: integer({ min: 1 }),
    help: 'finetune: keep N pairs drawn at random (after --balance)',
  },
  {
    long: 'seed',
    key: 'seed',
    kind: integer({ min: 0 }),
    arg: 'S',
    help: 'finetune: seed of the random draws [0]',
  },
  {
    long: 'out',
    short: 'o',
    key: 'out',
    kind: FILE,
    help: 'write here instead of standard output (through a temporary file and a rename)',
  },
  HELP_OPTION,
];

export const EXPORT_USAGE = commandHelp({
  usage: `assay export run --collection C RUN [-o FILE]
       assay export qrels --collection C LABEL_SET [-o FILE]
       assay export finetune --labels QRELS --topics FILE --docs FILE --binary-at G
                             [--judge binary-filter] [--judges DIR] [--sample N] [--seed S]
                             [--balance] [--format F] [--out FILE]`,
  about: `run writes a stored run of collection C (RUN: its name, or its id when all digits) as a
TREC run: qid Q0 docno rank score tag, topics in qid byte order, each topic in rank order
(ties: score descending, then docno), the rank as stored, the score in the shortest form
that reads back to the stored number (2.50 is written 2.5, 1e-7 stays 1e-7) and the run's
stored name as the tag. A run imported with 'assay import run' comes back byte for byte
when its file was written that way.

qrels writes a label set of collection C as TREC qrels: qid 0 docno grade, topics and
docnos in byte order, every stored label (a negative grade too); the iteration column is
always 0.

finetune writes chat fine-tuning JSONL from human judgments: one {"messages": [system,
user, assistant]} line per judged (topic, document) pair, in qrels order. The system and
user messages are the judge template's prompts rendered for the pair exactly as assay
judges it; the assistant message is the template's answer, {"relevant": 1} for a grade
>= G and {"relevant": 0} below (for binary-filter). The judge must be a yes/no relevance
template. Unjudged pairs (negative grades) are left out.`,
  sections: [{ specs: EXPORT_OPTIONS }],
  notes: `A pair whose topic or document is not in the files given fails with qrels:line (exit 2).
Exit status: 0 written; 1 usage or database error; 2 malformed input or an unwritable
file; 3 no such collection, run or label set.`,
});

/** `assay export run|qrels|finetune`. */
export async function exportCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const parsed = getopt(argv, EXPORT_OPTIONS);
  if (parsed.has('help')) {
    io.stdout(`${EXPORT_USAGE}\n`);
    return 0;
  }
  const [what, ...rest] = parsed.positionals;
  if (what === 'run' || what === 'qrels') return exportStored(what, rest, parsed, io);
  if (what !== 'finetune')
    throw new UsageError(
      what === undefined
        ? 'what to export? run, qrels or finetune'
        : `cannot export '${what}'; try run, qrels or finetune`,
    );
  return exportFinetune(rest, parsed, io);
}

/** What only finetune takes. */
const FINETUNE_ONLY = [
  'labels',
  'topics',
  'docs',
  'format',
  'binaryAt',
  'judge',
  'judges',
  'balance',
  'sample',
  'seed',
];

/** `assay export run|qrels`: a stored run or label set as a TREC file. */
async function exportStored(
  what: 'run' | 'qrels',
  names: string[],
  parsed: ParsedArgs,
  io: PlatformCommandIo,
): Promise<number> {
  for (const key of FINETUNE_ONLY)
    if (parsed.has(key))
      throw new UsageError(
        `${flagName(EXPORT_OPTIONS.find((o) => o.key === key)!)} does not apply to 'export ${what}'`,
      );
  const collection = parsed.option('collection');
  if (collection === undefined) throw new UsageError(`'export ${what}' needs --collection`);
  const thing = what === 'run' ? 'RUN' : 'LABEL_SET';
  if (names.length !== 1)
    throw new UsageError(`'export ${what}' takes one ${thing}, not ${names.length}`);
  const out = parsed.option('out');
  return withDatabase(io, async (db) => {
    const exported =
      what === 'run'
        ? await exportRun(db, collection, names[0]!)
        : await exportLabelSet(db, collection, names[0]!);
    if (out === undefined) io.stdout(exported.text);
    else {
      writeAtomically(out, exported.text);
      const count =
        'entries' in exported ? `${exported.entries} lines` : `${exported.labels} labels`;
      io.stderr(`wrote ${out}: ${what} "${exported.name}", ${count}\n`);
    }
    return 0;
  });
}

/** `assay export finetune`: judged pairs as chat fine-tuning examples. */
function exportFinetune(extra: string[], parsed: ParsedArgs, io: CommandIo): number {
  const { options } = parsed;
  if (parsed.has('collection'))
    throw new UsageError("--collection does not apply to 'export finetune'");
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const option = (key: string) => options.get(key)?.at(-1);
  const required = (key: string, flag: string) => {
    const value = option(key);
    if (value === undefined) throw new UsageError(`${flag} is required`);
    return value;
  };
  const labelsFile = required('labels', '--labels');
  const topicsFile = required('topics', '--topics');
  const docsFile = required('docs', '--docs');
  required('binaryAt', '--binary-at');
  const binaryAt = parsed.number('binaryAt')!;
  const sample = parsed.number('sample');
  const seed = parsed.number('seed') ?? 0;
  const template = loadCheckedTemplate(
    option('judge') ?? 'binary-filter',
    option('judges'),
    (t) => {
      try {
        checkBinaryTemplate(t);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    },
  );

  const qrelsText = readText(labelsFile);
  const qrels = parseQrels(qrelsText, labelsFile);
  const topics = new Map(
    readConversationalTopics(topicsFile).map((t) => [
      t.topic.id,
      { ...t.topic, context: t.conversation },
    ]),
  );
  const docs = new Map(readDocuments(docsFile, { format: option('format') }).map((d) => [d.id, d]));
  const lineOf = qrelsLineNumbers(qrelsText);
  const pairs: FinetunePair[] = [];
  for (const [topicId, judged] of qrels) {
    for (const [docno, grade] of judged) {
      if (grade < 0) continue;
      const topic = topics.get(topicId);
      const where = lineOf.get(`${topicId}\t${docno}`) ?? 0;
      if (!topic)
        throw new TrecFormatError(labelsFile, where, `topic ${topicId} is not in ${topicsFile}`);
      const doc = docs.get(docno);
      if (!doc)
        throw new TrecFormatError(labelsFile, where, `document ${docno} is not in ${docsFile}`);
      pairs.push({
        topic: topicId,
        docno,
        grade,
        values: judgeValues(
          template,
          {
            query: topic.text,
            description: topic.description,
            narrative: topic.narrative,
            context: topic.context,
          },
          { title: doc.title, text: doc.text },
        ),
      });
    }
  }
  const jsonl = formatFinetuneJsonl(template, pairs, {
    binaryAt,
    seed,
    ...(sample !== undefined ? { sample } : {}),
    ...(options.has('balance') ? { balance: true } : {}),
  });
  const out = option('out');
  const lines = jsonl === '' ? 0 : jsonl.split('\n').length - 1;
  if (out === undefined) io.stdout(jsonl);
  else {
    writeAtomically(out, jsonl);
    io.stderr(
      `wrote ${out}: ${lines} examples (judge ${template.id}, relevant at grade >= ${binaryAt})\n`,
    );
  }
  return 0;
}

/** The line of each (topic, docno) pair of a qrels file, keyed `qid<TAB>docno`. */
function qrelsLineNumbers(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  text.split('\n').forEach((line, i) => {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 4 && !cols[0]!.startsWith('#')) lines.set(`${cols[0]}\t${cols[2]}`, i + 1);
  });
  return lines;
}
