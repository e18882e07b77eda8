import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = `${root}test/fixtures/trec_eval/`;

describe('the assay executable', () => {
  it('prints the version of the root package with --version', () => {
    const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      version: string;
    };
    const result = spawnSync(process.execPath, ['apps/cli/bin/assay.js', '--version'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`assay ${version}\n`);
  });

  it('is what `npm link` in the checkout puts on the PATH', () => {
    const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      version: string;
    };
    const prefix = mkdtempSync(join(tmpdir(), 'assay-link-'));
    try {
      // A global prefix of its own; no scripts: the bundle is built already.
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      const linked = spawnSync(
        npm,
        ['link', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
        { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_prefix: prefix } },
      );
      expect(linked.status, linked.stderr).toBe(0);
      const result = spawnSync(join(prefix, 'bin', 'assay'), ['--version'], {
        cwd: tmpdir(),
        encoding: 'utf8',
      });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(`assay ${version}\n`);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
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

  it('evaluates several runs on worker threads, in argument order', () => {
    const args = ['-c', '-m', 'all_trec', `${fixtures}qrels.test`];
    const runs = [`${fixtures}results.test`, `${fixtures}results.trunc`, `${fixtures}results.test`];
    const result = spawnSync(
      process.execPath,
      ['apps/cli/bin/assay.js', 'eval', ...args, ...runs],
      // Worker threads even for these small files.
      { cwd: root, encoding: 'utf8', env: { ...process.env, ASSAY_EVAL_THREAD_BYTES: '1' } },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const a = readFileSync(`${fixtures}out.test.a`, 'utf8');
    const aqc = readFileSync(`${fixtures}out.test.aqc`, 'utf8')
      .split('\n')
      .filter((line) => line.includes('\tall\t'))
      .join('\n');
    expect(result.stdout).toBe(`${a}${aqc}\n${a}`);
  });

  it('reports the first bad run in argument order, whichever thread finds it', () => {
    const bad = `${fixtures}qrels.test`; // four columns: not a run
    const result = spawnSync(
      process.execPath,
      [
        'apps/cli/bin/assay.js',
        'eval',
        `${fixtures}qrels.test`,
        `${fixtures}results.test`,
        bad,
        `${fixtures}zscores_file`,
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, ASSAY_EVAL_THREAD_BYTES: '1' } },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `assay eval: ${bad}:1: expected 6 fields (qid Q0 docno rank score tag), found 4\n`,
    );
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
