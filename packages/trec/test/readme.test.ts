// Runs the README example and checks that it prints what its comments say.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as trec from '../src/index.js';

describe('README example', () => {
  it('prints the output written in its comments', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const importLine = /^import \{([^}]*)\} from '@assay\/trec';\n/m;
    const names = importLine
      .exec(code!)![1]!
      .split(',')
      .map((name) => name.trim());
    const body = code!.replace(importLine, '');

    const printed: string[] = [];
    const console = { log: (...values: unknown[]) => printed.push(values.join(' ')) };
    const exports = trec as unknown as Record<string, unknown>;
    new Function('console', ...names, body)(console, ...names.map((name) => exports[name]));

    const expected = body
      .split('\n')
      .filter((line) => /^\s*\/\/ /.test(line))
      .map((line) => line.replace(/^\s*\/\/ /, ''));
    // formatRun's output ends with a newline, which console.log shows as an empty line.
    const lines = printed
      .join('\n')
      .split('\n')
      .filter((line) => line.length > 0);
    expect(lines).toEqual(expected);
  });
});
