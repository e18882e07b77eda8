// What the Chromium tests of the web app share: the web app built from the current sources
// into a temporary folder of its own (never apps/web/build, which a running `npm start` may
// serve), the real assay server on embedded PGlite serving it from an empty data folder,
// Debian's Chromium driven by playwright-core, the API called with a token, pages signed in
// with a token (the `#token=` a sign-in link carries), and a few waits on the labelling
// screen. Start it in beforeAll, close it in afterAll. Without /usr/bin/chromium the tests
// are skipped, unless CI=true, where a missing browser is a failure.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@assay/platform';
import { startServer, type RunningServer } from '@assay/server';
import { chromium, type Browser, type Page } from 'playwright-core';
// Chromium's path and flags, shared with bench/annotate-latency.mjs (plain JavaScript).
import launch from './chromium.json' with { type: 'json' };

export const CHROMIUM = process.env.ASSAY_CHROMIUM ?? launch.executablePath;
export const hasChromium = existsSync(CHROMIUM);
/** Browser tests run where Chromium is, and always on CI (where its absence fails them). */
export const runBrowserTests = hasChromium || process.env.CI === 'true';

/** apps/web. */
export const webRoot = fileURLToPath(new URL('..', import.meta.url));
/** Where tests leave screenshots (git-ignored). */
export const shots = join(webRoot, 'e2e-screenshots');

/** The web app, the server serving it and a browser; `close` removes what was made. */
export interface WebHarness {
  /** http://127.0.0.1:PORT */
  base: string;
  browser: Browser;
  server: RunningServer;
  /** The folder the app under test was built into. */
  webBuild: string;
  /** Calls the API (`path` after /api) with a token; a string body is sent as text/plain. */
  call(method: string, path: string, token: string, body?: string | object): Promise<Response>;
  /** A new page signed in with `token` (through a sign-in link), at `path`. */
  signedIn(
    token: string,
    path?: string,
    viewport?: { width: number; height: number },
  ): Promise<Page>;
  close(): Promise<void>;
}

export interface WebHarnessOptions {
  /** Names the temporary folders (assay-e2e-NAME-web-…, assay-e2e-NAME-…). */
  name?: string;
  /** More server configuration (environment variables), beside the data folder and token. */
  env?: Record<string, string>;
  /** How long the server's judge worker waits for one answer, in ms (default 120 000). */
  workerTimeoutMs?: number;
}

/** Builds the web app, starts the server (admin token `adminToken`) and launches Chromium. */
export async function startWebHarness(
  adminToken: string,
  options: WebHarnessOptions = {},
): Promise<WebHarness> {
  const vite = join(
    dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  const prefix = options.name ? `assay-e2e-${options.name}-` : 'assay-e2e-';
  const webBuild = mkdtempSync(join(tmpdir(), `${prefix}web-`));
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await server?.close({ graceMs: 1000 });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(webBuild, { recursive: true, force: true });
  };
  try {
    execFileSync(process.execPath, [vite, 'build'], {
      cwd: webRoot,
      stdio: 'ignore',
      env: { ...process.env, ASSAY_WEB_BUILD_DIR: webBuild },
    });
    mkdirSync(shots, { recursive: true });
    server = await startServer({
      config: {
        ...loadConfig({
          ...options.env,
          ASSAY_DATA_DIR: dataDir,
          ASSAY_ADMIN_TOKEN: adminToken,
        }),
        port: 0,
      },
      log: () => {},
      hostname: '127.0.0.1',
      webDir: webBuild,
      ...(options.workerTimeoutMs === undefined
        ? {}
        : { workerTimeoutMs: options.workerTimeoutMs }),
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: launch.args });
  } catch (error) {
    await close();
    throw error;
  }
  const base = `http://127.0.0.1:${server.port}`;
  const opened = browser;
  return {
    base,
    browser: opened,
    server,
    webBuild,
    call(method, path, token, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined)
        headers['content-type'] = typeof body === 'string' ? 'text/plain' : 'application/json';
      return fetch(`${base}/api${path}`, {
        method,
        headers,
        ...(body === undefined
          ? {}
          : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    },
    async signedIn(token, path = '/', viewport) {
      const page = await opened.newPage(viewport ? { viewport } : {});
      await page.goto(`${base}${path}#token=${encodeURIComponent(token)}`);
      return page;
    },
    close,
  };
}

/** Waits until the labelling screen takes keys (the input lock after a new item is over). */
export async function keysTaken(page: Page): Promise<void> {
  await page.locator('[aria-label="grades"][data-locked="false"]').waitFor();
}

/** The id of the item on the labelling screen. */
export async function itemOnScreen(page: Page): Promise<number> {
  const id = await page.getByRole('region', { name: 'passage' }).getAttribute('data-item');
  return Number(id);
}
