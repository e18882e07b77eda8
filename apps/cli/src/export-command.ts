import { checkBinaryTemplate, formatFinetuneJsonl, type FinetunePair } from '@assay/judge';
import { judgeValues } from '@assay/platform';
import { parseConversationalTopics, parseQrels, TrecFormatError } from '@assay/trec';
import { readText } from './evaluate-files.js';
import { FLAG, getopt, type OptionSpec, TEXT, UsageError } from './getopt.js';
import type { CommandIo } from './io.js';
import { loadCheckedTemplate } from './judge-options.js';
import { countOption, numberOption, readCollection } from './retrieval-inputs.js';
import { writeAtomically } from './write-atomically.js';

export const EXPORT_USAGE = `Usage: assay export finetune --labels QRELS --topics FILE --docs FILE --binary-at G
                           [--judge binary-filter] [--judges DIR] [--sample N] [--seed S]
                           [--balance] [--format F] [--out FILE]

Writes chat fine-tuning JSONL from human judgments: one {"messages": [system, user,
assistant]} line per judged (topic, document) pair, in qrels order. The system and user
messages are the judge template's prompts rendered for the pair exactly as assay judges
it; the assistant message is the template's answer, {"relevant": 1} for a grade >= G and
{"relevant": 0} below (for binary-filter). The judge must be a yes/no relevance template.
Unjudged pairs (negative grades) are left out.

  --labels QRELS    TREC qrels (qid iter docno grade)
  --topics FILE     TSV, JSONL or TREC topics (description and narrative are used if the
                    template asks for them)
  --docs FILE       the collection (JSONL, TSV or cran.all.1400); --format as for retrieve
  --binary-at G     the lowest grade that counts as relevant
  --judge ID        the judge template [binary-filter]; --judges DIR reads templates from DIR
  --balance         keep as many not-relevant pairs as relevant ones (drawn at random)
  --sample N        keep N pairs drawn at random (after --balance)
  --seed S          seed of the random draws [0]
  --out FILE        write here instead of standard output
A pair whose topic or document is not in the files given fails with qrels:line (exit 2).`;

const OPTIONS: OptionSpec[] = [
  { long: 'labels', key: 'labels', kind: TEXT },
  { long: 'topics', key: 'topics', kind: TEXT },
  { long: 'docs', key: 'docs', kind: TEXT },
  { long: 'format', key: 'format', kind: TEXT },
  { long: 'binary-at', key: 'binaryAt', kind: TEXT },
  { long: 'judge', key: 'judge', kind: TEXT },
  { long: 'judges', key: 'judges', kind: TEXT },
  { long: 'balance', key: 'balance', kind: FLAG },
  { long: 'sample', key: 'sample', kind: TEXT },
  { long: 'seed', key: 'seed', kind: TEXT },
  { long: 'out', key: 'out', kind: TEXT },
  { short: 'h', long: 'help', key: 'h', kind: FLAG },
];

/** `assay export finetune`: judged pairs as chat fine-tuning examples. */
export function exportCommand(argv: readonly string[], io: CommandIo): number {
  const { options, positionals } = getopt(argv, OPTIONS);
  if (options.has('h')) {
    io.stdout(`${EXPORT_USAGE}\n`);
    return 0;
  }
  const [what, ...extra] = positionals;
  if (what !== 'finetune')
    throw new UsageError(
      what === undefined ? 'what to export? finetune' : `cannot export '${what}'; try finetune`,
    );
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
  const binaryAtText = required('binaryAt', '--binary-at');
  const binaryAt = numberOption('--binary-at', binaryAtText);
  if (!Number.isInteger(binaryAt))
    throw new UsageError(`--binary-at needs an integer grade, not '${binaryAtText}'`);
  const sample = countOption('--sample', option('sample'));
  const seedText = option('seed');
  const seed = seedText === undefined ? 0 : Number(seedText);
  if (!/^\d+$/.test(seedText ?? '0') || !Number.isSafeInteger(seed))
    throw new UsageError(`--seed needs a non-negative integer, not '${seedText}'`);
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
    parseConversationalTopics(readText(topicsFile), topicsFile).map((t) => [
      t.topic.id,
      { ...t.topic, context: t.conversation },
    ]),
  );
  const docs = new Map(readCollection(docsFile, option('format')).map((d) => [d.id, d]));
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
    binaryAt: binaryAt!,
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
