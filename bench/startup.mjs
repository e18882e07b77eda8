#!/usr/bin/env node
// Start-up cost of the built CLI: CPU time (user + system) and wall time of
// `assay --version` and `assay --help` next to a bare `node -e 0`, medians of paired runs
// (each repeat runs every command once, so load on the machine hits them alike), with the
// ratio to bare node. `--baseline PATH` times another build's bin/assay.js in the same
// run (for before/after comparisons).
//
//   npm run build && node bench/startup.mjs [--repeats 15] [--baseline PATH]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { numberFlag } from './args.mjs';

const args = process.argv.slice(2);
const repeats = numberFlag(args, '--repeats', 15);
const baselineAt = args.indexOf('--baseline');
const baseline = baselineAt >= 0 ? args[baselineAt + 1] : undefined;
const bin = fileURLToPath(new URL('../apps/cli/bin/assay.js', import.meta.url));
if (!existsSync(bin)) throw new Error(`${bin} is missing`);

/** One run under GNU time (CPU from it) or, without it, wall time only. */
function timed(argv) {
  const haveTime = existsSync('/usr/bin/time');
  const start = process.hrtime.bigint();
  const result = haveTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S %M', ...argv], { encoding: 'utf8' })
    : spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed:\n${result.stderr}`);
  const last = result.stderr.trim().split('\n').pop() ?? '';
  const [user, system, kb] = haveTime ? last.split(' ').map(Number) : [NaN, NaN, NaN];
  return { wall, cpu: user + system, rssMb: kb / 1024 };
}

const commands = [
  ['node -e 0', [process.execPath, '-e', '0']],
  ['assay --version', [process.execPath, bin, '--version']],
  ['assay --help', [process.execPath, bin, '--help']],
];
if (baseline) {
  commands.push(['baseline --version', [process.execPath, baseline, '--version']]);
  commands.push(['baseline --help', [process.execPath, baseline, '--help']]);
}

const samples = new Map(commands.map(([name]) => [name, []]));
for (let i = 0; i < repeats; i++) {
  for (const [name, argv] of commands) samples.get(name).push(timed(argv));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figures = new Map(
  [...samples].map(([name, runs]) => [
    name,
    {
      wall: median(runs.map((r) => r.wall)),
      cpu: median(runs.map((r) => r.cpu)),
      rssMb: Math.max(...runs.map((r) => r.rssMb)),
    },
  ]),
);
const node = figures.get('node -e 0');
console.log(
  `start-up; node ${process.version}; medians of ${repeats}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
);
for (const [name, f] of figures) {
  const ratio = name === 'node -e 0' ? '' : `; ${(f.cpu / node.cpu).toFixed(2)}x node's CPU`;
  console.log(
    `  ${name.padEnd(20)} ${f.cpu.toFixed(3)} s CPU, ${f.wall.toFixed(3)} s wall, ${f.rssMb.toFixed(0)} MB peak RSS${ratio}`,
  );
}
