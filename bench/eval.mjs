#!/usr/bin/env node
// Times `assay eval -q -c -m all_trec` on two workloads and, when trec_eval 10.0 is found
// (ASSAY_TREC_EVAL, `trec_eval` on PATH, or the binary the shared build script makes),
// the same arguments under trec_eval, with wall-time ratios and peak memory (max RSS):
//   1. the 14 TREC DL 2021 passage runs (~47,700 lines each) against the DL 2021 qrels:
//      one assay process for all runs, 14 trec_eval processes;
//   2. one run of 5,000 topics x 1,000 documents (5 M lines), generated with a fixed seed
//      into a scratch directory together with its qrels.
// Output bytes of both programs are compared too. Data for 1: ../shared/data (not shipped
// with assay). `--baseline PATH` times another build's bin/assay.js in the same run (for
// before/after figures); `--topics N` sizes the generated run (N topics x 1,000 documents,
// default 5,000); `--skip-dl` and `--skip-large` leave a workload out.
//
//   node bench/eval.mjs [repeats] (default 3) [--baseline PATH] [--topics N] [--skip-dl] [--skip-large]
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { numberFlag } from './args.mjs';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const shared =
  process.env.ASSAY_SHARED_DATA ??
  [`${root}../shared/data`, `${root}../../shared/data`].find((d) => existsSync(d)) ??
  `${root}../shared/data`;
const runsDir = `${shared}/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs`;
const dlQrels = `${shared}/anserini_tools/qrels/qrels.dl21-passage.txt`;
const args = process.argv.slice(2);
const largeTopics = numberFlag(args, '--topics', 5000);
const take = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const skipDl = take('--skip-dl');
const skipLarge = take('--skip-large');
const baselineAt = args.indexOf('--baseline');
const baseline = baselineAt >= 0 ? args.splice(baselineAt, 2)[1] : undefined;
const repeats = Number(args[0] ?? 3);
const bin = `${root}apps/cli/bin/assay.js`;
const scratch = process.env.ASSAY_BENCH_DIR ?? `${tmpdir()}/assay-bench-eval`;
const evalArgs = ['-q', '-c', '-m', 'all_trec'];

