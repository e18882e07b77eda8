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
    expect(stderr).toBe(`assay eval: ${bad}: not gzip data, although the name ends in .gz\n`);
  });

  it('recognises gzip by its first bytes: on standard input and without .gz', async () => {
    const gz = gzipSync(readFileSync(results));
    const piped = spawnSync(process.execPath, ['apps/cli/bin/assay.js', 'eval', qrels, '-'], {
      cwd: root,
      input: gz,
      encoding: 'utf8',
    });
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe(expected);
    const unnamed = join(dir, 'results-compressed');
    writeFileSync(unnamed, gz);
    expect((await cli('eval', qrels, unnamed)).stdout).toBe(expected);
    // Files read whole (here -R qrels_jg) are recognised the same way.
    const jg = await cli('eval', '-R', 'qrels_jg', '-m', 'num_q', gzipped(qrels, 'q.gz'), results);
    expect(jg.code).toBe(0);
  });

  it('streams gzip input: a run that inflates to endless zeros stops at one 16 MiB line', () => {
    // 64 MiB of zero bytes compress to about 64 KiB.
    const bomb = join(dir, 'bomb.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    const result = spawnSync(
      process.execPath,
      ['--max-old-space-size=96', 'apps/cli/bin/assay.js', 'eval', qrels, bomb],
      { cwd: root, encoding: 'utf8' },
    );
    expect(result.stderr).toBe(
      `assay eval: ${bomb}:1: the line is longer than 16 MiB (no line end?)\n`,
    );
    expect(result.status).toBe(2);
  });

  it('refuses bytes that are not UTF-8 naming the line, unless --encoding latin1', async () => {
    const latin = join(dir, 'latin1.run');
    writeFileSync(latin, Buffer.from('1 Q0 a 1 2 caf\u00e9\n1 Q0 b 2 1 caf\u00e9\n', 'latin1'));
    const q = join(dir, 'latin1.qrels');
    writeFileSync(q, '1 0 a 1\n');
    const refused = await cli('eval', '-m', 'runid', q, latin);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^assay eval: ${latin}:1: the line is not valid UTF-8 \\(bytes 0xE9 0x0A 0x31 0x20\\)`,
      ),
    );
    const read = await cli('eval', '--encoding', 'latin1', '-m', 'runid', '-m', 'P.1', q, latin);
    expect(read.stdout).toBe(
      'runid                 \tall\tcaf\u00e9\nP_1                   \tall\t1.0000\n',
    );
  });

  it('evaluates the topics a topic file lists (--topics), naming listed topics nobody judged', async () => {
    const topics = join(dir, 'topics.jsonl');
    // qrels.test judges topics 301, 302 and 303 (trec_eval's test collection).
    writeFileSync(topics, '{"id":"302","text":"x"}\n{"id":"77","text":"y"}\n');
    const chosen = await cli(
      'eval',
      '--topics',
      topics,
      '-q',
      '-m',
      'num_q',
      '-m',
      'num_rel',
      qrels,
      results,
    );
    expect(chosen.code).toBe(0);
    expect(chosen.stderr).toBe(
      `assay eval: ${topics}: 1 listed topic(s) have no judgments in ${qrels} and are not evaluated (77)\n`,
    );
    const all = await cli('eval', '-q', '-m', 'num_rel', qrels, results);
    const topic2 = all.stdout.split('\n').find((l) => /\t302\t/.test(l))!;
    expect(chosen.stdout).toBe(
      `${topic2}\nnum_q                 \tall\t1\n${topic2.replace('\t302\t', '\tall\t')}\n`,
    );
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
