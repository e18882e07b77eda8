// Seeded fuzzing of every parser uploads go through: random bytes and mutated real lines
// (truncated, fields duplicated, NUL injected, huge numbers, invalid UTF-8, CRLF mixes).
// Each parser either returns or throws its own TrecFormatError, whatever it is fed.
import { describe, expect, it } from 'vitest';
import {
  parseCollection,
  parseQrels,
  parseQrelsColumns,
  parseRun,
  parseRunColumns,
  parseTopics,
  refuseNul,
  TrecFormatError,
} from '../src/index.js';
import { seededRandom } from '@assay/test-support/seeded';

const SAMPLES = [
  '301 Q0 d1 1 2.5 bm25\n301 Q0 d2 2 1.25 bm25\n302 Q0 d1 1 -3 bm25\n',
  '301 0 d1 1\n301 0 d2 0\n302 0 d1 -1\n',
  '1\tinternational organized crime\n2\tpolluted water\n',
  '{"id":"1","text":"q one","context":{"a":[1,2]}}\n{"qid":2,"query":"two"}\n',
  '<top>\n<num> Number: 301\n<title> crime\n<desc> Description:\nwhat\n</top>\n',
  '{"id":"d1","title":"t","text":"body","m":{"k":1}}\n{"docid":"d2","contents":"x"}\n',
  'd1\ttitle\ttext one\nd2\ttext two\n',
  '.I 1\n.T\ntitle\n.A\nauthor\n.W\nsome text\n.I 2\n.W\nmore\n',
];

const INSERTS = [
  '\0',
  '\r\n',
  '\r',
  '\t',
  ' ',
  '99999999999999999999',
  '1e400',
  '-',
  '#',
  '{',
  '"',
  '\ufffd',
  '\ud800',
  'x'.repeat(600),
  '<top>',
  '.I',
  '\n',
];

/** One mutation of `text`: bytes or whole pieces replaced, cut, repeated or inserted. */
function mutate(text: string, next: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const at = Math.floor(next() * (text.length + 1));
  switch (Math.floor(next() * 6)) {
    case 0:
      return text.slice(0, at); // truncated
    case 1: {
      const lines = text.split('\n');
      const i = Math.floor(next() * lines.length);
      const fields = lines[i]!.split(/(\s+)/);
      const j = Math.floor(next() * fields.length);
      fields.splice(j, 0, fields[j] ?? '', ' ');
      lines[i] = fields.join('');
      return lines.join('\n'); // a field duplicated
    }
    case 2:
      return text.slice(0, at) + pick(INSERTS) + text.slice(at);
    case 3:
      return text.replace(/\n/g, () => (next() < 0.5 ? '\r\n' : '\n')); // CRLF mix
    case 4: {
      // Invalid UTF-8 bytes in the middle, decoded as a server decodes them.
      const bytes = new TextEncoder().encode(text);
      const out = new Uint8Array(bytes.length + 2);
      out.set(bytes.subarray(0, at));
      out[at] = 0xc3;
      out[at + 1] = next() < 0.5 ? 0x28 : 0xff;
      out.set(bytes.subarray(at), at + 2);
      return new TextDecoder().decode(out);
    }
    default:
      return text.slice(0, at) + text.slice(at).replace(/\d+/, '2147483648');
  }
}

function randomBytesText(next: () => number): string {
  const n = Math.floor(next() * 200);
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = next() < 0.3 ? pick32(next) : Math.floor(next() * 256);
  return new TextDecoder().decode(bytes);
}

/** Mostly printable: separators, digits and letters, so lines get past the first check. */
function pick32(next: () => number): number {
  return ' \t\n0123456789Q-.abc{}":,'.charCodeAt(Math.floor(next() * 24));
}

const PARSERS: Array<[string, (text: string) => unknown]> = [
  ['parseRun', (t) => parseRun(t, 'f', { storage: true })],
  ['parseRun (evaluation)', (t) => parseRun(t, 'f')],
  ['parseRunColumns', (t) => parseRunColumns(t, 'f')],
  ['parseQrels', (t) => parseQrels(t, 'f', { storage: true, scale: { min: 0, max: 3 } })],
  ['parseQrelsColumns', (t) => parseQrelsColumns(t, 'f')],
  ['parseTopics', (t) => parseTopics(t, 'f')],
  ['parseTopics jsonl', (t) => parseTopics(t, 'f', 'jsonl')],
  ['parseTopics trec', (t) => parseTopics(t, 'f', 'trec')],
  ['parseCollection jsonl', (t) => parseCollection(t, 'f', 'jsonl')],
  ['parseCollection tsv', (t) => parseCollection(t, 'f', 'tsv')],
  ['parseCollection cranfield', (t) => parseCollection(t, 'f', 'cranfield')],
  ['refuseNul', (t) => refuseNul(t, 'f')],
];

describe('parsers fed random and mutated input', () => {
  for (const [name, parse] of PARSERS) {
    it(`${name} returns or throws TrecFormatError`, () => {
      const next = seededRandom(20_261_123);
      let refused = 0;
      for (let i = 0; i < 1500; i++) {
        let text = i % 5 === 0 ? randomBytesText(next) : SAMPLES[i % SAMPLES.length]!;
        for (let k = Math.floor(next() * 4); k >= 0 && i % 5 !== 0; k--) text = mutate(text, next);
        try {
          parse(text);
        } catch (error) {
          if (!(error instanceof TrecFormatError))
            throw new Error(`${name} threw ${String(error)} on ${JSON.stringify(text)}`, {
              cause: error,
            });
          expect(error.message.startsWith('f:')).toBe(true);
          refused++;
        }
      }
      // The inputs exercise both outcomes: some are refused, not all.
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(1500);
    });
  }
});
