// Bundles the CLI into one ESM file so `assay` starts fast and needs no TypeScript at run time.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('./dist', import.meta.url));
// Built beside dist/, then moved in (see installBuild).
const next = `${dist}.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });

await build({
  entryPoints: {
    assay: new URL('./src/bin.ts', import.meta.url).pathname,
    'eval-worker': new URL('./src/eval/eval-worker.ts', import.meta.url).pathname,
    // Embedded PGlite's thread; the database package looks for it beside the bundle.
    'pglite-worker': new URL('../../packages/db/src/drivers/pglite-worker.mjs', import.meta.url)
      .pathname,
  },
  outdir: next,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Commands are imported on first use; splitting keeps each in its own chunk.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  // Workspace packages (@assay/*) are TypeScript and get bundled; third-party packages stay
  // in node_modules (PGlite, for one, loads its WebAssembly relative to its own files).
  plugins: [
    {
      name: 'external-node-modules',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith('@assay/') ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
  sourcemap: true,
  logLevel: 'warning',
});

installBuild(next, dist);

/**
 * Moves a build into dist/ so that an `assay` running meanwhile (a server, a command,
 * processes started by tests) never finds a file missing: chunks, whose names carry
 * content hashes, join the ones there; each entry file is then replaced by a rename,
 * which is atomic. The chunks of the previous build stay one build longer, for processes
 * started from it; older ones are removed.
 */
function installBuild(from, to) {
  const manifest = join(to, '.build-files.json');
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    // first build here
  }
  const built = [];
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    mkdirSync(join(to, entry.name), { recursive: true });
    for (const name of readdirSync(join(from, entry.name))) {
      renameSync(join(from, entry.name, name), join(to, entry.name, name));
      built.push(`${entry.name}/${name}`);
    }
  }
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    renameSync(join(from, entry.name), join(to, entry.name));
    built.push(entry.name);
  }
  const keep = new Set([...built, ...previous, '.build-files.json']);
  for (const entry of readdirSync(to, { withFileTypes: true })) {
    const names = entry.isDirectory()
      ? readdirSync(join(to, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of names) if (!keep.has(name)) rmSync(join(to, name), { force: true });
  }
  writeFileSync(manifest, `${JSON.stringify(built)}\n`);
  rmSync(from, { recursive: true, force: true });
}
