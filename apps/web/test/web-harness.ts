// The harness of the web app's tests in Chromium: the app built once into a temporary
// directory, an assay server on an empty data directory serving it and the API, Chromium,
// and pages signed in with a token. Start it in beforeAll, stop it in afterAll.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@assay/platform';
import { startServer, type RunningServer } from '@assay/server';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.ASSAY_CHROMIUM ?? '/usr/bin/chromium';
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
/** Where tests put their screenshots (ignored by git). */
export const shots = join(webRoot, 'e2e-screenshots');
/** Whether Chromium is here (CI always has it). */
export const hasChromium = existsSync(CHROMIUM);

/** A running web app: the server's base URL, API calls, signed-in pages, and stopping. */
export interface WebApp {
  base: string;
  /** Calls the API (`path` after `/api`) with a token and an optional text or JSON body. */
  call(method: string, path: string, token: string, body?: string | object): Promise<Response>;
  /** A new page signed in with the token (through the invite link), at `path`. */
  signedIn(
    token: string,
    path?: string,
    viewport?: { width: number; height: number },
  ): Promise<Page>;
  stop(): Promise<void>;
}

/** Builds the web app, starts a server with this admin token and launches Chromium. */
export async function startWebApp(adminToken: string): Promise<WebApp> {
  const vite = join(
    dirname(createRequire(import.meta.url).resolve('vite/package.json')),
    'bin/vite.js',
  );
  const webBuild = mkdtempSync(join(tmpdir(), 'assay-e2e-web-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-e2e-data-'));
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
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
        ...loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_ADMIN_TOKEN: adminToken }),
        port: 0,
      },
      log: () => {},
      hostname: '127.0.0.1',
      webDir: webBuild,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  } catch (error) {
    await stop();
    throw error;
  }
  const base = `http://127.0.0.1:${server.port}`;
  const opened = browser;
  return {
    base,
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
    stop,
  };
}
