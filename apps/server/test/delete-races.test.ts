import { beforeEach, describe, expect, it } from 'vitest';
import {
  countRows,
  forEachDatabase,
  holdTransaction,
  queryRows,
  waitUntilBlockedBy,
} from '@assay/platform/testing';
import { setUpApi, type TestApi } from './helpers.js';

// Deleting a collection while something is written into it. Every write into a collection
// first holds the collection row (shared), the delete takes it alone: whichever comes first
// finishes, and the other waits for it. The write that loses answers 404; the delete that
// loses waits and removes what was written too. On PostgreSQL the tests hold locks of
// their own to force each order; PGlite runs one transaction at a time.

const RUN = Array.from({ length: 60 }, (_, i) => `${1 + (i % 3)} Q0 d${i} ${1 + i} ${100 - i} r`)
  .join('\n')
  .concat('\n');
const QRELS = Array.from({ length: 60 }, (_, i) => `${1 + (i % 3)} 0 d${i} ${i % 3}`)
  .join('\n')
  .concat('\n');

/** Uploads of each kind into collection `c`, as the API takes them. */
const UPLOADS = {
  run: { path: (c: string) => `/api/collections/${c}/runs?name=late`, body: RUN },
  qrels: { path: (c: string) => `/api/collections/${c}/label-sets?name=late`, body: QRELS },
  topics: { path: (c: string) => `/api/collections/${c}/topics`, body: '9\tlate topic\n' },
} as const;

/** The advisory lock an upload of `kind` named `late` takes after holding the collection. */
const nameLock = (kind: keyof typeof UPLOADS, id: number) =>
  kind === 'run' ? `run:${id}:late` : `label-set:${id}:late`;

