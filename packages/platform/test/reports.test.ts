import { basename } from 'node:path';
import { createLabelSet, createUser, deleteRun } from '@assay/db';
import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  ASSAY_VERSION,
  comparisonCsv,
  comparisonJson,
  createAgreementReport,
  createComparisonReport,
  createEvaluationReport,
  deleteReport,
  fromJson,
  getPublishedLeaderboard,
  getReport,
  importCollection,
  importQrels,
  importRun,
  listReports,
  publishLeaderboard,
  renderLeaderboard,
  toJson,
  unpublishLeaderboard,
  type CompareReport,
  type ComparisonReportInput,
} from '../src/index.js';
import { rejection } from './helpers.js';
import { assay, HUMAN, LLM, RUNS, writeReportFiles } from '@assay/test-support/report-fixtures';

const FILES = writeReportFiles();

/** A comparison's JSON without the `qrels` names (paths for the CLI, label set names here). */
function withoutQrels(json: string): unknown {
  const value = JSON.parse(json) as Record<string, unknown>;
  delete value.qrels;
  for (const l of (value.leaderboards ?? []) as Array<Record<string, unknown>>) delete l.qrels;
  return value;
}

forEachDatabase('reports', (t) => {
  beforeEach(async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'a\tx\n' });
    await importQrels(t.db, { collection: 'c', labelSet: 'human', file: 'human', text: HUMAN });
    await importQrels(t.db, { collection: 'c', labelSet: 'llm', file: 'llm', text: LLM });
    for (const [name, text] of Object.entries(RUNS))
      await importRun(t.db, { collection: 'c', file: name, text });
  });

  describe('comparison reports', () => {
    it('stores hand-checked means and the same analysis as `assay compare`', async () => {
      const user = await createUser(t.db, { name: 'ada', role: 'admin' });
      const report = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human'],
        runs: ['A', 'B', 'C'],
        measures: ['P.1', 'map'],
        createdBy: { id: user.id, name: user.name },
      });
      expect(report.kind).toBe('comparison');
      if (report.kind !== 'comparison') return;
      const board = report.result.leaderboards[0]!.comparison;
      // P@1: A 1 1 1; B 0 1 0; C 1 0 0. B and C tie at 1/3 and are ordered by name.
      expect(board.runs.map((r) => r.run)).toEqual(['A', 'B', 'C']);
      // AP: A (1 + 2/3)/2, 1, 1; B (1/2)/2, 1/2, 1/2; C (1 + 1)/2, (1/2)/2, 1/2.
      const expected = { A: [1, 17 / 18], B: [1 / 3, 5 / 12], C: [1 / 3, 7 / 12] };
      for (const row of board.runs) {
        const [p1, ap] = expected[row.run as keyof typeof expected];
        expect(row.means.P_1).toBeCloseTo(p1!, 12);
        expect(row.means.map).toBeCloseTo(ap!, 12);
      }
      expect(report.provenance).toEqual({
        assayVersion: ASSAY_VERSION,
        createdBy: { id: user.id, name: 'ada' },
        collection: { id: report.collectionId, name: 'c' },
        labelSets: [{ id: expect.any(Number), name: 'human' }],
        runs: ['A', 'B', 'C'].map((name) => ({ id: expect.any(Number), name })),
        measures: ['P.1', 'map'],
        testedMeasures: ['P_1', 'map'],
        test: 't',
        correction: 'holm',
        alpha: 0.05,
        seed: 42,
        permutations: 10000,
        bootstrapSamples: 10000,
        topicHandling: board.topicHandling,
      });
      expect(ASSAY_VERSION).toMatch(/^\d+\.\d+\.\d+/);
      const cli = assay(
        'compare',
        FILES.human!,
        FILES.A!,
        FILES.B!,
        FILES.C!,
        '-m',
        'P.1',
        '-m',
        'map',
        '--format',
        'json',
      );
      expect(withoutQrels(comparisonJson(report.result))).toEqual(withoutQrels(cli));
      // What was stored reads back identically.
      expect(await getReport(t.db, report.id)).toEqual(report);
    });

    it('compares two label sets with a randomization test, as `assay compare --qrels --qrels`', async () => {
      const report = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human', 'llm'],
        runs: ['C', 'A', 'B'],
        measures: ['map'],
        test: 'randomization',
        permutations: 500,
        seed: 7,
        correction: 'bh',
        baseline: 'A',
      });
      const cli = assay(
        'compare',
        '--qrels',
        FILES.human!,
        '--qrels',
        FILES.llm!,
        FILES.C!,
        FILES.A!,
        FILES.B!,
        '-m',
        'map',
        '--test',
        'randomization',
        '--permutations',
        '500',
        '--seed',
        '7',
        '--correction',
        'bh',
        '--baseline',
        'A',
        '--format',
        'json',
      );
      expect(withoutQrels(comparisonJson(report.result as CompareReport))).toEqual(
        withoutQrels(cli),
      );
      expect(report.provenance).toMatchObject({
        labelSets: [{ name: 'human' }, { name: 'llm' }],
        baseline: 'A',
        permutations: 500,
      });
    });

    it('refuses unknown names, too few runs and bad settings', async () => {
      const base = { collection: 'c', labelSets: ['human'], runs: ['A', 'B'], measures: ['map'] };
      const cases: Array<[ComparisonReportInput, string]> = [
        [{ ...base, labelSets: ['ghost'] }, 'not_found'],
        [{ ...base, runs: ['A', 'ghost'] }, 'not_found'],
        [{ ...base, collection: 'nope' }, 'not_found'],
        [{ ...base, runs: ['A'] }, 'invalid_input'],
        [{ ...base, runs: ['A', 'A'] }, 'invalid_input'],
        [{ ...base, measures: ['nope@3'] }, 'invalid_input'],
        [{ ...base, measures: ['num_ret'] }, 'invalid_input'],
        [{ ...base, alpha: 1 }, 'invalid_input'],
        [{ ...base, baseline: 'C' }, 'invalid_input'],
        [{ ...base, labelSets: ['human', 'human'] }, 'invalid_input'],
      ];
      for (const [input, code] of cases) {
        const error = await rejection(createComparisonReport(t.db, input));
        expect(error.code, JSON.stringify(input)).toBe(code);
      }
      expect(await listReports(t.db)).toEqual([]);
    });
  });

  describe('non-finite statistics', () => {
    it('keeps an infinite t statistic through the database', async () => {
      // Z's first document is never relevant: P@1 0 0 0 against A's 1 1 1, a constant
      // difference, so t = 1 / (0 / sqrt(3)) = Infinity and p = 0.
      await importRun(t.db, {
        collection: 'c',
        file: 'Z',
        text: '1 Q0 x 1 1 Z\n2 Q0 x 1 1 Z\n3 Q0 g 1 1 Z\n',
      });
      const report = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human'],
        runs: ['A', 'Z'],
        measures: ['P.1'],
      });
      const read = await getReport(t.db, report.id);
      const pair = (read.result as CompareReport).leaderboards[0]!.comparison.pairs[0]!;
      expect(pair).toMatchObject({ a: 'A', b: 'Z', meanDiff: 1, statistic: Infinity, p: 0 });
      expect(read).toEqual(report);
      expect(
        JSON.parse(renderLeaderboard(read.result as CompareReport, 'json').body),
      ).toMatchObject({
        pairs: [{ statistic: null }],
      });
    });
  });

  describe('agreement and evaluation reports', () => {
    it('stores what `assay agree` prints, with hand-checked agreement', async () => {
      const report = await createAgreementReport(t.db, {
        collection: 'c',
        labelSetA: 'human',
        labelSetB: 'llm',
      });
      expect(report.title).toBe('human vs llm');
      expect(report.kind).toBe('agreement');
      if (report.kind !== 'agreement') return;
      // Seven pairs; c, e and f agree.
      expect(report.result.n).toBe(7);
      expect(report.result.exactAgreement).toBeCloseTo(3 / 7, 12);
      expect(report.result.scale).toEqual({ min: 0, max: 2 });
      expect(report.result).toEqual(
        JSON.parse(assay('agree', FILES.human!, FILES.llm!, '--format', 'json')),
      );
      const clipped = await createAgreementReport(t.db, {
        collection: 'c',
        labelSetA: 'human',
        labelSetB: 'llm',
        scale: { min: 0, max: 1 },
        clip: true,
      });
      expect(clipped.result).toEqual(
        JSON.parse(
          assay('agree', FILES.human!, FILES.llm!, '--scale', '0-1', '--clip', '--format', 'json'),
        ),
      );
      const outside = await rejection(
        createAgreementReport(t.db, {
          collection: 'c',
          labelSetA: 'human',
          labelSetB: 'llm',
          scale: { min: 0, max: 1 },
        }),
      );
      expect(outside.code).toBe('invalid_input');
      const collection = (await listReports(t.db))[0]!.collectionId;
      await createLabelSet(t.db, {
        collectionId: collection,
        name: 'empty',
        kind: 'import',
        scaleMin: 0,
        scaleMax: 1,
      });
      const empty = await rejection(
        createAgreementReport(t.db, { collection: 'c', labelSetA: 'human', labelSetB: 'empty' }),
      );
      expect([empty.code, empty.message]).toEqual([
        'invalid_input',
        'label set "empty" has no labels',
      ]);
      expect(outside.message).toMatch(/grade 2 of topic 1 document a is outside the scale 0-1/);
    });

    it('stores an evaluation with the means of `assay eval -c`', async () => {
      const report = await createEvaluationReport(t.db, {
        collection: 'c',
        labelSet: 'human',
        runs: ['B', 'C'],
        measures: ['map'],
      });
      if (report.kind !== 'evaluation') throw new Error('not an evaluation');
      const cli = assay('eval', '-c', '-m', 'map', FILES.human!, FILES.B!);
      // trec_eval's summary line: "map  all  0.4167".
      expect(cli).toMatch(/^map\s+all\s+0\.4167$/m);
      expect(report.result.runs[0]!.mean.map).toBeCloseTo(5 / 12, 12);
      expect(report.result.runs[1]!.mean.map).toBeCloseTo(7 / 12, 12);
      expect(report.provenance).toMatchObject({ completeTopics: true, measures: ['map'] });
    });
  });

  describe('snapshots and publishing', () => {
    it('keeps a report and its leaderboard as computed when runs and labels change', async () => {
      const report = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human'],
        runs: ['A', 'B', 'C'],
        measures: ['map'],
      });
      await publishLeaderboard(t.db, { report: report.id, slug: 'demo-2026' });
      const published = await getPublishedLeaderboard(t.db, 'demo-2026');
      const csv = renderLeaderboard(published.report.result, 'csv').body;
      await deleteRun(t.db, report.provenance.runs[1]!.id);
      await importRun(t.db, {
        collection: 'c',
        file: 'A',
        text: RUNS.B!.replaceAll(' B\n', ' A\n'),
        replace: true,
      });
      await importQrels(t.db, {
        collection: 'c',
        labelSet: 'human',
        file: 'h',
        text: LLM,
        replace: true,
      });
      expect(await getReport(t.db, report.id)).toEqual({ ...report, slugs: ['demo-2026'] });
      const after = await getPublishedLeaderboard(t.db, 'demo-2026');
      expect(after).toEqual(published);
      expect(renderLeaderboard(after.report.result, 'csv').body).toBe(csv);
    });

    it('publishes comparisons only, under free well-formed slugs, and unpublishes', async () => {
      const board = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human'],
        runs: ['A', 'B'],
        measures: ['map'],
      });
      const agree = await createAgreementReport(t.db, {
        collection: 'c',
        labelSetA: 'human',
        labelSetB: 'llm',
      });
      expect(
        (await rejection(publishLeaderboard(t.db, { report: board.id, slug: 'Bad_Slug' }))).code,
      ).toBe('invalid_input');
      expect(
        (await rejection(publishLeaderboard(t.db, { report: agree.id, slug: 'agree' }))).code,
      ).toBe('invalid_input');
      expect((await rejection(publishLeaderboard(t.db, { report: 999, slug: 'x' }))).code).toBe(
        'not_found',
      );
      const published = await publishLeaderboard(t.db, { report: board.id, slug: 'board' });
      expect(published.report.slugs).toEqual(['board']);
      expect(
        (await rejection(publishLeaderboard(t.db, { report: board.id, slug: 'board' }))).code,
      ).toBe('conflict');
      expect((await rejection(deleteReport(t.db, board.id))).code).toBe('conflict');
      await unpublishLeaderboard(t.db, 'board');
      expect((await rejection(getPublishedLeaderboard(t.db, 'board'))).code).toBe('not_found');
      expect((await rejection(unpublishLeaderboard(t.db, 'board'))).code).toBe('not_found');
      await deleteReport(t.db, board.id);
      expect((await listReports(t.db)).map((r) => r.kind)).toEqual(['agreement']);
      expect((await rejection(getReport(t.db, board.id))).code).toBe('not_found');
    });

    it('renders downloads exactly as `assay compare --format` does', async () => {
      const report = await createComparisonReport(t.db, {
        collection: 'c',
        labelSets: ['human'],
        runs: ['A', 'B', 'C'],
        measures: ['map'],
      });
      const result = report.result as CompareReport;
      // With the label set named as the CLI shows its qrels (the file name), the bytes are the CLI's.
      const renamed: CompareReport = {
        leaderboards: [
          { qrels: basename(FILES.human!), comparison: result.leaderboards[0]!.comparison },
        ],
      };
      const args = ['compare', FILES.human!, FILES.A!, FILES.B!, FILES.C!, '-m', 'map'];
      for (const [format, flag, type] of [
        ['csv', 'csv', 'text/csv; charset=utf-8'],
        ['latex', 'latex', 'application/x-tex; charset=utf-8'],
        ['json', 'json', 'application/json; charset=utf-8'],
        ['html', 'html', 'text/html; charset=utf-8'],
      ] as const) {
        const rendered = renderLeaderboard(renamed, format);
        expect(rendered.body, format).toBe(assay(...args, '--format', flag));
        expect(rendered.contentType).toBe(type);
      }
      expect(comparisonCsv(result).split('\n')[0]).toMatch(/^run,measure,mean,ci_lower/);
    });
  });
});

describe('report JSON encoding', () => {
  it('round-trips NaN and infinities through JSON, which has neither', () => {
    const value = { a: [1, Number.NaN, Infinity], b: { c: -Infinity, d: 'x' }, e: undefined };
    const json = JSON.parse(JSON.stringify(toJson(value))) as Parameters<typeof fromJson>[0];
    expect(json).toEqual({
      a: [1, { $float: 'NaN' }, { $float: 'Infinity' }],
      b: { c: { $float: '-Infinity' }, d: 'x' },
    });
    expect(fromJson(json)).toEqual({ a: [1, Number.NaN, Infinity], b: { c: -Infinity, d: 'x' } });
  });
});
