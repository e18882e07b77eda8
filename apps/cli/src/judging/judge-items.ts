import type { JudgeTemplate } from '@assay/judge';
import { judgeValues, type JudgeItemInput } from '@assay/platform';
import { buildDepthPool } from '@assay/pooling';
import { parseRun, TrecFormatError, type CollectionDocument } from '@assay/trec';
import { readText } from '../eval/evaluate-files.js';
import { readConversationalTopics, readDocuments } from '../shell/input-files.js';
import { CliError } from '../shell/io.js';
import { EXIT } from '../shell/exit-codes.js';

/** Reads topics, documents and the pool (a file, or built from runs) into judge items. */
export function readItems(input: {
  template: JudgeTemplate;
  topicsFile: string;
  docsFile: string;
  /** The documents' format (--format), else told by the reader. */
  docsFormat?: string | undefined;
  poolFile: string | undefined;
  depth: number | undefined;
  runFiles: readonly string[];
}): JudgeItemInput[] {
  const topics = new Map(readConversationalTopics(input.topicsFile).map((t) => [t.topic.id, t]));
  let pool: Array<{ topic: string; docno: string }>;
  if (input.poolFile !== undefined) pool = parsePoolFile(readText(input.poolFile), input.poolFile);
  else {
    const runs = input.runFiles.map((path) => parseRun(readText(path), path));
    pool = buildDepthPool(runs, { depth: input.depth!, topics: topics.keys() }).items;
  }
  const wanted = new Set(pool.map((p) => p.docno));
  const docs = new Map<string, CollectionDocument>();
  for (const doc of readDocuments(input.docsFile, { format: input.docsFormat }))
    if (wanted.has(doc.id)) docs.set(doc.id, doc);
  const missingTopics = [...new Set(pool.map((p) => p.topic).filter((t) => !topics.has(t)))];
  if (missingTopics.length > 0)
    throw new CliError(
      `${missingTopics.length} pooled topics are not in ${input.topicsFile}: ${preview(missingTopics)}`,
      EXIT.invalidInput,
    );
  const missingDocs = [...wanted].filter((d) => !docs.has(d));
  if (missingDocs.length > 0)
    throw new CliError(
      `${missingDocs.length} pooled documents are not in ${input.docsFile}: ${preview(missingDocs)}`,
      EXIT.invalidInput,
    );
  return pool.map((p) => {
    const { topic, conversation } = topics.get(p.topic)!;
    const doc = docs.get(p.docno)!;
    return {
      topicId: p.topic,
      docId: p.docno,
      values: judgeValues(
        input.template,
        {
          query: topic.text,
          description: topic.description,
          narrative: topic.narrative,
          context: conversation,
        },
        { title: doc.title, text: doc.text },
      ),
    };
  });
}

/** `topic<TAB>docno` lines (any whitespace), as `assay pool` writes them; blank lines skipped. */
export function parsePoolFile(text: string, file: string): Array<{ topic: string; docno: string }> {
  const items: Array<{ topic: string; docno: string }> = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 2)
      throw new TrecFormatError(
        file,
        index + 1,
        `expected topic<TAB>docno, got ${fields.length} fields`,
      );
    const key = `${fields[0]}\t${fields[1]}`;
    if (seen.has(key))
      throw new TrecFormatError(
        file,
        index + 1,
        `topic ${fields[0]} document ${fields[1]} is listed twice`,
      );
    seen.add(key);
    items.push({ topic: fields[0]!, docno: fields[1]! });
  });
  if (items.length === 0) throw new TrecFormatError(file, 0, 'the pool is empty');
  return items;
}

function preview(list: readonly string[]): string {
  return `${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''}`;
}
