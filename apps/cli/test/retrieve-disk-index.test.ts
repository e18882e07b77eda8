import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines } from './cli-fixtures.js';
import { assay } from './run-cli.js';

describeOnEngines(
  'assay retrieve --index: an on-disk index for the methods with models',
  {
    prefix: 'assay-disk-cli-',
    files: {
      'docs.jsonl': ALPHA_BETA_GAMMA_DOCS,
      'topics.jsonl': '{"id":"1","text":"beta"}\n',
    },
  },
  (ws) => {
    const fingerprintOf = (stdout: string) => /(sha256:[0-9a-f]{64})/.exec(stdout)?.[1];

    it('gr-qd over the on-disk index gives the run the in-memory index gives; grill is refused', async () => {
      const built = await assay(
        ws.env,
        'index',
        'build',
        '--docs',
        ws.path('docs.jsonl'),
        '--out',
        ws.path('disk.index'),
        '--on-disk',
      );
      expect(built.code).toBe(0);
      await ws.double.start(() => ({
        reply: JSON.stringify({ queries: ['alpha', 'gamma', 'beta'] }),
      }));
      const memory = await ws.retrieve(
        ['--method', 'gr-qd', '--model', 'm'],
        'topics.jsonl',
      )('memory.run');
      expect(memory.code).toBe(0);
      const disk = await assay(
        { ...ws.env, OPENAI_BASE_URL: ws.double.server!.baseURL },
        'retrieve',
        '--method',
        'gr-qd',
        '--model',
        'm',
        '--index',
        ws.path('disk.index'),
        '--topics',
        ws.path('topics.jsonl'),
        '--out',
        ws.path('disk.run'),
      );
      expect(disk.stderr).toContain('3 entries; results for 1 of 1 topic (gr-qd)');
      expect(disk.code).toBe(0);
      // BM25 lists alpha [d1], gamma [d3], beta [d2 d1] (d2 is shorter); round robin: d1, d3, d2.
      expect(ws.runEntries('disk.run').map((l) => l.split(/\s+/).slice(0, 5).join(' '))).toEqual([
        '1 Q0 d1 1 3',
        '1 Q0 d3 2 2',
        '1 Q0 d2 3 1',
      ]);
      expect(ws.runEntries('disk.run')).toEqual(ws.runEntries('memory.run'));

      // grill's query-by-document reads term vectors, which the on-disk index lacks.
      const grill = await assay(
        ws.env,
        'retrieve',
        '--method',
        'grill',
        '--model',
        'm',
        '--index',
        ws.path('disk.index'),
        '--docs',
        ws.path('docs.jsonl'),
        '--topics',
        ws.path('topics.jsonl'),
        '--out',
        ws.path('grill.run'),
      );
      expect(grill.code).toBe(1);
      expect(grill.stderr).toContain(
        '--method grill reads them (query-by-document, tf-idf feedback): build an index without --on-disk or give --docs alone',
      );
      // The lexical methods other than bm25 read term vectors too.
      const rm3 = await assay(
        ws.env,
        'retrieve',
        '--method',
        'rm3',
        '--index',
        ws.path('disk.index'),
        '--topics',
        ws.path('topics.jsonl'),
        '--out',
        ws.path('rm3.run'),
      );
      expect(rm3.code).toBe(1);
      expect(rm3.stderr).toContain('which serves bm25 and the methods with models');
    }, 300_000);

    it("assay index build --collection --on-disk writes a stored collection's index under the data directory", async () => {
      const imported = await assay(
        ws.env,
        'import',
        'collection',
        '--name',
        'abg',
        ws.path('docs.jsonl'),
      );
      expect(imported.code).toBe(0);
      const fromFile = await assay(
        ws.env,
        'index',
        'build',
        '--docs',
        ws.path('docs.jsonl'),
        '--out',
        ws.path('file.index'),
        '--on-disk',
      );
      const first = await assay(ws.env, 'index', 'build', '--collection', 'abg', '--on-disk');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('indexed 3 documents of collection "abg" on disk');
      const file = /wrote (\S+) \(/.exec(first.stdout)?.[1];
      expect(file).toMatch(/[/\\]indexes[/\\]collection-\d+\.bm25$/);
      expect(file!.startsWith(join(ws.dir, 'data'))).toBe(true);
      expect(existsSync(file!)).toBe(true);
      // The stored documents are the file's: one fingerprint.
      expect(fingerprintOf(first.stdout)).toBe(fingerprintOf(fromFile.stdout));
      const again = await assay(ws.env, 'index', 'build', '--collection', 'abg', '--on-disk');
      expect(again.stdout).toContain(', replacing the index built before');

      const usage = await assay(ws.env, 'index', 'build', '--collection', 'abg');
      expect(usage.code).toBe(1);
      expect(usage.stderr).toContain(
        "--collection builds the stored collection's on-disk index: give --on-disk",
      );
      const missing = await assay(ws.env, 'index', 'build', '--collection', 'nope', '--on-disk');
      expect(missing.stderr).toContain('no collection "nope"');
    }, 300_000);
  },
);
