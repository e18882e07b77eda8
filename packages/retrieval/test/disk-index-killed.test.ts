// An on-disk index build killed with SIGKILL after spilling sorted runs leaves nothing in
// its folder: the runs are files without a name, which the system frees with the process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'assay-killed-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('leaves no spilled runs behind when the build is killed', async () => {
  const source = fileURLToPath(new URL('../src/disk-index.ts', import.meta.url));
  const built = buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    conditions: ['source'],
    write: false,
  });
  writeFileSync(join(dir, 'disk-index.mjs'), built.outputFiles[0]!.text);
  const folder = join(dir, 'indexes');
  writeFileSync(
    join(dir, 'build.mjs'),
    `import { mkdirSync } from 'node:fs';
    import { DiskIndexBuilder } from './disk-index.mjs';
    mkdirSync(${JSON.stringify(folder)});
    const builder = new DiskIndexBuilder(${JSON.stringify(join(folder, 'x.index'))}, {
      analyzer: { stemmer: 'none', stopwords: 'none' },
      memoryBudget: 16 * 16,
    });
    for (let d = 0; builder.runCount < 3; d++)
      builder.add({ id: 'd' + d, text: 'w' + d + ' w' + (d + 1) + ' w' + (d + 2) + ' w' + (d + 3) });
    process.stdout.write('spilled\\n');
    setInterval(() => {}, 60_000);`,
  );
  const child = spawn(process.execPath, ['build.mjs'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the build exited before spilling')));
  });
  child.kill('SIGKILL');
  await exited;
  expect(readdirSync(folder)).toEqual([]);
});
