// Bundles the CLI into one ESM file so `assay` starts fast and needs no TypeScript at run time.
import { build } from 'esbuild';

await build({
  entryPoints: {
    assay: new URL('./src/bin.ts', import.meta.url).pathname,
    'eval-worker': new URL('./src/eval-worker.ts', import.meta.url).pathname,
  },
  outdir: new URL('./dist', import.meta.url).pathname,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  packages: 'bundle',
  sourcemap: true,
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __assayCreateRequire } from 'node:module'; const require = __assayCreateRequire(import.meta.url);",
  },
});
