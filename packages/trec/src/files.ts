import { createReadStream } from 'node:fs';
import { readAllText } from './lines.js';
import { parseQrelsStream } from './qrels.js';
import { parseRunStream } from './run.js';
import { type TopicFormat, parseTopics } from './topics.js';
import type { Qrels, Run, Topic } from './types.js';

/** Reads and parses a TREC run file as a stream; errors name `path` as the file. */
export function readRunFile(path: string): Promise<Run> {
  return parseRunStream(createReadStream(path), path);
}

/** Reads and parses a TREC qrels file as a stream; errors name `path` as the file. */
export function readQrelsFile(path: string): Promise<Qrels> {
  return parseQrelsStream(createReadStream(path), path);
}

/** Reads and parses a topic file (format detected when omitted); errors name `path`. */
export async function readTopicsFile(path: string, format?: TopicFormat): Promise<Topic[]> {
  return parseTopics(await readAllText(createReadStream(path)), path, format);
}
