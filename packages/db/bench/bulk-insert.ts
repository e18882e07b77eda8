// Measures bulk-insert throughput of @assay/db on embedded PGlite and, when
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set, on that Postgres server (in a
// throwaway schema). Compares the library's unnest batches with plain multi-row VALUES.
// Run: npm run bench -w @assay/db   (BENCH_ROWS=668000 by default)
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import postgres from 'postgres';
import {
  createDb,
  createCollection,
  createRun,
  withTransaction,
  type AssayDb,
} from '../src/index.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 668_000);
const DEPTH = 1_000;

const entries = Array.from({ length: ROWS }, (_, i) => ({
  topicId: String(1_000 + Math.floor(i / DEPTH)),
  docId: `msmarco_passage_${String((i * 7_919) % 8_841_823).padStart(8, '0')}_${i % 97}`,
  rank: (i % DEPTH) + 1,
  score: 30 - (i % DEPTH) / 50,
}));

async function timed(label: string, rows: number, fn: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `${label.padEnd(48)} ${rows} rows in ${seconds.toFixed(2)} s = ${Math.round(rows / seconds)} rows/s`,
  );
}

async function benchmark(assay: AssayDb): Promise<void> {
  const { db } = assay;
  const collection = await createCollection(db, { name: `bench-${Date.now()}` });
  const fresh = async () => {
    await sql`truncate run_entries`.execute(db);
    if (assay.kind === 'postgres') await sql`checkpoint`.execute(db).catch(() => undefined);
  };

  await fresh();
  await timed(`${assay.kind}: createRun (COPY, 2 MB chunks)`, ROWS, () =>
    createRun(db, { collectionId: collection.id, name: 'copy', entries }),
  );

  // Reference: Kysely multi-row VALUES, as many rows as postgres.js's 65,534 parameters allow.
  await fresh();
  const perBatch = Math.floor(65_534 / 5);
  await timed(`${assay.kind}: multi-row VALUES (${perBatch} rows/batch)`, ROWS, () =>
    withTransaction(db, async (trx) => {
      const run = await trx
        .insertInto('runs')
        .values({ collection_id: collection.id, name: 'values' })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (let start = 0; start < entries.length; start += perBatch) {
        await trx
          .insertInto('run_entries')
          .values(
            entries.slice(start, start + perBatch).map((e) => ({
              run_id: run.id,
              topic_id: e.topicId,
              doc_id: e.docId,
              rank: e.rank,
              score: e.score,
            })),
          )
          .execute();
      }
    }),
  );
  await sql`delete from collections where id = ${collection.id}`.execute(db);
}

const pglite = await createDb({ dataDir: 'memory://' });
try {
  await benchmark(pglite);
} finally {
  await pglite.close();
}

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (url) {
  const schema = `assay_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema "${schema}"`);
  const scoped = new URL(url);
  scoped.searchParams.set('search_path', schema);
  const server = await createDb({ databaseUrl: scoped.toString() });
  try {
    await benchmark(server);
  } finally {
    await server.close();
    await admin.unsafe(`drop schema "${schema}" cascade`);
    await admin.end();
  }
}
