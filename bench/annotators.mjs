#!/usr/bin/env node
// Concurrent annotators saving labels through the HTTP API of a real `assay serve`
// process: N annotators (default 50), each in a loop of GET …/next and POST …/labels
// (and, once their queue is empty, relabelling their own items with new grades, so the
// load never stops) for D seconds (default 60). Each phase paces the annotators
// differently: by default first like people reading (an exponential pause of 1,000 ms on
// average before each save, `--think-ms 1000`), then flat out (`--think-ms 0`: the next
// request as soon as the last one is answered, a saturation test of the machine rather
// than a picture of 50 people). Prints, per phase, p50/p95/p99 save latency; then the
// labels lost: labels the server acknowledged (201) whose last acknowledged grade is not
// what the campaign's label set holds at the end (must be 0). On a fresh embedded PGlite
// and on PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test, in a
// schema of its own, dropped afterwards). Items and passages are synthetic text made here.
//
//   npm run build && node bench/annotators.mjs [pglite] [postgres] [--annotators N] [--seconds D]
//     [--items-per-annotator K] [--think-ms MS]…
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { seeded } from './seeded.mjs';
import { ensureCliBundle, quantile, startServer } from './serve.mjs';
import { numberFlag } from './args.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => numberFlag(args, name, fallback);
const annotators = flag('--annotators', 50);
const seconds = flag('--seconds', 60);
const perAnnotator = flag('--items-per-annotator', 40);
// Mean reading time between an annotator's saves, in ms, one phase per value (0: flat out).
const thinkTimes = [];
for (let i = args.indexOf('--think-ms'); i >= 0; i = args.indexOf('--think-ms'))
  thinkTimes.push(Number(args.splice(i, 2)[1]));
if (thinkTimes.length === 0) thinkTimes.push(1000, 0);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const engines = args.length > 0 ? args : ['pglite', 'postgres'];
const ADMIN = 'assay_bench-admin-token-0123456789';

ensureCliBundle();

