#!/usr/bin/env node
// First step of `npm start` and `npm test`, and npm's `prepare` (npm install, npm link):
// makes a checkout runnable with nothing run before, doing only what is out of date. It
// installs the dependencies from the lockfile (`npm ci`) when node_modules is missing or
// older than package-lock.json, then builds the assay command and the web app when their
// builds are missing or older than any of their source files.
//   --no-install    build only (npm's prepare: npm has just installed)
//   --install-only  install only (npm test: the test setup builds the assay command, and
//                   the browser test builds the web app into a folder of its own, so a
//                   running `npm start` keeps serving apps/web/build untouched)
// Only Node built-ins: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const say = (text) => process.stderr.write(`assay: ${text}\n`);

/** Modification time in ms, or undefined when the path does not exist. */
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Newest modification time of the files under `dir` (recursively), 0 if none. */
function newestUnder(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(path) : (mtime(path) ?? 0);
    if (time > newest) newest = time;
  }
  return newest;
}

function run(command, args, env = process.env, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Why the dependencies need installing, or undefined when they are current. */
function installReason() {
  const lockfile = mtime(join(root, 'package-lock.json'));
  // npm writes node_modules/.package-lock.json at the end of every install.
  const installed = mtime(join(root, 'node_modules', '.package-lock.json'));
  if (installed === undefined) return 'node_modules is missing';
  if (lockfile !== undefined && installed < lockfile) return 'package-lock.json changed';
  return undefined;
}

/** Why the CLI bundle needs building, or undefined when it is current. */
function buildReason() {
  const bundle = mtime(join(root, 'apps', 'cli', 'dist', 'assay.mjs'));
  if (bundle === undefined) return 'the assay command is not built';
  const sources = ['apps', 'packages'].flatMap((group) =>
    readdirSync(join(root, group))
      .filter((name) => !(group === 'apps' && name === 'web'))
      .map((name) => join(root, group, name, 'src')),
  );
  for (const dir of sources) {
    if (newestUnder(dir) > bundle) return 'sources changed since the last build';
  }
  return undefined;
}

/** Why the web app needs building, or undefined when it is current. */
function webBuildReason() {
  const page = mtime(join(root, 'apps', 'web', 'build', 'index.html'));
  if (page === undefined) return 'the web app is not built';
  if (newestUnder(join(root, 'apps', 'web', 'src')) > page) return 'the web app changed';
  return undefined;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = new Set(process.argv.slice(2));
const installOnly = args.has('--install-only');
const install = args.has('--no-install') ? undefined : installReason();
if (install) {
  say(`${install}: installing the dependencies from package-lock.json (npm ci)`);
  // npm ci then runs the root `prepare` script: this script again, building what is out
  // of date (never the web app in place for the tests).
  run(
    npm,
    ['ci', '--no-audit', '--no-fund'],
    installOnly ? { ...process.env, ASSAY_NO_WEB_BUILD: '1' } : process.env,
  );
}
// The web app's tsconfig extends the one SvelteKit generates (.svelte-kit, not in git):
// without it the web app's unit tests cannot even be compiled. `svelte-kit sync` writes
// it in a second, without building the app.
const web = join(root, 'apps', 'web');
if (!existsSync(join(web, '.svelte-kit', 'tsconfig.json'))) {
  say("the web app's generated types are missing: svelte-kit sync");
  run(
    process.execPath,
    [join(root, 'node_modules', '@sveltejs', 'kit', 'svelte-kit.js'), 'sync'],
    process.env,
    web,
  );
}
if (installOnly) process.exit(0);
const build = buildReason();
if (build) {
  say(`${build}: building it`);
  run(process.execPath, [join(root, 'apps', 'cli', 'build.mjs')]);
}
const webBuild = process.env.ASSAY_NO_WEB_BUILD === '1' ? undefined : webBuildReason();
if (webBuild) {
  say(`${webBuild}: building it`);
  run(npm, ['run', 'build', '-w', '@assay/web']);
}
