import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseQrels,
  parseQrelsStream,
  parseRun,
  parseRunStream,
  parseTopics,
  readQrelsFile,
  readRunFile,
  readTopicsFile,
} from '../src/index.js';
import { byteChunks, formatErrorOf, outcome, stringChunks } from './helpers.js';

const RUN_TEXTS: Record<string, string> = {
  valid:
    '\uFEFF# comment\r\n301\tQ0\tcaf\u00e9-\u{1F600}\t1\t2.5\ttag\r\n\r\n301 Q0 d2 2 -1e-3 tag\r\n302 Q0 d1 1 1 tag',
  'valid, trailing newline': '1 Q0 a 1 1 t\n1 Q0 b 2 0.5 t\n\n',
  'bad field count': '1 Q0 a 1 1 t\r\n1 Q0 b 2 0.5\r\n',
  'bad score': '1 Q0 a 1 1 t\n1 Q0 b 2 1abc t',
  'duplicate docno': '1 Q0 \u00e9 1 1 t\n1 Q0 \u00e9 2 0.5 t\n',
  empty: '# nothing\n\n',
};

const QRELS_TEXTS: Record<string, string> = {
  valid: '# c\r\n1 0 \u00e9 1\r\n1 0 b -1\r\n2 0 a 0',
  'bad relevance': '1 0 a 1\n1 0 b 1.5\n',
  duplicate: '1 0 a 1\n1 0 a 2\n',
  empty: '',
};

describe('streaming parsers give the string parsers’ results and errors', () => {
  for (const [name, text] of Object.entries(RUN_TEXTS)) {
    it(`run: ${name}, cut at every offset, as strings`, async () => {
      const expected = await outcome(() => parseRun(text, 'f'));
      for (let cut = 0; cut <= text.length; cut++) {
        const got = await outcome(() => parseRunStream(stringChunks(text, [cut]), 'f'));
        expect(got, `cut at ${cut}`).toEqual(expected);
      }
      const everyChar = [...Array(text.length).keys()];
      expect(await outcome(() => parseRunStream(stringChunks(text, everyChar), 'f'))).toEqual(
        expected,
      );
    });

    it(`run: ${name}, as UTF-8 bytes in small chunks`, async () => {
      const expected = await outcome(() => parseRun(text, 'f'));
      for (const size of [1, 2, 3, 5, 64]) {
        const got = await outcome(() => parseRunStream(byteChunks(text, size), 'f'));
        expect(got, `chunks of ${size} bytes`).toEqual(expected);
      }
    });
  }

  for (const [name, text] of Object.entries(QRELS_TEXTS)) {
    it(`qrels: ${name}, as strings and as bytes`, async () => {
      const expected = await outcome(() => parseQrels(text, 'f'));
      for (let cut = 0; cut <= text.length; cut++) {
        const got = await outcome(() => parseQrelsStream(stringChunks(text, [cut, cut + 3]), 'f'));
        expect(got, `cuts at ${cut}, ${cut + 3}`).toEqual(expected);
      }
      for (const size of [1, 4, 7]) {
        expect(await outcome(() => parseQrelsStream(byteChunks(text, size), 'f'))).toEqual(
          expected,
        );
      }
    });
  }

  it('reports the same line numbers as the string parser', async () => {
    const text = RUN_TEXTS['bad field count']!;
    await expect(parseRunStream(byteChunks(text, 5), 'f')).rejects.toThrow(
      'f:2: expected 6 fields (qid Q0 docno rank score tag), found 5',
    );
    expect(formatErrorOf(() => parseRun(text, 'f')).line).toBe(2);
  });
});

describe('file readers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-trec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('readRunFile parses a run and names the path in errors', async () => {
    const good = write('good.run', RUN_TEXTS.valid!);
    expect(await readRunFile(good)).toEqual(parseRun(RUN_TEXTS.valid!));
    const bad = write('bad.run', RUN_TEXTS['bad score']!);
    await expect(readRunFile(bad)).rejects.toThrow(`${bad}:2: score "1abc" is not a finite number`);
    const empty = write('empty.run', '');
    await expect(readRunFile(empty)).rejects.toThrow(`${empty}:0: no run lines`);
  });

  it('readQrelsFile parses qrels and names the path in errors', async () => {
    const good = write('good.qrels', QRELS_TEXTS.valid!);
    expect(await readQrelsFile(good)).toEqual(parseQrels(QRELS_TEXTS.valid!));
    const bad = write('bad.qrels', QRELS_TEXTS.duplicate!);
    await expect(readQrelsFile(bad)).rejects.toThrow(
      `${bad}:2: duplicate judgment for topic "1" docno "a" (first at line 1)`,
    );
  });

  it('readTopicsFile detects the format or takes it as given', async () => {
    const tsv = write('topics.tsv', '\uFEFF1\tcaf\u00e9 au lait\r\n2\tb\r\n');
    expect(await readTopicsFile(tsv)).toEqual([
      { id: '1', text: 'caf\u00e9 au lait' },
      { id: '2', text: 'b' },
    ]);
    const jsonl = write('topics.jsonl', '{"id": 1, "text": "a"}\n');
    expect(await readTopicsFile(jsonl)).toEqual(parseTopics('{"id": 1, "text": "a"}'));
    await expect(readTopicsFile(jsonl, 'tsv')).rejects.toThrow(
      `${jsonl}:1: expected id<TAB>text, found no tab`,
    );
  });

  it('passes on a missing file as the file system error', async () => {
    await expect(readRunFile(join(dir, 'missing.run'))).rejects.toThrow(/ENOENT/);
  });
});
