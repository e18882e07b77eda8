import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Builds the assay bundle once before any test runs, so process-level tests run the current code. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../', import.meta.url));
  execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root, stdio: 'inherit' });
}
