// Parsing a large upload in one go holds the event loop for seconds, and with it every other
// request (health checks included). Fed to a streaming parser in slices, with a turn of the
// event loop between slices, other requests are served while a million-line run is read.
// The server reads an upload as consecutive parts and never joins them: copying 50 MB into
// one string is itself a pause of a tenth of a second.
import { TrecFormatError, refuseNul } from '@assay/trec';
import { nextTurn } from './work-slices.js';

/** A file's text: whole, or in consecutive parts (an upload as it was read). */
export type FileText = string | readonly string[];

/** Characters per slice: about a millisecond or two of parsing. */
const SLICE_CHARS = 256 * 1024;

/** `text` as parts (a whole text is one part). */
function partsOf(text: FileText): readonly string[] {
  return typeof text === 'string' ? [text] : text;
}

/**
 * `text` in slices of about SLICE_CHARS characters (long parts cut, short ones gathered),
 * letting the event loop run other work before each one after the first.
 */
export async function* slicesYielding(text: FileText): AsyncGenerator<string> {
  let first = true;
  let gathered: string[] = [];
  let size = 0;
  async function* flush(): AsyncGenerator<string> {
    if (size === 0) return;
    if (!first) await nextTurn();
    first = false;
    const slice = gathered.length === 1 ? gathered[0]! : gathered.join('');
    gathered = [];
    size = 0;
    yield slice;
  }
  for (const part of partsOf(text)) {
    if (part.length < SLICE_CHARS) {
      gathered.push(part);
      size += part.length;
      if (size >= SLICE_CHARS) yield* flush();
      continue;
    }
    yield* flush();
    for (let start = 0; start < part.length; start += SLICE_CHARS) {
      if (!first) await nextTurn();
      first = false;
      yield part.slice(start, start + SLICE_CHARS);
    }
  }
  yield* flush();
}

/**
 * Refuses a text holding a NUL character (which no text column stores) with the
 * `file:line` of its first one, looking at one part at a time between turns of the event
 * loop.
 */
export async function refuseNulYielding(text: FileText, file: string): Promise<void> {
  const parts = partsOf(text);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0 && i % 64 === 0) await nextTurn();
    if (!parts[i]!.includes('\0')) continue;
    let before = 0;
    for (let k = 0; k < i; k++)
      for (let at = parts[k]!.indexOf('\n'); at !== -1; at = parts[k]!.indexOf('\n', at + 1))
        before++;
    try {
      refuseNul(parts[i]!, file);
    } catch (error) {
      if (!(error instanceof TrecFormatError)) throw error;
      throw new TrecFormatError(file, before + error.line, error.reason);
    }
  }
}

/** Whether `text` holds only whitespace (or nothing). */
export function isBlankText(text: FileText): boolean {
  return partsOf(text).every((part) => part.trim() === '');
}

/** `text` as one string (for the few formats parsed whole). */
export function wholeText(text: FileText): string {
  return typeof text === 'string' ? text : text.join('');
}
