// `assay pool --stats` prints what the README says: the pool size, the size of each topic
// and each run's contribution.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-pool-stats-'));
const runA = join(dir, 'a');
const runB = join(dir, 'b');
// Depth 2. Topic 1: A's top 2 {x, y}, B's {y, z} -> pool {x, y, z}. Topic 2: A {p}, B {p}.
writeFileSync(runA, '1 Q0 x 1 3 A\n1 Q0 y 2 2 A\n1 Q0 w 3 1 A\n2 Q0 p 1 1 A\n');
writeFileSync(runB, '1 Q0 y 1 3 B\n1 Q0 z 2 2 B\n2 Q0 p 1 1 B\n');

describe('assay pool --stats', () => {
  it('prints the pool size, each topic size and each run contribution to stderr', async () => {
    const { code, stderr } = await cli('pool', '--depth', '2', '--stats', runA, runB);
    expect(code).toBe(0);
    expect(stderr).toBe(
      [
        'pool: 4 pairs over 2 topics',
        '  topic 1: 3 pairs',
        '  topic 2: 1 pairs',
        '  A: 3 contributed, 1 only from this run', // x, y, p; only x is A's alone
        '  B: 3 contributed, 1 only from this run', // y, z, p; only z is B's alone
        '',
      ].join('\n'),
    );
  });
});
