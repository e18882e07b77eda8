import { join } from 'node:path';
import { listRuns, loadConfig, openDatabase } from '@assay/platform';
import { describe, expect, it } from 'vitest';
import { cliWith } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { dir, file } = scratchDir('assay-import-names-');
const env = { ASSAY_DATA_DIR: join(dir, '.assay') };
const assay = (...argv: string[]) => cliWith({ env }, ...argv);
const RULE = 'a name may not be all digits (a number in a path or argument means an id)';

describe('assay import: names may not be all digits', () => {
  it('refuses an all-digit collection, run or label set name with exit 2', async () => {
    const docs = file('docs.tsv', 'a\tapples\n');
    const refused = await assay('import', 'collection', '--name', '2', '--format', 'tsv', docs);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`collection name "2": ${RULE}`);
    expect(
      (await assay('import', 'collection', '--name', 'demo', '--format', 'tsv', docs)).code,
    ).toBe(0);

    const qrels = file('qrels', '1 0 a 1\n');
    const label = await assay('import', 'qrels', '-c', 'demo', '--label-set', '31', qrels);
    expect(label.code).toBe(2);
    expect(label.stderr).toContain(`label set name "31": ${RULE}`);

    // Two files: the second's tag is all digits, so neither is imported.
    const good = file('good.run', '1 Q0 a 1 2.0 bm25\n');
    const digits = file('digits.run', '1 Q0 a 1 2.0 2024\n');
    const run = await assay('import', 'run', '-c', 'demo', good, digits);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${digits}: run tag "2024" is all digits and cannot name the run (a number means an id); give the run a name (--name)`,
    );
    const database = await openDatabase(loadConfig(env));
    try {
      expect(await listRuns(database.db, 'demo')).toEqual([]);
    } finally {
      await database.close();
    }
    const named = await assay('import', 'run', '-c', 'demo', '--name', 'bm25-2024', digits);
    expect(named.code, named.stderr).toBe(0);
  }, 120_000);
});
