// Route files stand alone: no file that defines a sub-app of routes imports another such
// file. What two resources share (schemas, presenters, helpers) lives in a module of its
// own (`core/`, or a workflow folder's `schemas.ts`), so moving or removing one resource's
// routes never breaks another's. app.ts, which mounts every route file, is the one
// module that imports them.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Makes a sub-app of routes: the router factory, or a Hono app made directly. */
const DEFINES_ROUTES = /\bcreateRouter\(\)|\bnew\s+(?:OpenAPIHono|Hono)\b/;
/** The relative modules a source imports or re-exports, statically or dynamically. */
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
/** The router factory and the app that mounts the route files are not route files. */
const NOT_ROUTE_FILES = new Set(['router.ts', 'app.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `from './x.js'` in `dir/a.ts` as the source file it names, `dir/x.ts`. */
function importedFile(from: string, specifier: string): string {
  return resolve(dirname(from), specifier).replace(/\.js$/, '.ts');
}

/**
 * Every import of a route file by a route file, as `importer -> imported` with paths
 * relative to `root`.
 */
function routeToRouteImports(root: string, files: ReadonlyMap<string, string>): string[] {
  const isRoute = (file: string) =>
    !NOT_ROUTE_FILES.has(relative(root, file)) && DEFINES_ROUTES.test(files.get(file) ?? '');
  const found: string[] = [];
  for (const [file, text] of files) {
    if (!isRoute(file)) continue;
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = importedFile(file, match[1]!);
      if (files.has(target) && isRoute(target))
        found.push(`${relative(root, file)} -> ${relative(root, target)}`);
    }
  }
  return found.sort();
}

describe('server route files', () => {
  it('import no other route file', () => {
    const files = new Map(sources(SRC).map((file) => [file, readFileSync(file, 'utf8')]));
    const routes = [...files].filter(
      ([file, text]) => !NOT_ROUTE_FILES.has(relative(SRC, file)) && DEFINES_ROUTES.test(text),
    );
    // The scan sees the route files (a resource per file, in workflow folders).
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.map(([file]) => relative(SRC, file))).toContain('rag/assessment-sets.ts');
    expect(routeToRouteImports(SRC, files)).toEqual([]);
  });

  it('are told from the modules they may import, in every form of import', () => {
    const root = '/src';
    const files = new Map([
      ['/src/app.ts', "import { a } from './x/a.js';\nnew OpenAPIHono();"],
      ['/src/router.ts', 'export const createRouter = () => new OpenAPIHono();'],
      [
        '/src/x/a.ts',
        [
          "import { json } from '../core/schemas.js';",
          "import { PoolSpecSchema } from './schemas.js';",
          "import { b } from '../y/b.js';",
          "export { c } from './c.js';",
          "const d = await import('./d.js');",
          'export const a = createRouter();',
        ].join('\n'),
      ],
      ['/src/y/b.ts', 'export const b = createRouter();'],
      ['/src/x/c.ts', 'export const c = new Hono();'],
      ['/src/x/d.ts', 'export const d = createRouter();'],
      ['/src/x/schemas.ts', 'export const PoolSpecSchema = z.object({});'],
      ['/src/core/schemas.ts', 'export const json = () => ({});'],
    ]);
    expect(routeToRouteImports(root, files)).toEqual([
      'x/a.ts -> x/c.ts',
      'x/a.ts -> x/d.ts',
      'x/a.ts -> y/b.ts',
    ]);
  });
});
