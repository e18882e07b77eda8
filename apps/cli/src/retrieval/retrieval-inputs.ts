import { basename } from 'node:path';
import type { AnalyzerConfig } from '@assay/retrieval';
import type { MethodTopic } from '@assay/methods';
import {
  parseCollection,
  parseConversationalTopics,
  type CollectionDocument,
  type CollectionFormat,
} from '@assay/trec';
import { readText } from '../shell/read-input.js';
import { mustBe, UsageError } from '../shell/getopt.js';
import rootPackage from '../../../../package.json' with { type: 'json' };

/** The assay version recorded in run headers and index files. */
export const ASSAY_CLI_VERSION: string = rootPackage.version;

/** The collection format from --format or the file name (.jsonl, .tsv, cran.all*). */
export function collectionFormatOf(format: string | undefined, file: string): CollectionFormat {
  if (format !== undefined) {
    if (format === 'jsonl' || format === 'tsv' || format === 'cranfield') return format;
    throw new UsageError(mustBe('--format', 'one of jsonl, tsv, cranfield', format));
  }
  const name = basename(file).toLowerCase();
  if (/\.jsonl?$/.test(name)) return 'jsonl';
  if (/\.tsv$/.test(name)) return 'tsv';
  if (name.startsWith('cran.all')) return 'cranfield';
  throw new UsageError(`cannot tell the format of ${file}; give --format jsonl, tsv or cranfield`);
}

/** Reads and parses a whole collection file (errors name file:line). */
export function readCollection(file: string, format: string | undefined): CollectionDocument[] {
  return parseCollection(readText(file), file, collectionFormatOf(format, file));
}

/**
 * Reads topics: the Cranfield `cran.qry` layout (a first line `.I …`), numbered by
 * position 1..225 as `cranqrel` numbers them, or any format `assay import topics` reads,
 * with the conversational context of JSONL topics (earlier turns, the user's background)
 * for the methods that use it.
 */
export async function readQueries(file: string): Promise<MethodTopic[]> {
  const text = readText(file);
  if (/^\s*\.I\s/.test(text)) {
    const { parseCranfieldQueries } = await import('@assay/platform');
    return parseCranfieldQueries(text, file).map((q) => ({ id: q.position, text: q.text }));
  }
  return parseConversationalTopics(text, file).map(({ topic, conversation }) => {
    const query: MethodTopic = { id: topic.id, text: topic.text };
    if (conversation?.previousTurns) query.previousTurns = conversation.previousTurns;
    if (conversation?.userBackground) query.userBackground = conversation.userBackground;
    return query;
  });
}

/** The analyzer from --stemmer porter|none and --stopwords english|none|FILE. */
export function analyzerFrom(
  stemmer: string | undefined,
  stopwords: string | undefined,
): AnalyzerConfig {
  if (stemmer !== undefined && stemmer !== 'porter' && stemmer !== 'none')
    throw new UsageError(mustBe('--stemmer', 'one of porter, none', stemmer));
  let list: AnalyzerConfig['stopwords'] = 'english';
  if (stopwords === 'none' || stopwords === 'english') list = stopwords;
  else if (stopwords !== undefined)
    list = readText(stopwords)
      .split(/\s+/)
      .filter((w) => w !== '' && !w.startsWith('#'));
  return { stemmer: (stemmer ?? 'porter') as 'porter' | 'none', stopwords: list };
}
