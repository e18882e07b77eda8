// What `assay eval` reads: gzip-compressed files, standard input, and measure names as
// users type them. Expected output comes from trec_eval 10.0's own test files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = `${root}test/fixtures/trec_eval/`;
const qrels = `${fixtures}qrels.test`;
const results = `${fixtures}results.test`;
const expected = readFileSync(`${fixtures}out.test`, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'assay-eval-inputs-'));

function gzipped(path: string, name: string): string {
  const out = join(dir, name);
  writeFileSync(out, gzipSync(readFileSync(path)));
  return out;
}

/** Runs the built `assay` with `input` on standard input. */
function assay(args: string[], input: string) {
  return spawnSync(process.execPath, ['apps/cli/bin/assay.js', ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
  });
}

describe('assay eval inputs', () => {
  it('reads gzip-compressed qrels and runs (.gz)', async () => {
    const { code, stdout, stderr } = await cli(
      'eval',
      gzipped(qrels, 'qrels.test.gz'),
      gzipped(results, 'results.test.gz'),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(expected);
  });

  it('reads the run from standard input (-)', () => {
    const result = assay(['eval', qrels, '-'], readFileSync(results, 'utf8'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(expected);
  });

  it('reads the qrels from standard input (-)', () => {
    const result = assay(['eval', '-', results], readFileSync(qrels, 'utf8'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(expected);
  });

  it('refuses standard input twice', async () => {
    const { code, stderr } = await cli('eval', '-', '-');
    expect(code).toBe(1);
    expect(stderr).toContain('standard input (-) can be read only once');
  });

  it('names an unreadable .gz file', async () => {
    const bad = join(dir, 'bad.gz');
    writeFileSync(bad, 'not gzip');
    const { code, stderr } = await cli('eval', qrels, bad);
    expect(code).toBe(2);
    expect(stderr).toMatch(/bad\.gz: cannot read file/);
  });
});

describe('assay eval measure names', () => {
  const q = join(dir, 'q');
  const r = join(dir, 'r');
  // Topic 1: relevance by rank 0 1 (a at rank 2); topic 2: c relevant at rank 1.
  writeFileSync(q, '1 0 a 1\n1 0 b 0\n2 0 c 1\n');
  writeFileSync(r, '1 Q0 b 1 2 run\n1 Q0 a 2 1 run\n2 Q0 c 1 1 run\n');

  it('prints aliases under the names typed, after the trec_eval measures', async () => {
    const { code, stdout } = await cli('eval', '-m', 'MRR', '-m', 'P_1', '-m', 'map', q, r);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'map                   \tall\t0.7500', // (1/2 + 1) / 2
        'MRR                   \tall\t0.7500',
        'P_1                   \tall\t0.5000',
        '',
      ].join('\n'),
    );
  });

  it('suggests a known name for a typo', async () => {
    const { code, stderr } = await cli('eval', '-m', 'ndgc@10', q, r);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "assay eval: measure 'ndgc@10': unknown measure; did you mean 'nDCG@10'?\n",
    );
  });
});
