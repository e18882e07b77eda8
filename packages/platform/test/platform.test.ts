import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { forEachDatabase } from '../../db/test/helpers.js';
import {
  authenticate,
  ensureAdmin,
  evaluateRuns,
  importCollection,
  importQrels,
  importRun,
  importTopics,
  loadConfig,
  loadDataset,
  PlatformError,
} from '../src/index.js';

const count = async (
  db: Parameters<typeof importRun>[0],
  table: 'runs' | 'run_entries' | 'documents' | 'labels' | 'collections',
) => {
  const row = await sql<{
    n: string | number;
  }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(row.rows[0]!.n);
};

describe('configuration', () => {
  it('reads defaults and rejects bad values naming the variable', () => {
    expect(loadConfig({})).toEqual({ dataDir: './.assay', port: 8080 });
    expect(loadConfig({ PORT: '9000', DATABASE_URL: 'postgres://u@h/d' })).toMatchObject({
      port: 9000,
      databaseUrl: 'postgres://u@h/d',
    });
    expect(() => loadConfig({ PORT: 'x' })).toThrow(/^PORT must be a port number/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL/);
    expect(() => loadConfig({ ASSAY_ADMIN_TOKEN: 'short' })).toThrow(/^ASSAY_ADMIN_TOKEN/);
  });
});

forEachDatabase('platform use-cases', (t) => {
  it('imports a collection, topics, qrels and a run, and evaluates it', async () => {
    const c = await importCollection(t.db, {
      name: 'demo',
      format: 'jsonl',
      file: 'docs.jsonl',
      text: '{"id":"d1","title":"T","text":"one","lang":"en"}\n{"docid":"d2","text":"two"}\n',
    });
    expect(c.documents).toBe(2);
    await importTopics(t.db, {
      collection: 'demo',
      file: 't.tsv',
      text: '1\tfirst query\n2\tsecond query\n',
    });
    await importQrels(t.db, {
      collection: 'demo',
      labelSet: 'human',
      file: 'q',
      text: '1 0 d1 2\n1 0 d2 0\n2 0 d2 1\n',
    });
    const run = await importRun(t.db, {
      collection: 'demo',
      file: 'r',
      text: '1 Q0 d2 1 2 sys\n1 Q0 d1 2 1 sys\n',
    });
    expect(run).toMatchObject({ name: 'sys', entries: 2, topics: 1 });
    const result = await evaluateRuns(t.db, {
      collection: 'demo',
      labelSet: 'human',
      runs: ['sys'],
      measures: ['map', 'P.1'],
    });
    // Topic 1: d1 relevant at rank 2 → AP 1/2, P@1 0; topic 2 missing → 0 (-c). Means /2.
    expect(result.runs[0]!.mean).toMatchObject({ map: 0.25, P_1: 0 });
    expect(result.runs[0]!.perQuery['1']).toMatchObject({ map: 0.5 });
    expect(result.topicHandling).toMatch(/trec_eval -c/);
  });

  it('refuses a run with a bad line 30,000 lines in, leaving the run tables unchanged', async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'd1\ttext\n' });
    const lines: string[] = [];
    for (let i = 1; i <= 30_000; i++)
      lines.push(`${1 + Math.floor((i - 1) / 1000)} Q0 doc${i} ${i} ${1 / i} big`);
    lines[29_999] = '30 Q0 doc30000 30000 not-a-score big';
    const before = [await count(t.db, 'runs'), await count(t.db, 'run_entries')];
    const error = await importRun(t.db, {
      collection: 'c',
      file: 'big.run',
      text: `${lines.join('\n')}\n`,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('invalid_input');
    expect((error as Error).message).toBe(
      'big.run:30000: score "not-a-score" is not a finite number',
    );
    expect([await count(t.db, 'runs'), await count(t.db, 'run_entries')]).toEqual(before);
  });

  it('asks for replace before overwriting a run or label set', async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'd1\ttext\n' });
    await importRun(t.db, { collection: 'c', file: 'r', text: '1 Q0 d1 1 2 sys\n' });
    await expect(
      importRun(t.db, { collection: 'c', file: 'r', text: '1 Q0 d1 1 2 sys\n' }),
    ).rejects.toThrow(/already exists.*--replace/);
    const replaced = await importRun(t.db, {
      collection: 'c',
      file: 'r',
      replace: true,
      text: '1 Q0 d1 1 2 sys\n1 Q0 d2 2 1 sys\n',
    });
    expect(replaced.entries).toBe(2);
    expect(await count(t.db, 'runs')).toBe(1);
    await importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q', text: '1 0 d1 1\n' });
    await expect(
      importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q', text: '1 0 d1 1\n' }),
    ).rejects.toThrow(/--replace/);
  });

  it('leaves nothing behind when a collection, topic or qrels file is malformed', async () => {
    await expect(
      importCollection(t.db, {
        name: 'x',
        format: 'jsonl',
        file: 'docs',
        text: '{"id":"a","text":"t"}\n{"id":"a","text":"u"}\n',
      }),
    ).rejects.toThrow('docs:2: duplicate document id "a" (first at line 1)');
    expect(await count(t.db, 'collections')).toBe(0);
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'd1\ttext\n' });
    await expect(
      importQrels(t.db, { collection: 'c', labelSet: 'h', file: 'q', text: '1 0 d1 1\n1 0 d2\n' }),
    ).rejects.toThrow(/^q:2: /);
    expect(await count(t.db, 'labels')).toBe(0);
    await expect(
      importRun(t.db, { collection: 'nope', file: 'r', text: '1 Q0 d1 1 2 s\n' }),
    ).rejects.toThrow(/no collection "nope"/);
  });

  it('loads the Cranfield dataset with position-numbered topics and mapped grades', async () => {
    const loaded = await loadDataset(t.db, 'cranfield');
    expect(loaded).toMatchObject({ documents: 1400, topics: 225, labels: 1837 });
    const topic1 = await sql<{
      query: string;
    }>`select query from topics where topic_id = '1'`.execute(t.db);
    // The first query of cran.qry (.I 001).
    expect(topic1.rows[0]!.query).toMatch(
      /^what similarity laws must be obeyed when constructing aeroelastic models/,
    );
    const third = await sql<{
      description: string;
    }>`select description from topics where topic_id = '3'`.execute(t.db);
    expect(third.rows[0]!.description).toBe('cran.qry .I 004'); // the third query is numbered 004
    // cranqrel's first line "1 184 2": code 2 → grade 3.
    const label = await sql<{
      grade: number;
    }>`select grade from labels where topic_id = '1' and doc_id = '184'`.execute(t.db);
    expect(label.rows[0]!.grade).toBe(3);
    await expect(loadDataset(t.db, 'cranfield')).rejects.toThrow(/already loaded/);
  });

  it('bootstraps one admin and authenticates tokens', async () => {
    const first = await ensureAdmin(t.db, { token: 'a-chosen-admin-token-123' });
    expect(first).toEqual({ created: true, token: 'a-chosen-admin-token-123' });
    expect(await ensureAdmin(t.db)).toEqual({ created: false });
    expect((await authenticate(t.db, 'a-chosen-admin-token-123')).role).toBe('admin');
    await expect(authenticate(t.db, 'wrong')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(authenticate(t.db, undefined)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
