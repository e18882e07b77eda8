import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Migration } from './migrate.js';

// A new embedded database costs PGlite's initdb and every migration: seconds of CPU and
// most of the memory a short command uses. The first new database of a given PGlite
// version and set of migrations is therefore dumped, once migrated and before anything is
// written to it, into a per-user cache; later new databases start as a copy of it.

/**
 * The folder of the cached templates: ASSAY_PGLITE_CACHE, else `$XDG_CACHE_HOME/assay`,
 * else `~/.cache/assay`; ASSAY_PGLITE_CACHE=off turns the cache off.
 */
function cacheDir(): string | undefined {
  const set = process.env.ASSAY_PGLITE_CACHE;
  if (set === 'off') return undefined;
  if (set) return set;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'assay');
}

/** The installed PGlite's version (from its package.json, which it does not export). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error('the PGlite package.json was not found');
    dir = dirname(dir);
  }
}

/**
 * Where the template for these migrations is kept (whether or not it exists yet), named
 * by PGlite's version and a hash of every migration's name and text: a different PGlite
 * or a changed migration never uses another's template. Undefined with the cache off.
 */
export function templatePath(migrations: readonly Migration[]): string | undefined {
  const dir = cacheDir();
  if (dir === undefined) return undefined;
  const version = pgliteVersion();
  const hash = createHash('sha256').update(version);
  for (const m of migrations) hash.update(`\0${m.name}\0${m.sql}`);
  return join(dir, `pglite-${version}-${hash.digest('hex').slice(0, 20)}.tar.gz`);
}

/**
 * Stores a template: written beside its final name, then renamed (a reader never sees half
 * a file). A cache that cannot be written is no error: the next new database is made the
 * long way again.
 */
export function saveTemplate(path: string, bytes: Uint8Array): void {
  const partial = `${path}.${process.pid}.partial`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(partial, bytes, { mode: 0o600 });
    renameSync(partial, path);
  } catch {
    rmSync(partial, { force: true });
  }
}
