import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  createPublication,
  createReport,
  createUser,
  deleteCollection,
  deletePublication,
  deleteReport,
  getPublication,
  getReport,
  listPublications,
  listReports,
  SLUG_PATTERN,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

forEachDatabase('reports', (database) => {
  it('stores a snapshot with its provenance and result, lists and gets it', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'dl19' });
    const user = await createUser(db, { name: 'ada', role: 'admin' });
    const result = [
      { run: 'bm25', means: { map: 0.25 } },
      { run: 'dense', means: { map: 0.5 } },
    ];
    const created = await createReport(db, {
      collectionId,
      kind: 'comparison',
      title: 'bm25 vs dense',
      provenance: { measures: ['map'], runs: [{ id: 1, name: 'bm25' }], seed: 42 },
      result,
      createdBy: user.id,
    });
    expect(created).toMatchObject({
      collectionId,
      kind: 'comparison',
      title: 'bm25 vs dense',
      createdBy: user.id,
      slugs: [],
      result,
    });
    // A top-level array stays an array (not a Postgres array) on both drivers.
    expect(await getReport(db, created.id)).toEqual(created);
    await createReport(db, {
      collectionId,
      kind: 'agreement',
      title: 'qrels vs judge',
      provenance: {},
      result: { n: 3 },
    });
    const all = await listReports(db);
    expect(all.map((r) => r.title)).toEqual(['qrels vs judge', 'bm25 vs dense']);
    expect(all[0]).not.toHaveProperty('result');
    expect((await listReports(db, { kind: 'comparison' })).map((r) => r.id)).toEqual([created.id]);
    expect(await listReports(db, { collectionId: collectionId + 1 })).toEqual([]);
    expect(await getReport(db, created.id + 100)).toBeUndefined();
  });

  it('refuses to change what a report says, but lets its title change', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'dl19' });
    const report = await createReport(db, {
      collectionId,
      kind: 'evaluation',
      title: 'first',
      provenance: { measures: ['map'] },
      result: { runs: [] },
    });
    await expect(
      sql`update reports set result = '{"runs": [1]}'::jsonb where id = ${report.id}`.execute(db),
    ).rejects.toMatchObject({ code: '23001' });
    await expect(
      sql`update reports set provenance = '{}'::jsonb where id = ${report.id}`.execute(db),
    ).rejects.toMatchObject({ code: '23001' });
    await expect(
      sql`update reports set kind = 'comparison' where id = ${report.id}`.execute(db),
    ).rejects.toMatchObject({ code: '23001' });
    await sql`update reports set title = 'renamed' where id = ${report.id}`.execute(db);
    expect(await getReport(db, report.id)).toMatchObject({
      title: 'renamed',
      result: { runs: [] },
      provenance: { measures: ['map'] },
    });
    await expect(
      sql`insert into reports (collection_id, kind, title, provenance, result)
          values (${collectionId}, 'ranking', 'x', '{}', '{}')`.execute(db),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('publishes under unique, well-formed slugs; unpublishing keeps the report', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'dl19' });
    const report = await createReport(db, {
      collectionId,
      kind: 'comparison',
      title: 'board',
      provenance: {},
      result: {},
    });
    const publication = await createPublication(db, { slug: 'dl19-2026', reportId: report.id });
    expect(publication).toMatchObject({
      slug: 'dl19-2026',
      reportId: report.id,
      publishedBy: null,
    });
    await createPublication(db, { slug: 'a', reportId: report.id });
    expect((await getReport(db, report.id))!.slugs).toEqual(['a', 'dl19-2026']);
    expect((await listReports(db))[0]!.slugs).toEqual(['a', 'dl19-2026']);
    await expect(
      createPublication(db, { slug: 'dl19-2026', reportId: report.id }),
    ).rejects.toMatchObject({ code: '23505' });
    for (const slug of ['', 'Upper', '-lead', 'under_score', 'x'.repeat(64), 'dot.csv']) {
      expect(SLUG_PATTERN.test(slug), slug).toBe(false);
      await expect(
        createPublication(db, { slug, reportId: report.id }),
        slug,
      ).rejects.toMatchObject({ code: '23514' });
    }
    expect(SLUG_PATTERN.test(`a${'-'.repeat(62)}`)).toBe(true);
    expect(await deletePublication(db, 'a')).toBe(true);
    expect(await deletePublication(db, 'a')).toBe(false);
    expect(await getPublication(db, 'a')).toBeUndefined();
    expect((await listPublications(db)).map((p) => p.slug)).toEqual(['dl19-2026']);
    expect(await getReport(db, report.id)).toBeDefined();
  });

  it('deletes publications with their report, and reports with their collection', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'dl19' });
    const make = () =>
      createReport(db, { collectionId, kind: 'comparison', title: 't', provenance: {}, result: 1 });
    const first = await make();
    const second = await make();
    await createPublication(db, { slug: 'one', reportId: first.id });
    await createPublication(db, { slug: 'two', reportId: second.id });
    expect(await deleteReport(db, first.id)).toBe(true);
    expect(await deleteReport(db, first.id)).toBe(false);
    expect(await getPublication(db, 'one')).toBeUndefined();
    await deleteCollection(db, collectionId);
    expect(await listReports(db)).toEqual([]);
    expect(await listPublications(db)).toEqual([]);
  });
});
