// Serves the built web app (apps/web/build) at `/` beside the API, with a
// Content-Security-Policy that forbids inline scripts.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MiddlewareHandler } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The web app's build folder of this checkout, if it has been built. */
export function defaultWebDir(): string | undefined {
  if (process.env.ASSAY_WEB_DIR) return process.env.ASSAY_WEB_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'apps', 'web', 'build');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The policy: scripts only from this server, plus the built page's own bootstrap script
 * by its SHA-256 (so no other inline script or event-handler attribute ever runs); no
 * plugins, no framing, requests only to this server.
 */
export function contentSecurityPolicy(scriptHashes: readonly string[] = []): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'sha256-${h}'`)].join(' ');
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** SHA-256 (base64) of each inline `<script>` of a page. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(createHash('sha256').update(match[1]!, 'utf8').digest('base64'));
  }
  return hashes;
}

/** The app page (index.html) with its policy; undefined until the app is built. */
interface AppPage {
  mtimeMs: number;
  html: string;
  policy: string;
}

/**
 * Reads the app page of `root`, again whenever a build replaces it: a server that was
 * running while the app was rebuilt serves the new page, whose files the build wrote,
 * instead of the old one whose files are gone (a blank page until restarted). While a
 * build has removed the page, the last one read still serves.
 */
function appPageReader(root: string | undefined): () => AppPage | undefined {
  let page: AppPage | undefined;
  return () => {
    if (!root) return undefined;
    try {
      const file = join(root, 'index.html');
      const { mtimeMs } = statSync(file);
      if (page?.mtimeMs !== mtimeMs) {
        const html = readFileSync(file, 'utf8');
        page = { mtimeMs, html, policy: contentSecurityPolicy(inlineScriptHashes(html)) };
      }
    } catch {
      // not built (yet), or being rebuilt
    }
    return page;
  };
}

/**
 * Middleware answering GET/HEAD outside /api from the build folder: a file when one
 * exists, else the app's fallback page (the app routes in the browser). Without a build,
 * `/` explains how to make one.
 */
export function serveWebApp(webDir: string | undefined): MiddlewareHandler {
  const root = webDir ? resolve(webDir) : undefined;
  const appPage = appPageReader(root);
  return async (c, next) => {
    if (c.req.path === '/api' || c.req.path.startsWith('/api/')) return next();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const page = appPage();
    const headers: Record<string, string> = {
      'content-security-policy': page?.policy ?? contentSecurityPolicy(),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    if (!root || !page) {
      return c.text(
        'The assay web app is not built: run `npm run build` (the API is at /api).\n',
        404,
        headers,
      );
    }
    let path: string;
    try {
      path = decodeURIComponent(c.req.path);
    } catch {
      path = '/';
    }
    const file = resolve(root, `.${path}`);
    if ((file === root || file.startsWith(root + sep)) && file !== root) {
      try {
        if (statSync(file).isFile()) {
          const type = TYPES[extname(file)] ?? 'application/octet-stream';
          const immutable = file.includes(`${sep}immutable${sep}`);
          return c.body(readFileSync(file), 200, {
            ...headers,
            'content-type': type,
            'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          });
        }
      } catch {
        // Not a file: the app's own router handles the path.
      }
    }
    // The app's own files live under /_app/: one that is not there is missing (a chunk
    // a rebuild removed), and answering it with the app page would hand the browser HTML
    // as a script. Every other path is one of the app's routes.
    if (path === '/_app' || path.startsWith('/_app/')) {
      return c.text('Not found\n', 404, { ...headers, 'cache-control': 'no-cache' });
    }
    return c.body(page.html, 200, {
      ...headers,
      'content-type': TYPES['.html']!,
      'cache-control': 'no-cache',
    });
  };
}
