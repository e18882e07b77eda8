import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { retrieveStoredRun } from '@assay/platform';
import { describeOnEngines, withDatabase } from './cli-fixtures.js';
import { assay } from './run-cli.js';

describeOnEngines(
  'the index fingerprint of the CLI and of the API',
  {
    prefix: 'assay-fingerprint-',
    files: {
      // Not in docno order: the CLI indexes file order, the API the stored (docno) order.
      'docs.jsonl':
        '{"id":"d3","title":"Wings","text":"wing flutter"}\n{"id":"d1","text":"shock waves"}\n{"id":"d2","text":"heat"}\n',
      'topics.tsv': '1\twing\n',
    },
  },
  (ws) => {
    it('is the same for the same documents', async () => {
      const imported = await assay(
        ws.env,
        'import',
        'collection',
        '--name',
        'c',
        ws.path('docs.jsonl'),
      );
      expect(imported.code, imported.stderr).toBe(0);
      const topics = await assay(
        ws.env,
        'import',
        'topics',
        '--collection',
        'c',
        ws.path('topics.tsv'),
      );
      expect(topics.code, topics.stderr).toBe(0);
      const fromFile = await ws.retrieve(['--method', 'bm25'])('bm25.run');
      expect(fromFile.code, fromFile.stderr).toBe(0);
      const header = /^# index: (sha256:[0-9a-f]{64})$/m.exec(
        readFileSync(ws.path('bm25.run'), 'utf8'),
      );
      expect(header).not.toBeNull();
      const stored = await withDatabase(ws.env, (db) =>
        retrieveStoredRun(db, { collection: 'c', method: 'bm25', tag: 'bm25' }),
      );
      expect(stored.parameters.index).toBe(header![1]);
      // Three commands, the first creating the database: slow on a busy machine.
    }, 120_000);
  },
);