forEachDatabase('deleting a collection while writing into it', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  /** Creates collection `name` with one run and one label set; its id. */
  async function seed(name: string): Promise<number> {
    const created = await api.call('POST', `/api/collections?name=${name}&format=tsv`, {
      ...admin(),
      body: 'd0\tzero\nd1\tone\n',
    });
    expect(created.status).toBe(201);
    for (const [path, body] of [
      [`/api/collections/${name}/runs?name=first`, RUN],
      [`/api/collections/${name}/label-sets?name=first`, QRELS],
      [`/api/collections/${name}/runs?name=kept`, RUN],
      [`/api/collections/${name}/label-sets?name=kept`, QRELS],
      [`/api/collections/${name}/topics`, '1\tone\n2\ttwo\n3\tthree\n'],
    ] as const)
      expect((await api.call('POST', path, { ...admin(), body })).status).toBe(201);
    return ((await created.json()) as { id: number }).id;
  }

  /** Rows of the collection left in each table that hangs off it. */
  async function leftOf(id: number) {
    const [row] = await queryRows<Record<string, string | number>>(
      t.db,
      `select (select count(*) from collections where id = ${id}) as collections,
              (select count(*) from runs where collection_id = ${id}) as runs,
              (select count(*) from label_sets where collection_id = ${id}) as label_sets,
              (select count(*) from topics where collection_id = ${id}) as topics`,
    );
    return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
  }

  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  describe.skipIf(t.kind !== 'postgres')('each order, forced by held locks', () => {
    for (const kind of ['run', 'qrels'] as const) {
      it(`a ${kind} upload that holds the collection first is kept, then deleted with it`, async () => {
        const id = await seed('c');
        // The upload holds the collection, then waits for its name lock, held here.
        const blocker = await holdTransaction(t.db, [
          `select pg_advisory_xact_lock(hashtextextended('${nameLock(kind, id)}', 0))`,
        ]);
        const upload = api.call('POST', UPLOADS[kind].path('c'), {
          ...admin(),
          body: UPLOADS[kind].body,
        });
        const [uploader] = await waitUntilBlockedBy(t.db, blocker.pid);
        const deleting = api.call('DELETE', '/api/collections/c', admin());
        // The delete waits for the upload's hold on the collection.
        await waitUntilBlockedBy(t.db, uploader!);
        await blocker.release();
        const [uploaded, deleted] = await Promise.all([upload, deleting]);
        expect(uploaded.status).toBe(201);
        expect(deleted.status).toBe(200);
        const went = (await deleted.json()) as { runs: number; labelSets: number };
        // What the upload wrote went with the collection (beside the two seeded).
        expect(kind === 'run' ? went.runs : went.labelSets).toBe(3);
        expect(await leftOf(id)).toEqual({ collections: 0, runs: 0, label_sets: 0, topics: 0 });
        expect(api.logged).toEqual([]);
      });
    }

    for (const kind of ['run', 'qrels', 'topics'] as const) {
      it(`a ${kind} upload that comes while the delete holds the collection answers 404`, async () => {
        const id = await seed('c');
        // The delete holds the collection, then waits to remove the run held here.
        const blocker = await holdTransaction(t.db, [
          `select id from runs where collection_id = ${id} for key share`,
        ]);
        const deleting = api.call('DELETE', '/api/collections/c', admin());
        const [deleter] = await waitUntilBlockedBy(t.db, blocker.pid);
        const upload = api.call('POST', UPLOADS[kind].path('c'), {
          ...admin(),
          body: UPLOADS[kind].body,
        });
        await waitUntilBlockedBy(t.db, deleter!);
        await blocker.release();
        const [deleted, uploaded] = await Promise.all([deleting, upload]);
        expect(deleted.status).toBe(200);
        expect(uploaded.status).toBe(404);
        expect(((await uploaded.json()) as { error: { code: string } }).error.code).toBe(
          'not_found',
        );
        expect(await leftOf(id)).toEqual({ collections: 0, runs: 0, label_sets: 0, topics: 0 });
        expect(api.logged).toEqual([]);
      });
    }
  });

  it('answers a mixed crowd of writes racing a delete with 2xx, 404 or 409, never 500', async () => {
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 9; round++) {
      const name = `m${round}`;
      const id = await seed(name);
      const c = `/api/collections/${name}`;
      const requests: Array<[string, () => Promise<Response>]> = [
        ['run', () => api.call('POST', `${c}/runs?name=r`, { ...admin(), body: RUN })],
        [
          'run replace',
          () => api.call('POST', `${c}/runs?name=first&replace=true`, { ...admin(), body: RUN }),
        ],
        ['qrels', () => api.call('POST', `${c}/label-sets?name=q`, { ...admin(), body: QRELS })],
        [
          'qrels replace',
          () =>
            api.call('POST', `${c}/label-sets?name=first&replace=true`, {
              ...admin(),
              body: QRELS,
            }),
        ],
        ['topics', () => api.call('POST', `${c}/topics`, { ...admin(), body: '7\tseven\n' })],
        ['run delete', () => api.call('DELETE', `${c}/runs/first`, admin())],
        ['label set delete', () => api.call('DELETE', `${c}/label-sets/first`, admin())],
        [
          'report',
          () =>
            api.call('POST', '/api/reports/evaluations', {
              ...admin(),
              json: { collection: name, labelSet: 'kept', runs: ['kept'], measures: ['P.5'] },
            }),
        ],
        [
          'consensus',
          () =>
            api.call('POST', `${c}/label-sets/consensus`, {
              ...admin(),
              json: { name: 'agreed', labelSets: ['first', 'q'], method: 'majority' },
            }),
        ],
        ['collection delete', () => api.call('DELETE', c, admin())],
      ];
      // The delete starts once `round` of the others have answered: at once in the first
      // round, after most of them in the last.
      const [, deleteCollection] = requests[requests.length - 1]!;
      let answered = 0;
      let startDelete!: () => void;
      const deleteStarted = new Promise<void>((resolve) => (startDelete = resolve));
      const others = requests.slice(0, -1).map(async ([, send]) => {
        const response = await send();
        if (++answered === round) startDelete();
        return response;
      });
      if (round === 0) startDelete();
      const responses = [...(await Promise.all([...others, deleteStarted.then(deleteCollection)]))];
      responses.forEach((r, i) => {
        const key = `${requests[i]![0]} ${r.status}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      });
      for (const r of responses) expect([200, 201, 204, 404, 409]).toContain(r.status);
      const deleted = responses[requests.findIndex(([what]) => what === 'collection delete')]!;
      expect(deleted.status).toBe(200);
      expect(await leftOf(id)).toEqual({ collections: 0, runs: 0, label_sets: 0, topics: 0 });
    }
    expect(api.logged).toEqual([]);
    expect(await countRows(t.db, 'run_entries')).toBe(0);
    expect(await countRows(t.db, 'labels')).toBe(0);
    console.info(
      `[${t.kind}] mixed race outcomes: ${[...outcomes]
        .sort()
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}`,
    );
  });
});
