// Which qrels `assay compare` reads, under which names, and over which topics.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { parseQrels, type Qrels } from '@assay/trec';
import { readTopics } from '../shell/input-files.js';
import { UsageError } from '../shell/getopt.js';
import { readText, type InputEncoding } from '../shell/read-input.js';

/** One qrels file of a comparison and the name its leaderboard is shown under. */
export interface NamedQrels {
  name: string;
  path: string;
  qrels: Qrels;
}

/**
 * Splits a `--qrels` argument: `NAME=FILE` names the leaderboard (unless the whole argument
 * is an existing file); a plain FILE is shown under its file name (not its directories, so
 * a report shared or published tells nothing of the machine it was made on).
 */
export function qrelsArgument(arg: string): { name: string; path: string; named: boolean } {
  const eq = arg.indexOf('=');
  if (eq > 0 && !existsSync(arg)) {
    const name = arg.slice(0, eq);
    const path = arg.slice(eq + 1);
    if (path === '') throw new UsageError(`--qrels ${arg}: give a file after '='`);
    return { name, path, named: true };
  }
  return { name: basename(arg), path: arg, named: false };
}

/** How topics are chosen when two qrels judge different topic sets. */
export type TopicChoice = 'own' | 'common' | 'first' | { file: string };

/** Parses `--topics common|first|FILE` (absent: each qrels its own topics). */
export function topicChoice(arg: string | undefined): TopicChoice {
  if (arg === undefined) return 'own';
  if (arg === 'common' || arg === 'first') return arg;
  return { file: arg };
}

/**
 * Applies the topic choice: `common` keeps the topics every qrels judges; `first` evaluates
 * every leaderboard on the first qrels' topics; a FILE (any topic format assay reads) on the
 * topics it lists. A chosen topic a qrels does not judge stays in with no judgments, so
 * every run scores 0 on it there (as `assay eval -c` scores a topic a run lacks). Returns
 * the qrels to evaluate and, when the qrels judged different topics and no choice was
 * made, a warning saying so.
 */
export function chooseTopics(
  all: readonly NamedQrels[],
  choice: TopicChoice,
  encoding?: InputEncoding,
): { qrels: NamedQrels[]; warning?: string } {
  const sets = all.map((q) => new Set(q.qrels.keys()));
  const same = sets.every((s) => s.size === sets[0]!.size && [...s].every((t) => sets[0]!.has(t)));
  if (choice === 'own') {
    if (same || all.length < 2) return { qrels: [...all] };
    const common = [...sets[0]!].filter((t) => sets.every((s) => s.has(t))).length;
    const sizes = all.map((q, i) => `${q.name}: ${sets[i]!.size}`).join(', ');
    return {
      qrels: [...all],
      warning:
        `the qrels judge different topics (${sizes}; ${common} in common); each leaderboard ` +
        'averages over its own qrels topics; --topics common|first|FILE evaluates all on one set',
    };
  }
  let wanted: string[];
  if (choice === 'common') wanted = [...sets[0]!].filter((t) => sets.every((s) => s.has(t)));
  else if (choice === 'first') wanted = [...sets[0]!];
  else wanted = topicIdsOf(choice.file, encoding);
  if (wanted.length === 0) throw new UsageError('--topics leaves no topic to evaluate');
  return {
    qrels: all.map((q) => {
      const chosen: Qrels = new Map();
      for (const topic of wanted) chosen.set(topic, q.qrels.get(topic) ?? new Map());
      return { ...q, qrels: chosen };
    }),
  };
}

/** The ids of the topics a topic file lists (any format assay import topics reads). */
export function topicIdsOf(file: string, encoding?: InputEncoding): string[] {
  return readTopics(file, encoding === undefined ? {} : { encoding }).map((t) => t.id);
}

/** Reads each `--qrels` argument into a named qrels. */
export function readNamedQrels(args: readonly string[], encoding?: InputEncoding): NamedQrels[] {
  const parsed = args.map(qrelsArgument);
  // Two files of the same name in different folders keep the paths they were given by.
  const names = parsed.map((q) => q.name);
  return parsed.map(({ name, path, named }) => ({
    name: !named && names.filter((n) => n === name).length > 1 ? path : name,
    path,
    qrels: parseQrels(readText(path, encoding), path),
  }));
}
