import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map of the code: every folder of every workspace named with a
// line, and a table from each number a user reads to the function computing it. This test
// holds the map against the tree, so a folder added or a function renamed without the map
// fails here instead of leaving readers a stale page.
const root = fileURLToPath(new URL('../', import.meta.url));
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const codeSpans = new Set([...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!));

/** The folders of tracked files, as git lists them (builds and dependencies are not tracked). */
const trackedFolders = new Set(
  execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .flatMap((file) => {
      const parts = file.split('/').slice(0, -1);
      return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    }),
);

/**
 * The folders the map must name: every folder of every workspace and at the root, except
 * tests (each workspace's `test/` is described once) and SvelteKit's page folders below
 * `apps/web/src/routes/*` ([id], items, …), which are URLs documented in docs/web-app.md.
 */
const mappedFolders = [...trackedFolders].filter((folder) => {
  const parts = folder.split('/');
  if (parts.includes('test') && folder !== 'test') return false;
  if (folder.startsWith('test/') || folder.startsWith('docs') || folder.startsWith('.ci'))
    return false;
  if (/^apps\/web\/src\/routes\/[^/]+\/./.test(folder)) return false;
  if (folder === 'packages' || folder === 'apps' || folder.endsWith('/src')) return false;
  // Inside the shipped data folders (datasets/cranfield, …) every folder is data.
  if (/^(datasets|judges|methods|migrations|bench|scripts)\/./.test(folder)) return false;
  return true;
});

describe('the architecture map (docs/architecture.md)', () => {
  it('names every folder of every workspace', () => {
    const missing = mappedFolders.filter((folder) => !codeSpans.has(`${folder}/`));
    expect(missing, 'folders the map does not name (add a line for each)').toEqual([]);
    // The map is checked against something: the platform alone has a dozen folders.
    expect(
      mappedFolders.filter((f) => f.startsWith('packages/platform/src/')).length,
    ).toBeGreaterThan(10);
  });

  it('names only paths that exist', () => {
    const paths = [...codeSpans]
      .map((span) => span.replace(/:[A-Za-z_$][\w$]*$/, ''))
      .filter((span) => /^(packages|apps)\/[\w./[\]-]+$/.test(span));
    expect(paths.length).toBeGreaterThan(50);
    expect(paths.filter((p) => !existsSync(join(root, p.replace(/\/$/, ''))))).toEqual([]);
  });

  it('points every number at a function that exists', () => {
    const section = doc.split('## Where each number comes from')[1];
    expect(section, 'the section "Where each number comes from"').toBeDefined();
    const refs = [...section!.matchAll(/`([\w./-]+\.ts):([A-Za-z_$][\w$]*)`/g)].map((m) => ({
      file: m[1]!,
      name: m[2]!,
    }));
    expect(refs.length).toBeGreaterThan(60);
    const broken = refs.filter(({ file, name }) => {
      const path = join(root, file);
      if (!existsSync(path)) return true;
      const definition = new RegExp(
        `(?:function\\*?\\s+${name}\\b|class\\s+${name}\\b|(?:const|let)\\s+${name}\\s*[=:])`,
      );
      return !definition.test(readFileSync(path, 'utf8'));
    });
    expect(broken.map(({ file, name }) => `${file}:${name}`)).toEqual([]);
  });

  it('keeps the roots of the platform, server and command to their entry points', () => {
    const rootFiles = (dir: string) =>
      readdirSync(join(root, dir)).filter((name) => statSync(join(root, dir, name)).isFile());
    expect(rootFiles('packages/platform/src')).toEqual(['index.ts']);
    expect(rootFiles('apps/server/src').sort()).toEqual([
      'app.ts',
      'index.ts',
      'router.ts',
      'server.ts',
    ]);
    expect(rootFiles('apps/cli/src').sort()).toEqual(['bin.ts', 'main.ts']);
  });
});