async function call(base, method, path, token, body) {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined)
    headers['content-type'] = typeof body === 'string' ? 'text/plain' : 'application/json';
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** Every page of a list (pages follow the `X-Next-Cursor` header). */
async function listAll(base, path, token) {
  const all = [];
  for (let after; ;) {
    const query = after === undefined ? '' : `?after=${encodeURIComponent(after)}`;
    const response = await fetch(`${base}/api${path}${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status >= 400) throw new Error(`GET ${path}: ${response.status}`);
    all.push(...(await response.json()));
    after = response.headers.get('x-next-cursor') ?? undefined;
    if (after === undefined) return all;
  }
}

async function run(engine) {
  let dataDir;
  let schema;
  const env = {};
  if (engine === 'pglite') {
    dataDir = mkdtempSync(join(tmpdir(), 'assay-bench-annotators-'));
    env.ASSAY_DATA_DIR = dataDir;
  } else {
    const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
    const name = `assay_bench_${process.pid}`;
    const sql = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create schema "${name}"`);
    await sql.end();
    const url = new URL(baseUrl);
    url.searchParams.set('search_path', name);
    env.DATABASE_URL = url.toString();
    env.ASSAY_DATA_DIR = mkdtempSync(join(tmpdir(), 'assay-bench-unused-'));
    schema = { baseUrl, name };
  }
  const server = await startServer(env, ADMIN);
  const base = server.url;
  try {
    // A collection of annotators × K passages over annotators topics, one item list.
    const topics = annotators;
    const docs = [];
    const items = [];
    for (let t = 1; t <= topics; t++) {
      for (let d = 1; d <= perAnnotator; d++) {
        const docno = `t${t}d${d}`;
        docs.push(
          `${docno}\tsynthetic passage ${d} for topic ${t} about wing flutter and boundary layers`,
        );
        items.push({ topic: String(t), docno });
      }
    }
    await call(base, 'POST', '/collections?name=bench&format=tsv', ADMIN, `${docs.join('\n')}\n`);
    await call(
      base,
      'POST',
      '/collections/bench/topics',
      ADMIN,
      Array.from({ length: topics }, (_, i) => `${i + 1}\tquery ${i + 1}`).join('\n'),
    );
    const people = [];
    for (let i = 0; i < annotators; i++) {
      const user = await call(base, 'POST', '/users', ADMIN, { name: `a${i}`, role: 'annotator' });
      people.push(user);
    }
    const campaign = await call(base, 'POST', '/collections/bench/campaigns', ADMIN, {
      name: 'bench',
      items,
      judge: 'graded-0-3',
      annotators: people.map((p) => p.id),
      overlap: 1,
    });

    // The HTTP ceiling of this client and server: the same N concurrent loops on the
    // public health route (no token, no database) for 3 s. Saves far below it are bound by
    // the save itself, not by this process's fetch or the server's HTTP stack.
    const ceiling = [];
    const healthUntil = performance.now() + 3000;
    await Promise.all(
      people.map(async () => {
        while (performance.now() < healthUntil) {
          const started = performance.now();
          const response = await fetch(`${base}/api/health`);
          await response.arrayBuffer();
          ceiling.push(performance.now() - started);
        }
      }),
    );
    ceiling.sort((a, b) => a - b);

    // Each annotator's queue position and the items they have labelled (to relabel later).
    const state = people.map(() => ({ mine: [], round: 0 }));
    const acknowledged = new Map(); // `${topic}\t${docno}` → last acknowledged grade
    const phases = [];
    for (const think of thinkTimes) {
      const random = seeded(think + 1);
      const latencies = [];
      let errors = 0;
      const deadline = performance.now() + seconds * 1000;
      await Promise.all(
        people.map(async (person, index) => {
          const me = state[index];
          // Annotators start at random moments rather than all in the same millisecond.
          if (think > 0) await sleep(random() * think);
          while (performance.now() < deadline) {
            let item;
            if (me.round === 0) {
              const next = await call(base, 'GET', `/campaigns/${campaign.id}/next`, person.token);
              if (next === undefined) {
                me.round = 1;
                continue;
              }
              item = { id: next.item.id, key: `${next.item.topic.id}\t${next.item.document.id}` };
              me.mine.push(item);
            } else {
              item = me.mine[(me.round++ - 1) % me.mine.length];
            }
            // Reading time: exponential with the given mean (none when flat out).
            if (think > 0) await sleep(-Math.log(1 - random()) * think);
            const grade = (index + me.round + item.id) % 4;
            const started = performance.now();
            try {
              await call(base, 'POST', `/campaigns/${campaign.id}/labels`, person.token, {
                item: item.id,
                grade,
                seconds: 1,
              });
              latencies.push(performance.now() - started);
              acknowledged.set(item.key, grade);
            } catch {
              errors++;
            }
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      phases.push({ think, latencies, errors });
    }

    const stored = await listAll(base, '/collections/bench/label-sets/bench/labels', ADMIN);
    const have = new Map(stored.map((l) => [`${l.topicId}\t${l.docId}`, l.grade]));
    let lost = 0;
    for (const [key, grade] of acknowledged) if (have.get(key) !== grade) lost++;
    const f = (x) => x.toFixed(1);
    for (const { think, latencies, errors } of phases) {
      const pace = think > 0 ? `reading ${think} ms on average between saves` : 'flat out';
      console.log(
        `${engine.padEnd(8)} ${annotators} annotators ${pace}, ${seconds} s: ${latencies.length} labels saved ` +
          `(${Math.round(latencies.length / seconds)}/s), save latency p50 ${f(quantile(latencies, 0.5))} ms, ` +
          `p95 ${f(quantile(latencies, 0.95))} ms, p99 ${f(quantile(latencies, 0.99))} ms, errors ${errors}`,
      );
    }
    console.log(
      `${engine.padEnd(8)} labels lost ${lost} of ${acknowledged.size} items; ` +
        `HTTP ceiling (GET /api/health, ${annotators} loops flat out) ${Math.round(ceiling.length / 3)}/s, ` +
        `p95 ${f(quantile(ceiling, 0.95))} ms; load ${loadavg()[0].toFixed(2)}`,
    );
  } finally {
    await server.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const sql = postgres(schema.baseUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop schema if exists "${schema.name}" cascade`);
      await sql.end();
    }
  }
}

console.log(
  `bench/annotators: node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
);
for (const engine of engines) await run(engine);
