import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Which modules `assay` loads, as node's module loader sees them: a loader hook that
// appends every URL it loads to a file. The bundle marks each source file it holds with a
// `// packages/<name>/src/...` comment, which tells whether a chunk is platform code.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'assay-startup-'));
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.ASSAY_TEST_LOADED, url + '\\n');
  return next(url, context);
}
`,
);
writeFileSync(
  join(dir, 'register.mjs'),
  `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs `assay ARGS` and returns its exit status, output and the URLs of the modules it loaded. */
function loadedBy(args: string[]): { status: number | null; stdout: string; urls: string[] } {
  const log = join(dir, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(
    process.execPath,
    ['--import', join(dir, 'register.mjs'), 'apps/cli/bin/assay.js', ...args],
    { cwd: root, encoding: 'utf8', env: { ...process.env, ASSAY_TEST_LOADED: log } },
  );
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { status: result.status, stdout: result.stdout, urls };
}

const thirdParty = (urls: string[]) => urls.filter((url) => url.includes('/node_modules/'));
const bundleSources = (urls: string[]) =>
  urls
    .filter((url) => url.startsWith('file:') && url.includes('/apps/cli/dist/'))
    .flatMap((url) =>
      [
        ...readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ (packages\/[\w-]+)\/src\//gm),
      ].map((m) => m[1]),
    );

describe('what starting assay loads', () => {
  it('--version and --help load no package, no platform, database, model or statistics code', () => {
    for (const args of [['--version'], ['--help']]) {
      const { status, stdout, urls } = loadedBy(args);
      expect(status).toBe(0);
      expect(stdout).toMatch(args[0] === '--version' ? /^assay \d/ : /^Usage: assay/);
      // Something was recorded: the hook saw the entry bundle.
      expect(urls.some((url) => url.endsWith('/apps/cli/dist/assay.mjs'))).toBe(true);
      expect(thirdParty(urls)).toEqual([]);
      expect(bundleSources(urls)).toEqual([]);
    }
  });

  it('a database command loads the platform and its database client (the check above can fail)', () => {
    const { status, urls } = loadedBy(['db', '--help']);
    expect(status).toBe(0);
    expect(thirdParty(urls).some((url) => url.includes('/node_modules/kysely/'))).toBe(true);
    expect(bundleSources(urls)).toContain('packages/platform');
  });

  it('a failing command still reports its error in words with its exit status', () => {
    // The error reporter is loaded only when a command fails.
    const result = spawnSync(
      process.execPath,
      ['apps/cli/bin/assay.js', 'eval', '-m', 'no_such_measure', 'a', 'b'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^assay eval: .*no_such_measure/);
  });
});
