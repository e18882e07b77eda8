// Server defaults: response headers, the failed-authentication limit, the listening
// interface and socket timeouts.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forEachDatabase, OPEN_TIMEOUT_MS } from '@assay/platform/testing';
import { FailedAuthLimiter } from '../src/access/auth-rate-limit.js';
import { startServer, type RunningServer } from '../src/index.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

forEachDatabase('server defaults', (t) => {
  let api: TestApi;

  it('sends nosniff and a deny-all CSP with API responses, errors included', async () => {
    api = await setUpApi(t.db);
    for (const response of [
      await api.call('GET', '/api/health'),
      await api.call('GET', '/api/collections', { token: api.admin }),
      await api.call('GET', '/api/collections'),
      await api.call('GET', '/api/no-such-route', { token: api.admin }),
    ]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
    }
  });

  it('answers 429 with Retry-After after too many failed authentications', async () => {
    api = await setUpApi(t.db, { maxAuthFailures: 3 });
    expect((await api.call('GET', '/api/collections', { token: api.admin })).status).toBe(200);
    for (const token of ['wrong-1', 'wrong-2']) {
      const failed = await api.call('GET', '/api/collections', { token });
      expect(failed.status).toBe(401);
    }
    // A malformed Authorization header is a token presented and refused too.
    const malformed = await api.app.request('/api/collections', {
      headers: { authorization: 'Basic d3Jvbmc6d3Jvbmc=' },
    });
    expect(malformed.status).toBe(401);
    const limited = await api.call('GET', '/api/collections', { token: 'wrong-4' });
    expect(await errorOf(limited)).toMatchObject({ status: 429, code: 'too_many_requests' });
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // The address waits, whatever token it now sends; public routes stay open.
    expect((await api.call('GET', '/api/collections', { token: api.admin })).status).toBe(429);
    expect((await api.call('GET', '/api/health')).status).toBe(200);
  });

  it('does not count requests without a token: a page on another origin locks nobody out', async () => {
    api = await setUpApi(t.db, { maxAuthFailures: 3 });
    // What any web page can make a visitor's browser send: no Authorization header.
    for (let i = 0; i < 25; i++) {
      const anonymous = await api.app.request('/api/collections', {
        headers: { origin: 'https://elsewhere.example' },
      });
      expect(anonymous.status).toBe(401);
    }
    expect((await api.call('GET', '/api/collections', { token: api.admin })).status).toBe(200);
    expect((await api.call('GET', '/api/me', { token: api.annotator })).status).toBe(200);
    // Wrong tokens still count.
    for (const token of ['wrong-1', 'wrong-2', 'wrong-3'])
      expect((await api.call('GET', '/api/collections', { token })).status).toBe(401);
    expect((await api.call('GET', '/api/collections', { token: api.admin })).status).toBe(429);
  });
});

describe('FailedAuthLimiter', () => {
  it('counts failures per address within the window, then forgets them', () => {
    let now = 1_000_000;
    const limiter = new FailedAuthLimiter(2, 60_000, 10, () => now);
    limiter.fail('a');
    expect(limiter.retryAfter('a')).toBe(0);
    limiter.fail('a');
    // The window began at the first failure: 60 s left.
    expect(limiter.retryAfter('a')).toBe(60);
    expect(limiter.retryAfter('b')).toBe(0);
    now += 59_500;
    expect(limiter.retryAfter('a')).toBe(1);
    now += 500;
    expect(limiter.retryAfter('a')).toBe(0);
  });

  it('tracks at most maxClients addresses', () => {
    const limiter = new FailedAuthLimiter(1, 60_000, 2, () => 0);
    limiter.fail('a');
    limiter.fail('b');
    limiter.fail('c');
    expect(limiter.retryAfter('a')).toBe(0);
    expect(limiter.retryAfter('b')).toBe(1 * 60);
    expect(limiter.retryAfter('c')).toBe(60);
  });
});

describe('startServer sockets', () => {
  let server: RunningServer | undefined;
  let dir: string | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server?.close({ graceMs: 100 });
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a raw connection; resolves `closed` when the server ends it. */
  function open(port: number) {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => {});
    const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
    return { socket, closed };
  }

  it(
    'listens on 127.0.0.1 by default and closes idle, header-less and slow-body sockets',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-defaults-'));
      server = await startServer({
        config: { dataDir: dir, port: 0, adminToken: 'assay_defaults-test-admin' },
        log: () => {},
        timeouts: { idleMs: 300, headersMs: 300, requestMs: 600 },
      });
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/api`);
      // Nothing sent at all.
      const idle = open(server.port);
      await idle.closed;
      // Headers never finished.
      const partial = open(server.port);
      partial.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
      await partial.closed;
      // A body announced as 1000 bytes trickling in a byte at a time.
      const slow = open(server.port);
      slow.socket.write(
        'POST /api/collections?name=x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n' +
          'Authorization: Bearer assay_defaults-test-admin\r\n\r\n',
      );
      const trickle = setInterval(() => slow.socket.write('a'), 100);
      const answer = await slow.closed;
      clearInterval(trickle);
      // Whatever was said before closing, the upload was never accepted.
      expect(answer).not.toContain('201 Created');
      // A normal request still works.
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
    },
    OPEN_TIMEOUT_MS,
  );
});
