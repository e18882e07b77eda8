import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `methods/` folder of this assay checkout (the shipped method prompts). */
export function defaultMethodsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'methods');
    if (existsSync(join(candidate, 'query2doc.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the methods/ folder of this assay checkout');
    dir = parent;
  }
}
