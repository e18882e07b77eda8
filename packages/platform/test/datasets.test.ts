import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findLabelSetByName, getLabelGrades, getTopic, listCollections } from '@assay/db';
import { describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  defaultDatasetsDir,
  listDatasets,
  loadDataset,
  parseCranfieldQrels,
  parseCranfieldQueries,
} from '../src/index.js';
import { snapshotCounts } from './helpers.js';

const dir = defaultDatasetsDir();
const cranqrel = readFileSync(join(dir, 'cranfield', 'cranqrel'), 'utf8');
const cranQry = readFileSync(join(dir, 'cranfield', 'cran.qry'), 'utf8');

describe('the Cranfield files', () => {
  it('are listed with their manifest', () => {
    expect(listDatasets()).toEqual([
      expect.objectContaining({
        name: 'cranfield',
        labelSet: 'cranfield-qrels',
        scale: { min: 0, max: 4 },
        gradeMapping: { '1': 4, '2': 3, '3': 2, '4': 1, '-1': 0 },
      }),
    ]);
  });

  it('number queries by position although .I runs 001, 002, 004 … (CRLF lines)', () => {
    expect(cranQry).toContain('\r\n');
    const queries = parseCranfieldQueries(cranQry, 'cran.qry');
    expect(queries).toHaveLength(225);
    expect(queries.slice(0, 4).map((q) => [q.position, q.original])).toEqual([
      ['1', '001'],
      ['2', '002'],
      ['3', '004'],
      ['4', '008'],
    ]);
    expect(queries[224]).toMatchObject({ position: '225', original: '365' });
    expect(queries[0]!.text).toBe(
      'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft .',
    );
    expect(queries.every((q) => !q.text.includes('\r'))).toBe(true);
  });

  it('map judgment codes explicitly and name a bad line', () => {
    const mapping = { '1': 4, '2': 3, '3': 2, '4': 1, '-1': 0 };
    expect(parseCranfieldQrels('1 184 2 \n1 29 -1\n2 12 4\n', 'q', mapping)).toEqual([
      { topicId: '1', docId: '184', grade: 3 },
      { topicId: '1', docId: '29', grade: 0 },
      { topicId: '2', docId: '12', grade: 1 },
    ]);
    expect(() => parseCranfieldQrels('1 184 2\n1 185 5\n', 'q', mapping)).toThrow(
      'q:2: unknown relevance code "5"',
    );
    expect(() => parseCranfieldQrels('1 184 2\n1 185 toString\n', 'q', mapping)).toThrow(
      'q:2: unknown relevance code "toString"',
    );
    expect(() =>
      parseCranfieldQrels('226 184 2\n', 'q', mapping, { topicIds: new Set(['1']) }),
    ).toThrow('q:1: query 226 is not a query position of the topic file');
  });
});

forEachDatabase('loadDataset', (t) => {
  it('loads Cranfield: 1,400 documents, 225 topics, 1,837 judgments on 0..4', async () => {
    const loaded = await loadDataset(t.db, 'cranfield');
    expect(loaded).toEqual({
      collectionId: expect.any(Number),
      name: 'cranfield',
      documents: 1400,
      topics: 225,
      labelSet: 'cranfield-qrels',
      labels: 1837,
    });
    expect(await listCollections(t.db)).toEqual([
      expect.objectContaining({ name: 'cranfield', documentCount: 1400, topicCount: 225 }),
    ]);
    // cranqrel's first line is "1 184 2": query 1 is the first query of cran.qry.
    expect(cranqrel.split('\n')[0]).toBe('1 184 2 ');
    const first = await getTopic(t.db, loaded.collectionId, '1');
    expect(first).toMatchObject({
      query: parseCranfieldQueries(cranQry, 'cran.qry')[0]!.text,
      description: 'cran.qry .I 001',
    });
    // The third query is numbered 004 in cran.qry; its judgments say "3".
    expect(await getTopic(t.db, loaded.collectionId, '3')).toMatchObject({
      description: 'cran.qry .I 004',
      query: expect.stringMatching(/^what problems of heat conduction in composite slabs/),
    });
    const set = await findLabelSetByName(t.db, loaded.collectionId, 'cranfield-qrels');
    expect(set).toMatchObject({ kind: 'human_qrels', scaleMin: 0, scaleMax: 4 });
    const grades = await getLabelGrades(t.db, set!.id);
    expect(grades.get('1')!.get('184')).toBe(3); // code 2 → grade 3
    // Grade counts follow the code counts of cranqrel through 1→4, 2→3, 3→2, 4→1, -1→0.
    const codes = new Map<string, number>();
    for (const line of cranqrel.split('\n').filter((l) => l.trim()))
      codes.set(line.trim().split(/\s+/)[2]!, (codes.get(line.trim().split(/\s+/)[2]!) ?? 0) + 1);
    const byGrade = new Map<number, number>();
    for (const docs of grades.values())
      for (const grade of docs.values()) byGrade.set(grade, (byGrade.get(grade) ?? 0) + 1);
    expect(Object.fromEntries(byGrade)).toEqual({
      4: codes.get('1'),
      3: codes.get('2'),
      2: codes.get('3'),
      1: codes.get('4'),
      0: codes.get('-1'),
    });
    expect(codes.get('-1')).toBe(225); // one per query
    await expect(loadDataset(t.db, 'cranfield')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/already loaded/),
    });
  });

  it('keeps nothing when a dataset file has a bad line, and knows its datasets', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'assay-datasets-'));
    cpSync(join(dir, 'cranfield'), join(copy, 'cranfield'), { recursive: true });
    writeFileSync(join(copy, 'cranfield', 'cranqrel'), `${cranqrel.trimEnd()}\n225 1401 1\n`);
    const error = await loadDataset(t.db, 'cranfield', { datasetsDir: copy }).catch((e) => e);
    expect(error).toMatchObject({ code: 'invalid_input' });
    expect(error.message).toMatch(/cranqrel:1838: document 1401 is not in the collection$/);
    expect(Object.values(await snapshotCounts(t.db))).toEqual([0, 0, 0, 0, 0, 0, 0]);
    await expect(loadDataset(t.db, 'msmarco')).rejects.toMatchObject({ code: 'not_found' });
  });
});
