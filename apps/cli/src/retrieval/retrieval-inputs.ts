import type { AnalyzerConfig } from '@assay/retrieval';
import type { MethodTopic } from '@assay/methods';
import { readConversationalTopics } from '../shell/input-files.js';
import { readText } from '../shell/read-input.js';
import { oneOf, type OptionSpec, TEXT } from '../shell/getopt.js';
import rootPackage from '../../../../package.json' with { type: 'json' };

/** The assay version recorded in run headers and index files. */
export const ASSAY_CLI_VERSION: string = rootPackage.version;

/**
 * Reads topics in any format the topics reader tells (TSV, JSONL, TREC, or Cranfield's
 * `cran.qry`, numbered by position 1..225 as `cranqrel` numbers them), with the
 * conversational context of JSONL topics (earlier turns, the user's background) for the
 * methods that use it.
 */
export function readQueries(file: string): MethodTopic[] {
  return readConversationalTopics(file).map(({ topic, conversation }) => {
    const query: MethodTopic = { id: topic.id, text: topic.text };
    if (conversation?.previousTurns) query.previousTurns = conversation.previousTurns;
    if (conversation?.userBackground) query.userBackground = conversation.userBackground;
    return query;
  });
}

/** The analyzer's options, declared once for `assay index build` and `assay retrieve`. */
export const ANALYZER_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'stemmer',
    key: 'stemmer',
    kind: oneOf('porter', 'none'),
    arg: 'S',
    help: 'porter (default) or none',
  },
  {
    long: 'stopwords',
    key: 'stopwords',
    kind: TEXT,
    arg: 'W',
    help: 'english (default), none, or a file of words',
  },
];

/**
 * The analyzer from --stemmer porter|none and --stopwords english|none|FILE (values
 * checked by ANALYZER_OPTIONS as they are parsed).
 */
export function analyzerFrom(
  stemmer: string | undefined,
  stopwords: string | undefined,
): AnalyzerConfig {
  let list: AnalyzerConfig['stopwords'] = 'english';
  if (stopwords === 'none' || stopwords === 'english') list = stopwords;
  else if (stopwords !== undefined)
    list = readText(stopwords)
      .split(/\s+/)
      .filter((w) => w !== '' && !w.startsWith('#'));
  return { stemmer: (stemmer ?? 'porter') as 'porter' | 'none', stopwords: list };
}
