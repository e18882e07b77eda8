// What the Chromium tests of the web app share: the app built once into a temporary
// folder, `assay serve` on an embedded database in another, Chromium, the API called with
// a token, and a page signed in with a token (the `#token=` a sign-in link carries).
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

/** Whether Chromium is here (CI must have it: there a missing one fails the test). */
export const hasChromium = existsSync(CHROMIUM);
/** Where tests leave screenshots. */
export const screenshots = join(webRoot, 'e2e-screenshots');

/** A running server with the built app, and Chromium. */
export interface E2e {
  base: string;
  browser: Browser;
  /** Calls the API (`path` after /api) with a token; a string body is sent as text. */
  call(method: string, path: string, token: string, body?: string | object): Promise<Response>;
  /** A new page signed in with the token, at `path`. */
  signedIn(token: string, path?: string): Promise<Page>;
  close(): Promise<void>;
}

/** Builds the app, starts the server (admin token `adminToken`) and Chromium. */
export async function startE2e(adminToken: string, name: string): Promise<E2e> {
  const vite = join(
    dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  const webBuild = mkdtempSync(join(tmpdir(), `assay-e2e-${name}-web-`));
  execFileSync(process.execPath, [vite, 'build'], {
    cwd: webRoot,
    stdio: 'ignore',
    env: { ...process.env, ASSAY_WEB_BUILD_DIR: webBuild },
  });
  mkdirSync(screenshots, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), `assay-e2e-${name}-`));
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await server?.close({ graceMs: 1000 });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(webBuild, { recursive: true, force: true });
  };
  try {
    server = await startServer({
      config: {
        ...loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_ADMIN_TOKEN: adminToken }),
        port: 0,
      },
      log: () => {},
      hostname: '127.0.0.1',
      webDir: webBuild,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  } catch (error) {
    await close();
    throw error;
  }
  const base = `http://127.0.0.1:${server.port}`;
  const opened = browser;
  return {
    base,
    browser: opened,
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
      const page = await opened.newPage();
      await page.goto(`${base}${path}#token=${encodeURIComponent(token)}`);
      return page;
    },
    close,
  };
}
