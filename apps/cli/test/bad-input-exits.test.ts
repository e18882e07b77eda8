// Files holding what the database cannot store end `assay import` with exit 2 and one
// `file:line: reason` line; an unexpected failure is one short line and exit 70, with the
// stack only under ASSAY_DEBUG=1.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { databasePerEngine, scratchDir } from './cli-fixtures.js';
import { cli, cliWith } from './run-cli.js';

// `assay pool` stands in for any command that fails with a bug.
vi.mock('../src/judging/pool-command.js', () => ({
  POOL_USAGE: 'Usage: assay pool',
  poolCommand: () => {
    throw new TypeError('cannot read x of undefined\n    at minified source line');
  },
}));

const { dir, file } = scratchDir('assay-cli-limits-');
const engines = databasePerEngine('assay-cli-limits-data-');

for (const engine of engines) {
  describe(`assay import of unstorable files [${engine.kind}]`, () => {
    const assay = (...argv: string[]) => cliWith({ env: engine.env() }, ...argv);

    beforeAll(async () => {
      expect((await assay('db', 'migrate')).code).toBe(0);
      const docs = file('docs.tsv', 'd1\tone\n');
      expect((await assay('import', 'collection', '--name', 'c', docs)).code).toBe(0);
    }, 120_000);

    it.each([
      [
        'run',
        'big-rank.run',
        '1 Q0 d1 1 2 s\n1 Q0 d2 99999999999 1 s\n',
        'big-rank.run:2: rank "99999999999" is outside the 32-bit range -2147483648..2147483647',
      ],
      [
        'run',
        'nul.run',
        '1 Q0 d1 1 2 s\n1 Q0 d\u00002 2 1 s\n',
        'nul.run:2: the line contains a NUL character (byte 0)',
      ],
      [
        'qrels',
        'big-grade.qrels',
        '1 0 d1 4294967296\n',
        'big-grade.qrels:1: grade 4294967296 is outside -1000..1000, the grades assay stores',
      ],
      [
        'qrels',
        'long.qrels',
        `1 0 ${'d'.repeat(600)} 1\n`,
        `long.qrels:1: docno "${'d'.repeat(77)}..." is longer than 512 bytes`,
      ],
    ])('import %s %s exits 2 with one file:line line', async (kind, name, text, reason) => {
      const path = file(name, text);
      const args =
        kind === 'run'
          ? ['import', 'run', '--collection', 'c', '--name', 'r', path]
          : ['import', 'qrels', '--collection', 'c', '--label-set', 'q', path];
      const r = await assay(...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.endsWith(`${reason}\n`)).toBe(true);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('refuses undeclared Latin-1 naming file:line, and reads it with --encoding latin1', async () => {
      // "café" and "cafè" in ISO-8859-1: as UTF-8 both would become "caf\ufffd".
      const path = join(dir, 'latin1.qrels');
      writeFileSync(path, Buffer.from('1 0 cafe 1\n1 0 caf\u00e9 0\n1 0 caf\u00e8 1\n', 'latin1'));
      const args = ['import', 'qrels', '--collection', 'c', '--label-set', 'latin'];
      const refused = await assay(...args, path);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `assay import: ${path}:2: the line is not valid UTF-8 (bytes 0xE9 0x20 0x30 0x0A); convert the file to UTF-8, or declare its encoding (--encoding latin1 for ISO-8859-1)\n`,
      );
      const read = await assay(...args, '--encoding', 'latin1', path);
      expect(read.stderr).toBe('');
      expect(read.code).toBe(0);
      expect(read.stdout).toMatch(/: 3 labels over 1 topics\n$/);
    });

    it('refuses CR-only line ends naming line 1 instead of reading one line', async () => {
      const path = file('mac.run', '1 Q0 d1 1 2 s\r1 Q0 d2 2 1 s\r');
      const r = await assay('import', 'run', '--collection', 'c', '--name', 'mac', path);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^assay import: ${path}:1: the line holds a carriage return`),
      );
    });
  });
}

describe('an unexpected failure', () => {
  it('prints one short line and exits 70, without a stack', async () => {
    vi.stubEnv('ASSAY_DEBUG', '');
    const r = await cli('pool', '--depth', '1', 'x.run');
    expect(r).toEqual({
      code: 70,
      stdout: '',
      stderr:
        'assay pool: internal error: cannot read x of undefined\nset ASSAY_DEBUG=1 to see the stack\n',
    });
    vi.unstubAllEnvs();
  });

  it('prints the stack under ASSAY_DEBUG=1', async () => {
    vi.stubEnv('ASSAY_DEBUG', '1');
    const r = await cli('pool', '--depth', '1', 'x.run');
    expect(r.code).toBe(70);
    expect(r.stderr).toMatch(
      /^assay pool: internal error: cannot read x of undefined\nTypeError: /,
    );
    vi.unstubAllEnvs();
  });
});
