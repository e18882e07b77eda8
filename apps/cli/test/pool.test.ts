import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import { cli } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { file } = scratchDir('assay-pool-');

describe('assay pool', () => {
  // Run A ranks (score desc, ties by docno desc): topic 1 d2 d1 d3 (d1/d2 tie at 2.0).
  const a = file('A', '1 Q0 d1 1 2.0 A\n1 Q0 d2 2 2.0 A\n1 Q0 d3 3 1.0 A\n2 Q0 e1 1 1.0 A\n');
  const b = file('B', '1 Q0 d4 1 9.0 B\n1 Q0 d1 2 8.0 B\n2 Q0 e2 1 3.0 B\n2 Q0 e1 2 2.0 B\n');

  it('prints the depth-k union in judging order, topics interleaved', async () => {
    const { code, stdout } = await cli('pool', '--depth', '1', a, b);
    expect(code).toBe(0);
    // depth 1: topic 1 {d2 (A rank 1), d4 (B rank 1)}, topic 2 {e1 (A), e2 (B)}; best rank
    // ties broken by docno ascending; round-robin over topics.
    expect(stdout).toBe('1\td2\n2\te1\n1\td4\n2\te2\n');
  });

  it('leaves out judged pairs and restricts to given topics', async () => {
    const qrels = file('q', '1 0 d2 1\n2 0 e1 -1\n');
    const topics = file('t', '2\tsecond topic\n');
    const { stdout } = await cli(
      'pool',
      '--depth',
      '2',
      '--exclude-judged',
      qrels,
      '--topics',
      topics,
      a,
      b,
    );
    // topic 2 at depth 2: e1 (A 1, B 2), e2 (B 1); e1 is graded -1, i.e. not judged, so it stays.
    expect(stdout).toBe('2\te1\n2\te2\n');
  });

  it('requires --depth and reports bad runs with file:line', async () => {
    expect((await cli('pool', a)).code).toBe(1);
    const bad = file('bad', '1 Q0 d1 1 x A\n');
    const r = await cli('pool', '--depth', '5', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:1: score "x" is not a finite number`);
  });

  const dl19 = `${SHARED_DATA.replace(/\/$/, '')}/syndl/TREC-DLs-files/TREC-DL-2019/passages-runs`;
  it.skipIf(missingSharedFile(dl19))(
    'pools the three TREC DL 2019 runs at depth 10 into their top-10 union',
    async () => {
      const runs = readdirSync(dl19)
        .sort()
        .map((name) => join(dl19, name));
      const { stdout } = await cli('pool', '--depth', '10', ...runs);
      // The union computed independently: per run and topic, sort by score descending then docno
      // descending, take ten.
      const union = new Set<string>();
      for (const path of runs) {
        const byTopic = new Map<string, Array<[number, string]>>();
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          const f = line.trim().split(/\s+/);
          if (f.length < 6) continue;
          if (!byTopic.has(f[0]!)) byTopic.set(f[0]!, []);
          byTopic.get(f[0]!)!.push([Number(f[4]), f[2]!]);
        }
        for (const [topic, list] of byTopic) {
          list.sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? 1 : -1));
          for (const [, docno] of list.slice(0, 10)) union.add(`${topic}\t${docno}`);
        }
      }
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(3450); // 200 topics
      expect(new Set(lines)).toEqual(union);
    },
  );
});
