import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { readQueries } from '../src/retrieval/retrieval-inputs.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-topics-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('topics of assay retrieve', () => {
  it('carry the conversational context of JSONL topics to the methods', async () => {
    const file = join(dir, 'conv.jsonl');
    writeFileSync(
      file,
      [
        '{"id":"1-2","text":"and its price?","previous_turns":["which phone?",{"role":"assistant","text":"The X1."}],"user_background":"student"}',
        '{"id":"1-3","text":"thanks","context":{"previousTurns":[{"role":"user","text":"hi"}],"userBackground":["a","b"]}}',
        '{"id":"2","text":"plain"}',
      ].join('\n'),
    );
    expect(await readQueries(file)).toEqual([
      {
        id: '1-2',
        text: 'and its price?',
        previousTurns: [
          { role: 'user', text: 'which phone?' },
          { role: 'assistant', text: 'The X1.' },
        ],
        userBackground: ['student'],
      },
      {
        id: '1-3',
        text: 'thanks',
        previousTurns: [{ role: 'user', text: 'hi' }],
        userBackground: ['a', 'b'],
      },
      { id: '2', text: 'plain' },
    ]);
  });

  it('a malformed context fails with file:line and exit 2', async () => {
    const topics = join(dir, 'bad.jsonl');
    writeFileSync(topics, '{"id":"1","text":"q"}\n{"id":"2","text":"q","user_background":3}\n');
    const docs = join(dir, 'docs.jsonl');
    writeFileSync(docs, '{"id":"d1","text":"q"}\n');
    let stderr = '';
    const code = await runCli(
      ['retrieve', '--method', 'bm25', '--docs', docs, '--topics', topics, '--out', join(dir, 'o')],
      { stdout: () => {}, stderr: (t) => void (stderr += t) },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${topics}:2: topic "2": "user_background" must be a string or an array of strings`,
    );
  });
});
