import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';

async function assay(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
  });
  return { code, stdout, stderr };
}

const SYSTEM =
  'You decide quickly and consistently whether a passage is relevant to a search query. Answer only with the JSON object requested.';
const QUESTION =
  'Is any part of the passage useful for answering the query? Answer with JSON only:\n' +
  '{"relevant": 1} if it is, {"relevant": 0} if it is not.';

let dir: string;
const path = (name: string) => join(dir, name);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-export-'));
  writeFileSync(path('topics.tsv'), '1\tq one\n2\tq two\n');
  writeFileSync(
    path('docs.jsonl'),
    '{"id":"d1","title":"T","text":"alpha"}\n{"id":"d2","text":"beta"}\n',
  );
  writeFileSync(path('labels.qrels'), '1 0 d1 2\n1 0 d2 0\n2 0 d1 1\n2 0 d2 -1\n');
  writeFileSync(path('missing.qrels'), '1 0 d1 2\n1 0 d2 0\n2 0 d9 1\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = () => [
  'export',
  'finetune',
  '--topics',
  path('topics.tsv'),
  '--docs',
  path('docs.jsonl'),
  '--binary-at',
  '2',
];

describe('assay export finetune', () => {
  it('writes one binary-filter example per judged pair, unjudged left out', async () => {
    const result = await assay(...base(), '--labels', path('labels.qrels'));
    expect(result.code).toBe(0);
    const example = (query: string, passage: string, relevant: number) =>
      JSON.stringify({
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Query: ${query}\n\nPassage:\n${passage}\n\n${QUESTION}` },
          { role: 'assistant', content: `{"relevant":${relevant}}` },
        ],
      }) + '\n';
    // 1/d1 grade 2 >= 2: yes; 1/d2 grade 0 and 2/d1 grade 1: no; 2/d2 (-1) unjudged.
    expect(result.stdout).toBe(
      example('q one', 'T\nalpha', 1) +
        example('q one', 'beta', 0) +
        example('q two', 'T\nalpha', 0),
    );

    const out = await assay(...base(), '--labels', path('labels.qrels'), '--out', path('ft.jsonl'));
    expect(out.stderr).toContain('3 examples');
    expect(readFileSync(path('ft.jsonl'), 'utf8')).toBe(result.stdout);
  });

  it('--balance keeps one relevant and one not-relevant pair', async () => {
    const result = await assay(...base(), '--labels', path('labels.qrels'), '--balance');
    const answers = result.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { messages: Array<{ content: string }> }).messages[2]!.content);
    expect(answers.sort()).toEqual(['{"relevant":0}', '{"relevant":1}']);
  });

  it('a document missing from --docs fails with the qrels line (exit 2)', async () => {
    const result = await assay(...base(), '--labels', path('missing.qrels'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${path('missing.qrels')}:3: document d9 is not in ${path('docs.jsonl')}`,
    );
  });

  it('refuses a graded judge and a missing --binary-at', async () => {
    const graded = await assay(
      ...base(),
      '--labels',
      path('labels.qrels'),
      '--judge',
      'graded-0-3',
    );
    expect(graded.code).toBe(1);
    expect(graded.stderr).toContain('fine-tuning examples need a yes/no judge');
    const noCut = await assay(
      'export',
      'finetune',
      '--labels',
      'x',
      '--topics',
      'y',
      '--docs',
      'z',
    );
    expect(noCut.stderr).toContain('--binary-at is required');
  });
});
