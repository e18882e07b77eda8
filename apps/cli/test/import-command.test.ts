import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateRuns, listLabelSets, listRuns } from '@assay/platform';
import { describe, expect, it } from 'vitest';
import { databasePerEngine, scratchDir, withDatabase } from './cli-fixtures.js';
import { assay, cli } from './run-cli.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/trec_eval/', import.meta.url));
const { dir, file } = scratchDir('assay-import-cli-');

/** A run of `lines` lines, 1,000 per topic. */
function bigRun(lines: number, tag: string): string[] {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++)
    out.push(
      `${1 + Math.floor((i - 1) / 1000)} Q0 doc${i} ${((i - 1) % 1000) + 1} ${1 / i} ${tag}`,
    );
  return out;
}

// One database per engine: embedded PGlite under a temporary ASSAY_DATA_DIR, and, when
// TEST_DATABASE_URL is set, PostgreSQL in a schema of its own.
const engines = databasePerEngine('assay-cli-data-');

for (const engine of engines) {
  describe(`assay import, datasets, db [${engine.kind}]`, () => {
    const env = () => engine.env();
    /** Imports a one-document collection `name` from the TSV file `docs` (written first). */
    const importTsvCollection = (name: string, docs: string) =>
      assay(
        env(),
        'import',
        'collection',
        '--name',
        name,
        '--format',
        'tsv',
        file(docs, 'd1\tx\n'),
      );

    it('migrates, then says the database is up to date', async () => {
      const first = await assay(env(), 'db', 'migrate');
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(
        /^(applied 0001_create_core_tables\.sql\n.*applied|.*up to date)/s,
      );
      const again = await assay(env(), 'db', 'migrate');
      expect(again.stdout).toMatch(/: up to date \(\d+ migration\(s\)\)\n$/);
    }, 120_000);

    it('imports a collection, topics, qrels and runs whose evaluation matches `assay eval -c`', async () => {
      const docs = file('docs.jsonl', '{"id":"d1","text":"one"}\n{"docid":"d2","text":"two"}\n');
      const c = await assay(env(), 'import', 'collection', '--name', 'trec', docs);
      expect(c.stderr).toBe('');
      expect(c.stdout).toMatch(
        /^imported collection "trec" \(id \d+\) from .*docs\.jsonl: 2 documents in [\d.]+ s \(\d+ documents\/s\)\n$/,
      );
      const topics = file('topics.tsv', '1\tfirst\n2\tsecond\n');
      expect(await assay(env(), 'import', 'topics', '--collection', 'trec', topics)).toMatchObject({
        code: 0,
        stdout: `imported 2 topics into collection "trec" from ${topics}\n`,
      });
      const q = await assay(
        env(),
        'import',
        'qrels',
        '--collection',
        'trec',
        '--label-set',
        'nist',
        `${fixtures}qrels.test`,
      );
      expect(q.stderr).toBe('');
      expect(q.stdout).toMatch(
        /^imported label set "nist" \(id \d+, grades 0\.\.1\) from .*: 3681 labels over 3 topics\n$/,
      );
      // Both fixture runs carry the tag STANDARD: name them apart.
      for (const [name, path] of [
        ['full', `${fixtures}results.test`],
        ['trunc', `${fixtures}results.trunc`],
      ] as const) {
        const r = await assay(env(), 'import', 'run', '--collection', 'trec', '--name', name, path);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(
          new RegExp(
            `^imported run "${name}" \\(id \\d+, \\d+ topics\\) from results\\.\\w+: \\d+ lines in [\\d.]+ s \\(\\d+ lines/s\\)\\n$`,
          ),
        );
      }
      const measures = [
        'map',
        'P.5,10',
        'ndcg_cut.10',
        'recip_rank',
        'bpref',
        'Rprec',
        'num_rel_ret',
      ];
      const stored = await withDatabase(env(), (db) =>
        evaluateRuns(db, {
          collection: 'trec',
          labelSet: 'nist',
          runs: ['full', 'trunc'],
          measures,
        }),
      );
      const files = await cli(
        'eval',
        '-c',
        '-q',
        '--format',
        'json',
        ...measures.flatMap((m) => ['-m', m]),
        `${fixtures}qrels.test`,
        `${fixtures}results.test`,
        `${fixtures}results.trunc`,
      );
      expect(files.code).toBe(0);
      const rows = JSON.parse(files.stdout) as Array<{
        run: string;
        measure: string;
        qid: string;
        value: number;
      }>;
      const values = rows.filter((r) => r.measure !== 'runid' && r.measure !== 'num_q');
      expect(values.length).toBe(2 * (3 + 1) * 8); // 2 runs × (3 topics + all) × 8 values
      // eval prints the runs in argument order, both tagged STANDARD: split them by position.
      const perRun = [values.slice(0, values.length / 2), values.slice(values.length / 2)];
      perRun.forEach((runRows, i) => {
        const result = stored.runs[i]!;
        for (const row of runRows) {
          const got =
            row.qid === 'all' ? result.mean[row.measure] : result.perQuery[row.qid]?.[row.measure];
          expect(got, `${result.run} ${row.measure} ${row.qid}`).toBe(row.value);
        }
      });
    }, 120_000);

    it('refuses a bad line 30,000 lines in, and checks every run file before writing any', async () => {
      await importTsvCollection('big', 'd.tsv');
      const good = file('good.run', `${bigRun(2_000, 'good').join('\n')}\n`);
      const lines = bigRun(30_000, 'big');
      lines[29_999] = '30 Q0 doc30000 1000 1e999x big';
      const bad = file('bad.run', `${lines.join('\n')}\n`);
      const before = await withDatabase(env(), async (db) => listRuns(db, 'big'));
      const r = await assay(env(), 'import', 'run', '--collection', 'big', good, bad);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`assay import: ${bad}:30000: score "1e999x" is not a finite number\n`);
      const after = await withDatabase(env(), async (db) => listRuns(db, 'big'));
      expect(after).toEqual(before);
      expect(after).toEqual([]);
    }, 120_000);

    it('asks for --replace, then replaces; one line per file with lines/s', async () => {
      await importTsvCollection('rep', 'd2.tsv');
      const a = file('a.run', '1 Q0 d1 1 2 sysA\n');
      const b = file('b.run', '1 Q0 d1 1 2 sysB\n2 Q0 d1 1 2 sysB\n');
      const first = await assay(env(), 'import', 'run', '--collection', 'rep', a, b);
      expect(first.code).toBe(0);
      expect(first.stdout.split('\n')).toEqual([
        expect.stringMatching(
          /^imported run "sysA" \(id \d+, 1 topics\) from a\.run: 1 line in [\d.]+ s \(\d+ lines\/s\)$/,
        ),
        expect.stringMatching(/^imported run "sysB" \(id \d+, 2 topics\) from b\.run: 2 lines in /),
        expect.stringMatching(
          /^2 runs into collection "rep": 3 lines in [\d.]+ s \(\d+ lines\/s\)$/,
        ),
        '',
      ]);
      const again = await assay(env(), 'import', 'run', '--collection', 'rep', b);
      expect(again.code).toBe(4);
      expect(again.stderr).toBe(
        `assay import: ${b}: run "sysB" already exists in collection "rep"; use --replace to overwrite it\n`,
      );
      const replaced = await assay(env(), 'import', 'run', '--collection', 'rep', '--replace', b);
      expect(replaced.code).toBe(0);
      expect(replaced.stdout).toMatch(/^replaced run "sysB"/);
      const qrels = file('q.txt', '1 0 d1 1\n');
      const importQrels = () =>
        assay(env(), 'import', 'qrels', '--collection', 'rep', '--label-set', 'h', qrels);
      await importQrels();
      const q2 = await importQrels();
      expect(q2).toMatchObject({
        code: 4,
        stderr:
          'assay import: label set "h" already exists in collection "rep"; use --replace to overwrite it\n',
      });
      const q3 = await assay(
        env(),
        'import',
        'qrels',
        '--collection',
        'rep',
        '--label-set',
        'h',
        '--replace',
        '--scale',
        '0..3',
        qrels,
      );
      expect(q3.stdout).toMatch(/^replaced label set "h" \(id \d+, grades 0\.\.3\)/);
      const sets = await withDatabase(env(), async (db) => listLabelSets(db, 'rep'));
      expect(sets.map((s) => [s.name, s.labelCount, s.scaleMax])).toEqual([['h', 1, 3]]);
    }, 120_000);

    it('adds documents to a collection that exists, and refuses a docno it holds (exit 4)', async () => {
      expect((await importTsvCollection('grow', 'grow.tsv')).code).toBe(0);
      const added = await assay(
        env(),
        'import',
        'documents',
        '--collection',
        'grow',
        file('more.jsonl', '{"id":"d2","text":"two"}\n{"id":"d3","text":"three"}\n'),
      );
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(
        /^added to collection "grow" from .*more\.jsonl: 2 documents in [\d.]+ s \([\d,.]+ documents\/s\); it holds 3 documents\n$/,
      );
      const clash = await assay(
        env(),
        'import',
        'documents',
        '-c',
        'grow',
        '--format',
        'tsv',
        file('again.tsv', 'd4\tfour\nd1\tagain\n'),
      );
      expect(clash.code).toBe(4);
      expect(clash.stderr).toContain('1 document(s) of ');
      expect(clash.stderr).toContain('are already in collection "grow" ("d1")');
    });

    it('reports unknown collections, bad lines and usage errors on one line', async () => {
      const run = file('x.run', '1 Q0 d1 1 2 x\n');
      expect(await assay(env(), 'import', 'run', '--collection', 'nope', run)).toMatchObject({
        code: 3,
        stderr: 'assay import: no collection "nope"\n',
      });
      const docs = file('bad.jsonl', '{"id":"a","text":"t"}\n{"id":"b",\n');
      expect(await assay(env(), 'import', 'collection', '--name', 'bad', docs)).toMatchObject({
        code: 2,
        stderr: `assay import: ${docs}:2: invalid JSON\n`,
      });
      const missing = await assay(env(), 'import', 'run', run);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        /^assay import: 'import run' needs --collection\n\nUsage: assay import/,
      );
      expect((await assay(env(), 'import', 'collection', '--name', 'x', run)).stderr).toMatch(
        /cannot tell the format of .*x\.run; give --format/,
      );
      expect(
        (await assay(env(), 'import', 'topics', '--collection', 'c', '--replace', run)).stderr,
      ).toMatch(/--replace does not apply to 'import topics'/);
      expect(
        (await assay(env(), 'import', 'run', '--collection', 'c', join(dir, 'absent.run'))).code,
      ).toBe(2);
    }, 120_000);

    it('lists and loads the Cranfield dataset once', async () => {
      const list = await assay(env(), 'datasets', 'list');
      expect(list.stdout).toMatch(/^cranfield\tCranfield 1400/m);
      const load = await assay(env(), 'datasets', 'load', 'cranfield');
      expect(load.stderr).toBe('');
      expect(load.stdout).toMatch(
        /^loaded dataset "cranfield" into .* with 1400 documents and 225 topics, label set "cranfield-qrels" with 1837 judgments\n$/,
      );
      expect(await assay(env(), 'datasets', 'load', 'cranfield')).toMatchObject({
        code: 4,
        stderr:
          'assay datasets: dataset "cranfield" is already loaded (collection "cranfield" exists)\n',
      });
      expect((await assay(env(), 'datasets', 'load', 'nope')).code).toBe(3);
    }, 120_000);
  });
}

describe('database commands and the configuration', () => {
  it('name the bad variable without echoing its value', async () => {
    const r = await assay({ DATABASE_URL: 'mysql://root:hunter2@db/assay' }, 'db', 'migrate');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('assay db: DATABASE_URL must be a postgres:// URL\n');
  });

  it('say where the database is when it cannot be reached, without the password', async () => {
    const r = await assay(
      { DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:1/assay' },
      'import',
      'run',
      '--collection',
      'c',
      file('y.run', '1 Q0 d1 1 2 y\n'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^assay import: cannot open the database \(PostgreSQL at 127\.0\.0\.1:1\/assay\): /,
    );
    expect(r.stderr).not.toContain('hunter2');
  });
});
