import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-eval-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const qrels = file('qrels', '1 0 a 1\n1 0 b 0\n2 0 c 2\n');
const runA = file('runA', '1 Q0 a 1 2.0 alpha\n1 Q0 b 2 1.0 alpha\n2 Q0 c 1 1.0 alpha\n');
const runB = file('runB', '1 Q0 b 1 2.0 beta\n1 Q0 a 2 1.0 beta\n2 Q0 x 1 1.0 beta\n');

describe('assay eval', () => {
  it('prints one trec_eval block per run, in argument order', async () => {
    const { code, stdout } = await cli('eval', '-m', 'map', '-m', 'P.1', qrels, runA, runB);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'map                   \tall\t1.0000',
        'P_1                   \tall\t1.0000',
        'map                   \tall\t0.2500', // topic 1: a at rank 2 → 1/2; topic 2: 0
        'P_1                   \tall\t0.0000',
        '',
      ].join('\n'),
    );
  });

  it('gives full-precision rows as JSON and CSV', async () => {
    const json = await cli('eval', '-q', '-m', 'P.3', '--format', 'json', qrels, runA);
    const rows = JSON.parse(json.stdout);
    expect(rows).toContainEqual({ run: 'alpha', measure: 'P_3', qid: '1', value: 1 / 3 });
    expect(rows).toContainEqual({ run: 'alpha', measure: 'P_3', qid: 'all', value: 1 / 3 });
    const csv = await cli('eval', '-m', 'P.3', '--format', 'csv', qrels, runB);
    expect(csv.stdout).toBe(`run,measure,qid,value\nbeta,P_3,all,${(1 / 3 + 0) / 2}\n`);
  });

  it('names file and line of a malformed run and prints no partial table', async () => {
    const bad = file('bad-run', '1 Q0 a 1 2.0 r\n1 Q0 b 2 notanumber r\n');
    const { code, stdout, stderr } = await cli('eval', qrels, runA, bad);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${bad}:2:`);
  });

  it('names file and line of a malformed qrels', async () => {
    const bad = file('bad-qrels', '1 0 a 1\n1 0 b\n');
    const { code, stderr } = await cli('eval', bad, runA);
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}:2:`);
  });

  it('reports a topic missing from the run unless -c is given', async () => {
    const partial = file('partial', '1 Q0 a 1 2.0 p\n');
    const without = await cli('eval', qrels, partial);
    expect(without.code).toBe(4);
    expect(without.stdout).toBe('');
    expect(without.stderr).toMatch(/topic 2 .*-c/);
    const withC = await cli('eval', '-c', '-m', 'map', qrels, partial);
    expect(withC.code).toBe(0);
    expect(withC.stdout).toBe('map                   \tall\t0.5000\n');
  });

  it('rejects unknown measures, options and missing files clearly', async () => {
    expect((await cli('eval', '-m', 'nosuch', qrels, runA)).stderr).toMatch(/unknown measure/);
    const opt = await cli('eval', '-x', qrels, runA);
    expect(opt.code).toBe(1);
    expect(opt.stderr).toMatch(/unknown option -x/);
    const missing = await cli('eval', qrels, join(dir, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope: cannot read file/);
    expect((await cli('eval', qrels)).code).toBe(1);
  });

  it('accepts grouped and attached short options like trec_eval', async () => {
    const grouped = await cli('eval', '-qc', '-mP.1', qrels, runB);
    const spread = await cli('eval', '-q', '-c', '-m', 'P.1', qrels, runB);
    expect(grouped.stdout).toBe(spread.stdout);
    expect(grouped.stdout).toContain('P_1                   \t1\t0.0000');
  });
});
