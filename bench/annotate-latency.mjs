#!/usr/bin/env node
// Key press → next item painted on the labelling screen, in Chromium against a real
// `assay serve` process serving the web app built from the current sources. One annotator
// labels N items (default 100) with the keyboard, as a person would: each key once the
// item's input lock (the campaign's default, 250 ms) is over and a short reading pause
// (--think-ms, default 50) has passed. The page itself measures, from the key's event time
// to the first frame painted after the next item's passage is in the page (a
// requestAnimationFrame, then a task after it); the script prints p50/p95/max per
// database, then how many labels the server holds (every one must be there). On a fresh
// embedded PGlite, and on PostgreSQL when TEST_DATABASE_URL or --database-url is given (in
// a schema of its own, dropped afterwards). Passages are synthetic text made here.
//
//   npm run build && node bench/annotate-latency.mjs [--items N] [--think-ms MS]
//     [--database-url postgres://…]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { numberFlag } from './args.mjs';
import { ensureCliBundle, quantile, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const items = numberFlag(args, '--items', 100);
const thinkMs = numberFlag(args, '--think-ms', 50);
const urlAt = args.indexOf('--database-url');
const databaseUrl = urlAt >= 0 ? args.splice(urlAt, 2)[1] : process.env.TEST_DATABASE_URL;
const engines = databaseUrl ? ['pglite', 'postgres'] : ['pglite'];
const ADMIN = 'assay_bench-admin-token-0123456789';
const root = fileURLToPath(new URL('../', import.meta.url));
// Chromium's path and flags, as the web app's browser tests launch it.
const launch = JSON.parse(readFileSync(join(root, 'apps/web/test/chromium.json'), 'utf8'));
const CHROMIUM = process.env.ASSAY_CHROMIUM ?? launch.executablePath;
// The web app's own browser driver (a dependency of apps/web, as its e2e tests use it).
const webRequire = createRequire(join(root, 'apps/web/package.json'));
const playwright = await import(pathToFileURL(webRequire.resolve('playwright-core')).href);
const { chromium } = playwright.default ?? playwright;

ensureCliBundle();

/** The web app built from the current sources, into a folder of its own. */
function buildWebApp() {
  const out = mkdtempSync(join(tmpdir(), 'assay-bench-web-'));
  const vite = join(dirname(webRequire.resolve('vite/package.json')), 'bin/vite.js');
  console.log('building the web app …');
  execFileSync(process.execPath, [vite, 'build'], {
    cwd: join(root, 'apps/web'),
    stdio: 'ignore',
    env: { ...process.env, ASSAY_WEB_BUILD_DIR: out },
  });
  return out;
}

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

// Runs in the page before its scripts: a grade key's event time, and the first frame
// painted once another item's passage is in the page.
function measureInPage() {
  const w = /** @type {any} */ (globalThis);
  w.__latencies = [];
  let pending = null;
  const onScreen = () => w.document.querySelector('section[aria-label="passage"]')?.dataset.item;
  w.addEventListener(
    'keydown',
    (event) => {
      if (/^[0-9]$/.test(event.key)) pending = { at: event.timeStamp, from: onScreen() };
    },
    true,
  );
  new w.MutationObserver(() => {
    const now = onScreen();
    if (!pending || !now || now === pending.from) return;
    const { at } = pending;
    pending = null;
    w.requestAnimationFrame(() => setTimeout(() => w.__latencies.push(performance.now() - at), 0));
  }).observe(w.document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-item'],
  });
}

async function run(engine, webDir, browser) {
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-bench-latency-'));
  const env = { ASSAY_DATA_DIR: dataDir, ASSAY_WEB_DIR: webDir };
  let schema;
  if (engine === 'postgres') {
    const name = `assay_bench_latency_${process.pid}`;
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create schema "${name}"`);
    await sql.end();
    const url = new URL(databaseUrl);
    url.searchParams.set('search_path', name);
    env.DATABASE_URL = url.toString();
    schema = name;
  }
  const server = await startServer(env, ADMIN);
  const base = server.url;
  try {
    // N passages of about 1,000 characters over ten topics.
    const filler = 'the wing flutters as the boundary layer separates near the trailing edge; ';
    const docs = [];
    const list = [];
    for (let i = 1; i <= items; i++) {
      const topic = String(((i - 1) % 10) + 1);
      docs.push(`p${i}\tpassage ${i}: ${filler.repeat(13)}`);
      list.push({ topic, docno: `p${i}` });
    }
    await call(base, 'POST', '/collections?name=bench&format=tsv', ADMIN, `${docs.join('\n')}\n`);
    const topics = Array.from({ length: 10 }, (_, t) => `${t + 1}\twing flutter ${t + 1}`);
    await call(base, 'POST', '/collections/bench/topics', ADMIN, topics.join('\n'));
    const user = await call(base, 'POST', '/users', ADMIN, { name: 'ann', role: 'annotator' });
    const campaign = await call(base, 'POST', '/collections/bench/campaigns', ADMIN, {
      name: 'latency',
      items: list,
      judge: 'graded-0-3',
      annotators: [user.id],
    });

    const page = await browser.newPage();
    await page.addInitScript(measureInPage);
    await page.goto(`${base}/annotate/${campaign.id}#token=${encodeURIComponent(user.token)}`);
    await page.getByText(`Progress: 0 of ${items}`).waitFor();
    for (let i = 0; i < items; i++) {
      await page.locator('[aria-label="grades"][data-locked="false"]').waitFor();
      if (thinkMs > 0) await page.waitForTimeout(thinkMs);
      await page.keyboard.press(String(i % 4));
      if (i + 1 < items)
        await page.waitForFunction((n) => globalThis.__latencies.length >= n, i + 1, {
          polling: 50,
        });
    }
    await page.getByText('Everything is labelled. Thank you!').waitFor();
    await page.getByText('All labels saved.').waitFor();
    const latencies = (await page.evaluate(() => globalThis.__latencies)).sort((a, b) => a - b);
    await page.close();
    const summary = await call(base, 'GET', `/campaigns/${campaign.id}`, ADMIN);
    const stored = summary.annotators.find((a) => a.name === 'ann')?.done ?? 0;
    const ms = (v) => `${v.toFixed(1)} ms`;
    console.log(
      `${engine.padEnd(8)} ${latencies.length} key presses: key → next item painted ` +
        `p50 ${ms(quantile(latencies, 0.5))}, p95 ${ms(quantile(latencies, 0.95))}, ` +
        `max ${ms(latencies.at(-1))}; labels stored ${stored} of ${items}, lost ${items - stored}`,
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop schema if exists "${schema}" cascade`);
      await sql.end();
    }
  }
}

const webDir = buildWebApp();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: launch.args });
try {
  console.log(
    `${items} items, one annotator, keys after the 250 ms input lock and ${thinkMs} ms more`,
  );
  for (const engine of engines) await run(engine, webDir, browser);
} finally {
  await browser.close();
  rmSync(webDir, { recursive: true, force: true });
}
