import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databasePerEngine, scratchDir } from './cli-fixtures.js';
import { assay } from './run-cli.js';

const { file } = scratchDir('assay-export-stored-');

// A run written as assay writes one: topics in byte order ("10" before "9"), each topic
// in rank order, scores in their shortest form; a tie in score (d2, d3) keeps its ranks.
const RUN = [
  '10 Q0 d7 1 3.5 sys',
  '10 Q0 d1 2 -0.25 sys',
  '9 Q0 d2 1 1 sys',
  '9 Q0 d3 2 1 sys',
  '9 Q0 d1 3 1e-7 sys',
  '',
].join('\n');

// The same run as another tool writes it: tabs, trailing zeros, topics out of order.
const LOOSE_RUN = [
  '9\tQ0\td2\t1\t1.000\tsys',
  '10\tQ0\td7\t1\t3.50\tsys',
  '9\tQ0\td1\t3\t0.0000001\tsys',
  '10\tQ0\td1\t2\t-0.250\tsys',
  '9\tQ0\td3\t2\t1.0\tsys',
  '',
].join('\n');

// Qrels as assay writes them: topics and docnos in byte order, iteration 0, negative
// grades (pooled, not judged) kept.
const QRELS = ['10 0 d1 0', '10 0 d7 2', '9 0 d1 -1', '9 0 d2 1', ''].join('\n');

for (const engine of databasePerEngine('assay-export-stored-')) {
  describe(`assay export run|qrels [${engine.kind}]`, () => {
    const env = () => engine.env();
    const docs = file('docs.tsv', 'd1\tone\nd2\ttwo\nd3\tthree\nd7\tseven\n');

    it('gives back an imported run and label set byte for byte', async () => {
      expect(
        (await assay(env(), 'import', 'collection', '--name', 'ex', '--format', 'tsv', docs)).code,
      ).toBe(0);
      expect((await assay(env(), 'import', 'run', '-c', 'ex', file('sys.run', RUN))).code).toBe(0);
      expect(
        (
          await assay(
            env(),
            'import',
            'run',
            '-c',
            'ex',
            '--name',
            'loose',
            file('loose.run', LOOSE_RUN),
          )
        ).code,
      ).toBe(0);
      const q = await assay(
        env(),
        'import',
        'qrels',
        '-c',
        'ex',
        '--label-set',
        'human',
        '--scale',
        '-1:2',
        file('human.qrels', QRELS),
      );
      expect(q.stderr).toBe('');

      const run = await assay(env(), 'export', 'run', '--collection', 'ex', 'sys');
      expect(run).toEqual({ code: 0, stdout: RUN, stderr: '' });
      const qrels = await assay(env(), 'export', 'qrels', '-c', 'ex', 'human');
      expect(qrels).toEqual({ code: 0, stdout: QRELS, stderr: '' });

      // Another layout comes back in assay's (normalised as docs/cli.md says), named as stored.
      const loose = await assay(env(), 'export', 'run', '-c', 'ex', 'loose');
      expect(loose.stdout).toBe(RUN.replaceAll(' sys\n', ' loose\n'));

      // -o writes the file (through a rename) and says what it wrote.
      const out = file('back.run', '');
      const written = await assay(env(), 'export', 'run', '-c', 'ex', 'sys', '-o', out);
      expect(written.code).toBe(0);
      expect(written.stderr).toBe(`wrote ${out}: run "sys", 5 lines\n`);
      expect(readFileSync(out, 'utf8')).toBe(RUN);
    }, 120_000);

    it('names what is missing', async () => {
      const none = await assay(env(), 'export', 'run', '-c', 'ex', 'nope');
      expect(none.code).toBe(3);
      expect(none.stderr).toMatch(/^assay export: .*nope/);
      const noCollection = await assay(env(), 'export', 'qrels', 'human');
      expect(noCollection.code).toBe(1);
      expect(noCollection.stderr).toContain("'export qrels' needs --collection");
      const finetuneOption = await assay(
        env(),
        'export',
        'qrels',
        '-c',
        'ex',
        'human',
        '--balance',
      );
      expect(finetuneOption.stderr).toContain("--balance does not apply to 'export qrels'");
    }, 120_000);
  });
}