/** Runs a command under GNU time when available, returning wall seconds, max RSS and stdout. */
function timed(command, args) {
  const haveTime = existsSync('/usr/bin/time');
  const start = process.hrtime.bigint();
  const result = haveTime
    ? spawnSync('/usr/bin/time', ['-f', '%M %U %S', command, ...args], { maxBuffer: 1 << 30 })
    : spawnSync(command, args, { maxBuffer: 1 << 30 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
    process.exit(1);
  }
  const stderr = result.stderr.toString().trim().split('\n');
  const [kb, user, system] = haveTime ? stderr[stderr.length - 1].split(' ').map(Number) : [];
  return { seconds, cpu: user + system, rssMb: kb / 1024, stdout: result.stdout };
}

/** Median wall time and largest peak memory over `repeats` runs of `once`. */
function measure(once) {
  const samples = [];
  for (let i = 0; i < repeats; i++) samples.push(once());
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return {
    seconds: median(samples.map((s) => s.seconds)),
    cpu: median(samples.map((s) => s.cpu)),
    rssMb: Math.max(...samples.map((s) => s.rssMb)),
    stdout: samples[0].stdout,
  };
}

function findTrecEval() {
  const candidates = [process.env.ASSAY_TREC_EVAL, '/tmp/trec_eval-10.0-build/trec_eval'];
  for (const c of candidates) if (c && existsSync(c)) return c;
  const onPath = spawnSync('trec_eval', ['-v']);
  if (onPath.error === undefined) return 'trec_eval';
  const build = `${shared}/../tools/build-trec-eval.sh`;
  if (existsSync(build)) {
    const built = spawnSync('bash', [build], { encoding: 'utf8' });
    const path = built.stdout.trim().split('\n').pop();
    if (built.status === 0 && path && existsSync(path)) return path;
  }
  return undefined;
}

async function writeLines(path, produce) {
  const out = createWriteStream(path);
  let buffer = '';
  for (const line of produce()) {
    buffer += line;
    if (buffer.length > 1 << 16) {
      if (!out.write(buffer)) await new Promise((r) => out.once('drain', r));
      buffer = '';
    }
  }
  out.end(buffer);
  await new Promise((r) => out.on('finish', r));
}

/** N topics x 1,000 documents, scores with ties; qrels of 200 graded documents per topic. */
async function generateLargeRun(topics) {
  mkdirSync(scratch, { recursive: true });
  const run = `${scratch}/run-${topics}x1000.txt`;
  const qrels = `${scratch}/qrels-${topics}.txt`;
  if (existsSync(run) && existsSync(qrels) && statSync(run).size > topics * 20_000)
    return { run, qrels };
  const depth = 1000;
  const collection = 8_800_000;
  const random = seeded(20261123);
  const docsOf = [];
  const qid = (t) => String(1000 + t);
  await writeLines(qrels, function* () {
    for (let t = 0; t < topics; t++) {
      const docs = new Set();
      while (docs.size < 200) docs.add(Math.floor(random() * collection));
      docsOf.push([...docs]);
      for (const d of docs) {
        const r = random();
        const grade = r < 0.6 ? 0 : r < 0.8 ? 1 : r < 0.93 ? 2 : 3;
        yield `${qid(t)} 0 ${d} ${grade}\n`;
      }
    }
  });
  await writeLines(run, function* () {
    for (let t = 0; t < topics; t++) {
      const judged = docsOf[t];
      const docs = new Set();
      // About a third of each ranking comes from the judged documents.
      while (docs.size < depth) {
        docs.add(
          random() < 0.33 ? judged[Math.floor(random() * 200)] : Math.floor(random() * collection),
        );
      }
      let score = 30 + random() * 10;
      let rank = 0;
      for (const d of docs) {
        // Rounded scores, so that some documents tie and the docno tie-break matters.
        yield `${qid(t)} Q0 ${d} ${++rank} ${score.toFixed(4)} bench-large\n`;
        if (random() < 0.8) score -= random() * 0.02;
      }
    }
  });
  return { run, qrels };
}

function report(label, assay, trecEval, before) {
  const line = (name, r) =>
    `  ${name} ${r.seconds.toFixed(3)} s wall, ${r.cpu.toFixed(2)} s CPU (user+sys), ${r.rssMb.toFixed(0)} MB peak RSS`;
  const ratio = (name, r) =>
    `  ${name}/trec_eval: ${(r.seconds / trecEval.seconds).toFixed(2)}x wall, ${(r.cpu / trecEval.cpu).toFixed(2)}x CPU, ${(r.rssMb / trecEval.rssMb).toFixed(2)}x peak memory; output ${r.stdout.equals(trecEval.stdout) ? 'byte-identical' : 'DIFFERS'}`;
  console.log(label);
  console.log(line('assay:    ', assay));
  if (before) console.log(line('baseline: ', before));
  if (!trecEval) return;
  console.log(line('trec_eval:', trecEval));
  console.log(ratio('assay', assay));
  if (before) console.log(ratio('baseline', before));
}

/** Medians of assay (and of the baseline build, in the same rounds) on ARGS. */
function measureAssay(evalArgsAndFiles) {
  const runOf = (path) => () => timed(process.execPath, [path, 'eval', ...evalArgsAndFiles]);
  if (!baseline) return { assay: measure(runOf(bin)) };
  // Alternating, so that load from other work hits both alike.
  const pairs = [];
  const both = () => {
    const a = runOf(bin)();
    pairs.push(runOf(baseline)());
    return a;
  };
  const assay = measure(both);
  const before = (() => {
    let i = 0;
    return measure(() => pairs[i++]);
  })();
  return { assay, before };
}

const trecEval = findTrecEval();
console.log(`trec_eval: ${trecEval ?? 'not found (assay numbers only)'}`);
console.log(
  `assay eval ${evalArgs.join(' ')}; node ${process.version}; medians of ${repeats}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
);
console.log('(wall time depends on what else the machine runs; CPU time much less so)');

if (skipDl) {
  console.log('1. skipped (--skip-dl)');
} else if (existsSync(runsDir) && existsSync(dlQrels)) {
  const runs = readdirSync(runsDir)
    .sort()
    .map((name) => `${runsDir}/${name}`);
  const { assay, before } = measureAssay([...evalArgs, dlQrels, ...runs]);
  const reference =
    trecEval &&
    measure(() => {
      let seconds = 0;
      let cpu = 0;
      let rssMb = 0;
      const parts = [];
      for (const run of runs) {
        const one = timed(trecEval, [...evalArgs, dlQrels, run]);
        seconds += one.seconds;
        cpu += one.cpu;
        rssMb = Math.max(rssMb, one.rssMb);
        parts.push(one.stdout);
      }
      return { seconds, cpu, rssMb, stdout: Buffer.concat(parts) };
    });
  report(
    `1. ${runs.length} TREC DL 2021 passage runs (~47,700 lines each): one assay process, ${runs.length} trec_eval processes`,
    assay,
    reference,
    before,
  );
} else {
  console.log(`1. skipped: needs ${runsDir} and ${dlQrels}`);
}

if (skipLarge) {
  console.log('2. skipped (--skip-large)');
} else {
  const large = await generateLargeRun(largeTopics);
  const size = statSync(large.run).size;
  const { assay, before } = measureAssay([...evalArgs, large.qrels, large.run]);
  const reference =
    trecEval && measure(() => timed(trecEval, [...evalArgs, large.qrels, large.run]));
  report(
    `2. one run of ${largeTopics.toLocaleString('en')} topics x 1,000 documents (${((largeTopics * 1000) / 1e6).toFixed(3)} M lines, ${(size / 1e6).toFixed(1)} MB; ${large.run})`,
    assay,
    reference,
    before,
  );
}
