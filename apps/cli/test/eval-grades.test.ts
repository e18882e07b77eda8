// Grades of any size, as trec_eval reads them: `assay eval` and `assay compare` keep one
// entry per grade that occurs, never one per grade value up to the highest, so a qrels line
// with grade 2000000000 is evaluated in a small, fixed amount of memory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = `${root}test/fixtures/large-grades/`;
const dir = mkdtempSync(join(tmpdir(), 'assay-eval-grades-'));

/** Runs the built `assay` in a child process whose heap may not grow past 64 MB. */
function assaySmallHeap(args: string[]) {
  return spawnSync(
    process.execPath,
    ['--max-old-space-size=64', 'apps/cli/bin/assay.js', ...args],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
}

// One topic: d1 has grade 2e9, d2 grade 1, d3 grade 0, d4 -2e9 (in the pool, not judged).
const qrels = join(dir, 'huge.qrels');
writeFileSync(qrels, '1 0 d1 2000000000\n1 0 d2 1\n1 0 d3 0\n1 0 d4 -2000000000\n');
// Ranked d3, d1, d4, d2 by score.
const run = join(dir, 'huge.run');
writeFileSync(run, '1 Q0 d3 1 4 r\n1 Q0 d1 2 3 r\n1 Q0 d4 3 2 r\n1 Q0 d2 4 1 r\n');

describe('grades of any size', () => {
  it('gives trec_eval 10.0 output for grades tens of thousands apart (all_trec, -q)', async () => {
    const { code, stdout, stderr } = await cli(
      'eval',
      '-q',
      '-m',
      'all_trec',
      `${fixtures}qrels.sparse`,
      `${fixtures}results.sparse`,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(`${fixtures}out.sparse.aq`, 'utf8'));
  });

  it('gives trec_eval 10.0 output for gain tables over sparse grades (rbp, ndcg, G)', async () => {
    const { code, stdout } = await cli(
      'eval',
      '-q',
      ...['-m', 'rbp.p=0.5,1=0.25,4=2', '-m', 'ndcg.1=3,2=9,4=4.5', '-m', 'G.0=1'],
      ...['-m', 'ndcg_rel.3=0.5', '-m', 'Rndcg', '-m', 'ndcg_cut.1,2,3,10'],
      `${fixtures}qrels.sparse`,
      `${fixtures}results.sparse`,
    );
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(`${fixtures}out.sparse.params`, 'utf8'));
  });

  it('evaluates grades of 2000000000 and -2000000000 exactly, in a 64 MB heap', () => {
    const result = assaySmallHeap([
      'eval',
      '--format',
      'json',
      ...['-m', 'num_rel', '-m', 'P.5', '-m', 'map', '-m', 'ndcg', '-m', 'bpref'],
      qrels,
      run,
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ measure: string; value: number }>;
    const value = (m: string) => rows.find((r) => r.measure === m)!.value;
    // By hand. Relevant (grade ≥ 1): d1 and d2, retrieved at ranks 2 and 4; d4 is unjudged.
    expect(value('num_rel')).toBe(2);
    expect(value('P_5')).toBeCloseTo(2 / 5, 12);
    expect(value('map')).toBeCloseTo((1 / 2 + 2 / 4) / 2, 12);
    // Gains are the grades: DCG = 2e9/log2(3) + 1/log2(5); ideal = 2e9/log2(2) + 1/log2(3).
    const dcg = 2e9 / Math.log2(3) + 1 / Math.log2(5);
    const ideal = 2e9 / Math.log2(2) + 1 / Math.log2(3);
    expect(value('ndcg')).toBeCloseTo(dcg / ideal, 12);
    // The one judged non-relevant document (d3) precedes both relevant ones.
    expect(value('bpref')).toBe(0);
  });

  it('takes a relevance level of 2000000000 (-l) and prints what trec_eval prints', () => {
    const result = assaySmallHeap([
      'eval',
      '-l',
      '2000000000',
      '-m',
      'num_rel',
      '-m',
      'P.5',
      qrels,
      run,
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // Only d1 is relevant at this level: 1 relevant, 1 of 5 retrieved in the top 5.
    expect(result.stdout).toBe(
      'num_rel               \tall\t1\nP_5                   \tall\t0.2000\n',
    );
  });

  it('compares runs over such grades (assay compare)', () => {
    // Paired tests need two topics: topic 2 has d1 at 2e9 and d2 at 0.
    const qrels2 = join(dir, 'huge2.qrels');
    writeFileSync(qrels2, `${readFileSync(qrels, 'utf8')}2 0 d1 2000000000\n2 0 d2 0\n`);
    const run2 = join(dir, 'huge2.run');
    writeFileSync(run2, `${readFileSync(run, 'utf8')}2 Q0 d2 1 2 r\n2 Q0 d1 2 1 r\n`);
    const ideal2 = join(dir, 'ideal2.run');
    writeFileSync(ideal2, '1 Q0 d1 1 4 s\n1 Q0 d2 2 3 s\n1 Q0 d3 3 2 s\n2 Q0 d1 1 1 s\n');
    const result = assaySmallHeap([
      'compare',
      qrels2,
      run2,
      ideal2,
      '-m',
      'ndcg',
      '--format',
      'json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as {
      runs: Array<{ run: string; means: Record<string, number> }>;
    };
    const means = Object.fromEntries(report.runs.map((r) => [r.run, r.means.ndcg]));
    // ideal2 ranks every topic ideally; run2 as computed above (topic 1) and, on topic 2,
    // d1 second: (2e9 / log2(3)) / 2e9.
    const topic1 = (2e9 / Math.log2(3) + 1 / Math.log2(5)) / (2e9 + 1 / Math.log2(3));
    expect(means.s).toBeCloseTo(1, 12);
    expect(means.r).toBeCloseTo((topic1 + 1 / Math.log2(3)) / 2, 12);
  });
});
