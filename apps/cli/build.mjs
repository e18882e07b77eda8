// Bundles the CLI into one ESM file so `assay` starts fast and needs no TypeScript at run time.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: start from an empty folder so old chunks do not pile up.
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: {
    assay: new URL('./src/bin.ts', import.meta.url).pathname,
    'eval-worker': new URL('./src/eval-worker.ts', import.meta.url).pathname,
    // Embedded PGlite's thread; the database package looks for it beside the bundle.
    'pglite-worker': new URL('../../packages/db/src/drivers/pglite-worker.mjs', import.meta.url)
      .pathname,
  },
  outdir: new URL('./dist', import.meta.url).pathname,
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
