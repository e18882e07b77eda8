import { beforeEach, describe, expect, it } from 'vitest';
import { countRows, forEachDatabase, queryRows } from '@assay/platform/testing';
import { HUMAN, RUNS } from '@assay/test-support/report-fixtures';
import { setUpApi, type TestApi } from './helpers.js';

// Concurrent requests against one app. On PostgreSQL (TEST_DATABASE_URL) they run on
// several connections at once and used to interleave; on PGlite they take turns. Either
// way every request must get its documented answer.

forEachDatabase('concurrent requests', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const created = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      ...admin(),
      body: 'a\tapples\nb\tbananas\nc\tcherries\n',
    });
    expect(created.status).toBe(201);
  });

  describe('deleting a report while it is being published', () => {
    beforeEach(async () => {
      expect(
        (
          await api.call('POST', '/api/collections/demo/label-sets?name=human', {
            ...admin(),
            body: HUMAN,
          })
        ).status,
      ).toBe(201);
      for (const text of Object.values(RUNS))
        expect(
          (await api.call('POST', '/api/collections/demo/runs', { ...admin(), body: text })).status,
        ).toBe(201);
    });

    async function comparison(): Promise<number> {
      const response = await api.call('POST', '/api/reports/comparisons', {
        ...admin(),
        json: { collection: 'demo', labelSets: ['human'], runs: ['A', 'B'], measures: ['P.1'] },
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: number }).id;
    }

    // The delete goes first, in the middle, and last among twelve publications.
    for (const position of [0, 6, 12]) {
      it(`answers 201 (and the leaderboard exists) or 404, never 500 (delete at ${position})`, async () => {
        const id = await comparison();
        const requests: Array<Promise<Response>> = [];
        for (let i = 0; i < 12; i++) {
          if (i === position) requests.push(api.call('DELETE', `/api/reports/${id}`, admin()));
          requests.push(
            api.call('POST', `/api/reports/${id}/publish`, {
              ...admin(),
              json: { slug: `board-${position}-${i}` },
            }),
          );
        }
        if (position === 12) requests.push(api.call('DELETE', `/api/reports/${id}`, admin()));
        const responses = await Promise.all(requests);
        const deleteAt = position;
        const deleted = responses[deleteAt]!;
        const publishes = responses.filter((_, i) => i !== deleteAt);
        const statuses = publishes.map((r) => r.status);
        expect(statuses.every((s) => s === 201 || s === 404)).toBe(true);
        const published = statuses.filter((s) => s === 201).length;
        if (deleted.status === 204) {
          // The report went first: no publication could follow it.
          expect(published).toBe(0);
          expect((await api.call('GET', `/api/reports/${id}`, admin())).status).toBe(404);
        } else {
          // A publication went first: the delete is refused while it stands.
          expect(deleted.status).toBe(409);
          expect(published).toBeGreaterThan(0);
        }
        const listed = (await (
          await api.call('GET', '/api/leaderboards', admin())
        ).json()) as Array<{
          slug: string;
        }>;
        expect(listed.length).toBe(published);
        for (const { slug } of listed)
          expect((await api.call('GET', `/api/public/leaderboards/${slug}`)).status).toBe(200);
      });
    }
  });

  it('serialises concurrent replace=true imports of one run name: all succeed, one run stays', async () => {
    // Six versions of run "sys": version k ranks k + 1 documents of topic 1.
    const docs = ['a', 'b', 'c', 'd', 'e', 'f'];
    const version = (k: number) =>
      docs
        .slice(0, k + 1)
        .map((d, i) => `1 Q0 ${d} ${i + 1} ${10 - i} sys`)
        .join('\n') + '\n';
    const responses = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((k) =>
        api.call('POST', '/api/collections/demo/runs?name=sys&replace=true', {
          ...admin(),
          body: version(k),
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const runs = (await (
      await api.call('GET', '/api/collections/demo/runs', admin())
    ).json()) as Array<{
      name: string;
      entryCount: number;
    }>;
    expect(runs.map((r) => r.name)).toEqual(['sys']);
    // Whichever import came last, its entries are all there and nothing of the others.
    const entries = await countRows(t.db, 'run_entries');
    expect(entries).toBe(runs[0]!.entryCount);
    expect(entries).toBeGreaterThanOrEqual(1);
    expect(entries).toBeLessThanOrEqual(6);
    const ranked = await queryRows<{ doc_id: string }>(
      t.db,
      'select doc_id from run_entries order by rank',
    );
    expect(ranked.map((r) => r.doc_id)).toEqual(docs.slice(0, entries));
  });

  it('serialises concurrent replace=true uploads of one label set name', async () => {
    const versions = ['1 0 a 1\n', '1 0 a 1\n1 0 b 0\n', '1 0 a 1\n1 0 b 0\n1 0 c 2\n'];
    const responses = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((k) =>
        api.call('POST', '/api/collections/demo/label-sets?name=qrels&replace=true', {
          ...admin(),
          body: versions[k]!,
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(await countRows(t.db, 'label_sets')).toBe(1);
    const labels = await countRows(t.db, 'labels');
    expect([1, 2, 3]).toContain(labels);
  });

  it('answers identical judge-job creations at once with one 201 and 200s, one job', async () => {
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: '1\tfruit\n',
        })
      ).status,
    ).toBe(201);
    const body = {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'test-model' },
      items: [
        { topicId: '1', docId: 'a' },
        { topicId: '1', docId: 'b' },
      ],
    };
    const responses = await Promise.all(
      [1, 2, 3, 4].map(() =>
        api.call('POST', '/api/collections/demo/judge-jobs', { ...admin(), json: body }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    // The README: posting the same job again answers 200 with the existing job.
    expect(statuses).toEqual([200, 200, 200, 201]);
    const ids = new Set(
      await Promise.all(responses.map(async (r) => ((await r.json()) as { id: number }).id)),
    );
    expect(ids.size).toBe(1);
    expect(await countRows(t.db, 'judge_jobs')).toBe(1);
    expect(await countRows(t.db, 'judge_tasks')).toBe(2);
  });
});
