// What the browser tests of the web app share: the web app built from the current sources
// into a folder of its own, the real assay server on embedded PGlite serving it, Debian's
// Chromium driven by playwright-core, and a few waits on the labelling screen.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@assay/platform';
import { startServer, type RunningServer } from '@assay/server';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium';
export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const hasChromium = existsSync(CHROMIUM);
/** Browser tests run where Chromium is, and always on CI (where its absence fails them). */
export const runBrowserTests = hasChromium || process.env.CI === 'true';

/** The web app, the server serving it and a browser; `close` removes what was made. */
export interface WebHarness {
  base: string;
  browser: Browser;
  server: RunningServer;
  /** A call to the API with a token (a string body is sent as text/plain). */
  call(method: string, path: string, token: string, body?: string | object): Promise<Response>;
  /** A new page signed in with `token`, at `path`. */
  signedIn(token: string, path?: string): Promise<Page>;
  close(): Promise<void>;
}

/** Builds the web app, starts the server over a fresh data folder and launches Chromium. */
export async function startWebHarness(adminToken: string): Promise<WebHarness> {
  const webRoot = fileURLToPath(new URL('..', import.meta.url));
  const vite = join(
    dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  // Never apps/web/build: a running `npm start` may serve it.
  const webBuild = mkdtempSync(join(tmpdir(), 'assay-e2e-web-'));
  execFileSync(process.execPath, [vite, 'build'], {
    cwd: webRoot,
    stdio: 'ignore',
    env: { ...process.env, ASSAY_WEB_BUILD_DIR: webBuild },
  });
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
    base,
    browser,
    server,
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
    async signedIn(token, path = '/') {
      const page = await browser.newPage();
      await page.goto(`${base}${path}#token=${encodeURIComponent(token)}`);
      return page;
    },
    async close() {
      await browser.close();
      await server.close({ graceMs: 1000 });
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(webBuild, { recursive: true, force: true });
    },
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
