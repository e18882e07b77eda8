import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = `${root}test/fixtures/trec_eval/`;

describe('the assay executable', () => {
  beforeAll(() => {
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
  });

  it('runs `assay eval` from the built bundle with trec_eval output', () => {
    const result = spawnSync(
      process.execPath,
      ['apps/cli/bin/assay.js', 'eval', `${fixtures}qrels.test`, `${fixtures}results.test`],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(readFileSync(`${fixtures}out.test`, 'utf8'));
  });

  it('exits non-zero with file:line on a malformed run', () => {
    const result = spawnSync(
      process.execPath,
      ['apps/cli/bin/assay.js', 'eval', `${fixtures}qrels.test`, `${fixtures}qrels.test`],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/qrels\.test:1: /);
  });
});
