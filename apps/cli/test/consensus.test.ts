import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { file } = scratchDir('assay-consensus-');

// Three judges; by hand:
//   item   A  B  C   majority  mean (sum/n)   median
//   1/a    0  1  1   1         2/3 → 1        1
//   1/b    3  2  0   0 (tie)   5/3 → 2        2
//   1/c    2  -1 3   2 (tie)   5/2 → 2 (half) 2 (lower median)
//   2/d    1  .  .   1         1              1   (only A)
const A = file('a.qrels', '1 0 a 0\n1 0 b 3\n1 0 c 2\n2 0 d 1\n');
const B = file('b.qrels', '1 0 a 1\n1 0 b 2\n1 0 c -1\n');
const C = file('c.qrels', '# judge C\n1 0 a 1\n1 0 b 0\n1 0 c 3\n');

describe('assay consensus', () => {
  it('majority by default, as TREC qrels, with a summary on stderr', async () => {
    const r = await cli('consensus', A, B, C);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n');
    expect(r.stderr).toContain('4 items, 3 with disagreeing votes, 2 settled by the tie rule');
  });

  it('mean and median, ties low or high', async () => {
    expect((await cli('consensus', '--method', 'mean', A, B, C)).stdout).toBe(
      '1 0 a 1\n1 0 b 2\n1 0 c 2\n2 0 d 1\n',
    );
    expect((await cli('consensus', '--method', 'mean', '--tie', 'high', A, B, C)).stdout).toBe(
      '1 0 a 1\n1 0 b 2\n1 0 c 3\n2 0 d 1\n',
    );
    expect((await cli('consensus', '--method', 'median', A, B, C)).stdout).toBe(
      '1 0 a 1\n1 0 b 2\n1 0 c 2\n2 0 d 1\n',
    );
    expect((await cli('consensus', '--tie', 'high', A, B, C)).stdout).toBe(
      '1 0 a 1\n1 0 b 3\n1 0 c 3\n2 0 d 1\n',
    );
  });

  it('--min-votes leaves out thinly judged items', async () => {
    const r = await cli('consensus', '--min-votes', '3', A, B, C);
    expect(r.stdout).toBe('1 0 a 1\n1 0 b 0\n');
    expect(r.stderr).toContain('2 left out with fewer than 3 vote(s)');
  });

  it('usage errors exit 1, bad files exit 2 naming file and line', async () => {
    expect((await cli('consensus', A)).code).toBe(1);
    expect((await cli('consensus', '--method', 'mode', A, B)).code).toBe(1);
    expect((await cli('consensus', '--min-votes', '4', A, B, C)).code).toBe(1);
    const bad = file('bad.qrels', '1 0 a 1\n1 0 b x\n');
    const r = await cli('consensus', A, bad);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}:2:`);
  });

  it('on the LLMJudge submissions every test pair gets a label', async () => {
    const fixtures = fileURLToPath(new URL('../../../test/fixtures/llmjudge/', import.meta.url));
    const sets = ['h2oloo-fewself', 'willia-umbrela1', 'TREMA-sumdecompose'].map(
      (s) => `${fixtures}${s}.txt`,
    );
    const r = await cli('consensus', ...sets);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4423);
    expect(r.stderr).toContain('4423 items');
  });
});
