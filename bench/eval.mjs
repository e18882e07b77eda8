#!/usr/bin/env node
// Times `assay eval -q -c -m all_trec` on the 14 TREC DL 2021 passage runs (47,700 lines
// each) against the DL 2021 qrels, in one process, and prints runs per second.
// Data: ../shared/data (not shipped with assay). Usage: node bench/eval.mjs [repeats]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const shared = process.env.ASSAY_SHARED_DATA ?? `${root}../shared/data`;
const runsDir = `${shared}/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs`;
const qrels = `${shared}/anserini_tools/qrels/qrels.dl21-passage.txt`;
if (!existsSync(runsDir) || !existsSync(qrels)) {
  console.error(`bench/eval: needs ${runsDir} and ${qrels}`);
  process.exit(1);
}
const runs = readdirSync(runsDir)
  .sort()
  .map((name) => `${runsDir}/${name}`);
const repeats = Number(process.argv[2] ?? 5);
const bin = `${root}apps/cli/bin/assay.js`;
const args = ['eval', '-q', '-c', '-m', 'all_trec', qrels, ...runs];

const times = [];
let bytes = 0;
for (let i = 0; i < repeats; i++) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) {
    console.error(result.stderr);
    process.exit(1);
  }
  bytes = result.stdout.length;
  times.push(seconds);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(`runs: ${runs.length}, lines per run: ~47,700, output: ${(bytes / 1e6).toFixed(1)} MB`);
console.log(
  `wall time (whole process, median of ${repeats}): ${median.toFixed(3)} s  (min ${times[0].toFixed(3)} s)`,
);
console.log(`throughput: ${(runs.length / median).toFixed(1)} runs/s`);
const trecEval = spawnSync('trec_eval', ['-v'], { encoding: 'utf8' });
if (trecEval.error === undefined) {
  const start = process.hrtime.bigint();
  for (const run of runs)
    spawnSync('trec_eval', ['-q', '-c', '-m', 'all_trec', qrels, run], { encoding: 'utf8' });
  console.log(
    `trec_eval on PATH, 14 invocations: ${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(3)} s`,
  );
}
