import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, inlineScriptHashes, serveWebApp } from '../src/core/web-app.js';

const BOOT = 'start(document.currentScript)';
const dir = mkdtempSync(join(tmpdir(), 'assay-web-'));
writeFileSync(join(dir, 'index.html'), `<html><body><script>${BOOT}</script></body></html>`);
mkdirSync(join(dir, '_app', 'immutable'), { recursive: true });
writeFileSync(join(dir, '_app', 'immutable', 'app.js'), 'export {}');
writeFileSync(join(tmpdir(), 'assay-secret.txt'), 'outside');

function app(webDir: string | undefined) {
  const hono = new Hono();
  hono.get('/api/health', (c) => c.json({ status: 'ok' }));
  hono.use('*', serveWebApp(webDir));
  hono.notFound((c) => c.json({ error: { code: 'not_found', message: 'no route' } }, 404));
  return hono;
}

describe('serving the web app', () => {
  it('answers files, and the app page for any other path, with the policy header', async () => {
    const web = app(dir);
    const file = await web.request('/_app/immutable/app.js');
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(file.headers.get('cache-control')).toContain('immutable');
    for (const path of ['/', '/annotate/3', '/admin/collections/x%20y']) {
      const page = await web.request(path);
      expect(page.status, path).toBe(200);
      expect(await page.text()).toContain(BOOT);
    }
    // The hash of the page's one inline script, computed here by hand.
    const hash = createHash('sha256').update(BOOT).digest('base64');
    const policy = (await web.request('/')).headers.get('content-security-policy')!;
    expect(policy).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it('answers 404 for a missing asset of the app, never the app page', async () => {
    const web = app(dir);
    // A page built before a rebuild asks for a chunk the rebuild removed: the browser must
    // see a failed script load (and the app reload itself), not HTML served as JavaScript.
    for (const path of ['/_app/immutable/gone.js', '/_app/version.json', '/_app/immutable/']) {
      const missing = await web.request(path);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get('content-type'), path).toMatch(/^text\/plain/);
      expect(await missing.text(), path).not.toContain(BOOT);
    }
  });

  it('never reads outside the build folder and leaves /api alone', async () => {
    const web = app(dir);
    const escape = await web.request('/..%2Fassay-secret.txt');
    expect(await escape.text()).not.toContain('outside');
    expect((await web.request('/api/nothing')).status).toBe(404);
    expect(await (await web.request('/api/health')).json()).toEqual({ status: 'ok' });
    expect((await web.request('/', { method: 'POST' })).status).toBe(404);
  });

  it('serves the page a rebuild wrote, with its policy, without a restart', async () => {
    const build = mkdtempSync(join(tmpdir(), 'assay-web-rebuilt-'));
    const web = app(build);
    // Not built yet when the server started.
    expect((await web.request('/')).status).toBe(404);
    writeFileSync(join(build, 'index.html'), '<html><script>first()</script></html>');
    expect(await (await web.request('/admin')).text()).toContain('first()');
    // A rebuild removes the page, then writes a new one (new bootstrap, new asset names).
    rmSync(join(build, 'index.html'));
    const during = await web.request('/');
    expect(await during.text()).toContain('first()');
    writeFileSync(join(build, 'index.html'), '<html><script>second()</script></html>');
    utimesSync(join(build, 'index.html'), new Date(), new Date(Date.now() + 5_000));
    const after = await web.request('/annotate/1');
    expect(await after.text()).toContain('second()');
    const hash = createHash('sha256').update('second()').digest('base64');
    expect(after.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`);
  });

  it('says how to build the app when it is not built', async () => {
    const response = await app(undefined).request('/');
    expect(response.status).toBe(404);
    expect(await response.text()).toMatch(/npm run build/);
  });

  it('hashes only inline scripts', () => {
    expect(inlineScriptHashes('<script src="/a.js"></script><script>x()</script>')).toEqual([
      createHash('sha256').update('x()').digest('base64'),
    ]);
    expect(contentSecurityPolicy()).toContain("script-src 'self';");
  });
});
