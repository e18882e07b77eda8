#!/usr/bin/env node
// Entry point of the `assay` command: runs the bundle built by `npm run build`
// (npm install builds it through the root `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/assay.mjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(
    'assay: the CLI is not built yet; run `npm run build` in the repository root\n',
  );
  process.exit(1);
}
await import(bundle);
