// What a Chromium test of the web app needs: the app built from the current sources into
// a folder of its own (apps/web/build may be what a running `npm start` serves), the real
// assay server on embedded PGlite serving it, and Debian's Chromium driven by
// playwright-core. Without /usr/bin/chromium the tests are skipped, unless CI=true.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@assay/platform';
import { startServer, type RunningServer } from '@assay/server';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium';
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const webRoot = fileURLToPath(new URL('..', import.meta.url));

/** Screenshots go here (git-ignored). */
export const shots = join(webRoot, 'e2e-screenshots');

/** Whether to run: Chromium is there, or CI demands it (and fails without it). */
export const runBrowserTests = existsSync(CHROMIUM) || process.env.CI === 'true';

/** A built web app served by a running assay server, and a browser. */
export interface WebAppUnderTest {
  server: RunningServer;
  browser: Browser;
  /** http://127.0.0.1:PORT */
  base: string;
  /** A call to the API as `token` (a string body is sent as text/plain). */
  call(method: string, path: string, token: string, body?: string | object): Promise<Response>;
  /** A new page signed in with `token` (through a sign-in link), at `path`. */
  signedIn(
    token: string,
    path?: string,
    viewport?: { width: number; height: number },
  ): Promise<Page>;
  close(): Promise<void>;
}

/** Builds the web app, starts assay on a fresh data directory with `adminToken`, launches Chromium. */
export async function startWebApp(adminToken: string): Promise<WebAppUnderTest> {
  const vite = join(
    dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  const webBuild = mkdtempSync(join(tmpdir(), 'assay-e2e-web-'));
  execFileSync(process.execPath, [vite, 'build'], {
    cwd: webRoot,
    stdio: 'ignore',
    env: { ...process.env, ASSAY_WEB_BUILD_DIR: webBuild },
  });
  mkdirSync(shots, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-e2e-'));
  const server = await startServer({
    config: { ...loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_ADMIN_TOKEN: adminToken }), port: 0 },
    log: () => {},
    hostname: '127.0.0.1',
    webDir: webBuild,
  });
  const base = `http://127.0.0.1:${server.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  return {
    server,
    browser,
    base,
    call: (method, path, token, body) =>
      fetch(`${base}/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined
            ? {}
            : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' }),
        },
        ...(body === undefined
          ? {}
          : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    signedIn: async (token, path = '/', viewport) => {
      const page = await browser.newPage(viewport ? { viewport } : {});
      await page.goto(`${base}${path}#token=${encodeURIComponent(token)}`);
      return page;
    },
    close: async () => {
      await browser.close();
      await server.close({ graceMs: 1000 });
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(webBuild, { recursive: true, force: true });
    },
  };
}
