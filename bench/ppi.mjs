#!/usr/bin/env node
// How well prediction-powered leaderboards (`assay ppi`) work on public data: people label
// a random sample of topics, an LLM labels every topic, and the 95% intervals should cover
// the mean people would have given on every topic about 95% of the time while being
// narrower than the intervals from the human sample alone.
//
//   TREC DL 2021 passage: the 14 runs in ../shared/data/syndl, NIST's qrels (53 topics) as
//   the people, and as the LLM (a) GPT-4o's binary labels on the same pairs
//   (../shared/data/llm_judgement_comparison, Arabzadeh & Clarke, SIGIR 2025) and (b, c)
//   two simulated judges made from NIST's grades with a fixed seed: a noisy one (each grade
//   kept with probability 0.6, else a uniform grade 0-3) and a lenient one (each grade
//   raised by one, capped at 3, with probability 0.5).
//   TREC DL 2019 passage (data not looked at while building the method): its 3 runs in
//   syndl, NIST's qrels (43 topics) and GPT-4o's binary labels.
//   Pair sampling on DL 2021: people label a uniform sample of GPT-4o's pairs; P@10.
//
// For each of --samples draws (default 200) of --topics topics (default 15), every run's
// nDCG@10 is estimated with the code `assay ppi` runs (topicUnits, ppiLeaderboard, bundled
// from the sources here); the bench prints the coverage of each run's full-NIST mean and
// of every pairwise difference, and the average interval width against the human-only one.
//
//   node bench/ppi.mjs [--samples 200] [--topics 15] [--pair-samples 50] [--pairs 600]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { numberFlag } from './args.mjs';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const samples = numberFlag(args, '--samples', 200);
const topicsPerSample = numberFlag(args, '--topics', 15);
const pairSamples = numberFlag(args, '--pair-samples', 50);
const pairsPerSample = numberFlag(args, '--pairs', 600);
const shared =
  process.env.ASSAY_SHARED_DATA ??
  [`${root}../shared/data`, `${root}../../shared/data`].find((d) => existsSync(d)) ??
  `${root}../shared/data`;
if (!existsSync(`${shared}/llm_judgement_comparison`)) {
  console.error(`needs ${shared} (TREC runs and labels assay does not ship)`);
  process.exit(1);
}

// The analysis `assay ppi` runs, bundled from the sources.
const bundle = join(root, 'node_modules/.cache/assay-bench/ppi.mjs');
await build({
  stdin: {
    contents: `export * from '@assay/platform/analysis';
      export { parseQrels, parseRun } from '@assay/trec';
      export { evaluateRun, prepareQrels, resolveMeasures } from '@assay/measures';`,
    resolveDir: root,
    loader: 'ts',
  },
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  conditions: ['source'],
  plugins: [
    {
      name: 'external-node-modules',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) =>
          a.path.startsWith('@assay/') ? undefined : { path: a.path, external: true },
        );
      },
    },
  ],
  logLevel: 'warning',
});
const assay = await import(pathToFileURL(bundle).href);

const read = (path) => readFileSync(path, 'latin1');
const qrels = (path) => assay.parseQrels(read(path), path);
const runsIn = (dir) =>
  readdirSync(dir)
    .sort()
    .map((f) => assay.parseRun(read(join(dir, f)), f));

function evaluate(labels, runs, measure) {
  const prepared = assay.prepareQrels(labels);
  const resolved = assay.resolveMeasures([measure]);
  return runs.map((run) => assay.evaluateRun(prepared, run, resolved, { completeTopics: true }));
}

/** Keeps the chosen topics of each evaluation (a topic's value depends on its labels only). */
function restrict(evaluations, topics) {
  const keep = new Set(topics);
  return evaluations.map((e) => ({ ...e, topics: e.topics.filter((t) => keep.has(t.qid)) }));
}

/** Grades rewritten by a seeded rule: a simulated judge. */
function simulated(labels, seed, rewrite) {
  const random = seeded(seed);
  const out = new Map();
  for (const topic of [...labels.keys()].sort()) {
    const docs = new Map();
    for (const docno of [...labels.get(topic).keys()].sort())
      docs.set(docno, rewrite(labels.get(topic).get(docno), random));
    out.set(topic, docs);
  }
  return out;
}

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** Coverage and widths of `samples` topic draws. */
function topicBench(name, human, llm, runs, measure) {
  const full = evaluate(human, runs, measure);
  const judge = evaluate(llm, runs, measure);
  const truth = new Map(full.map((e) => [e.runid, e.summary[0]]));
  const topics = [...human.keys()].sort();
  let covered = 0;
  let coveredHuman = 0;
  let coveredPairs = 0;
  let coveredPairsHuman = 0;
  let rows = 0;
  let pairs = 0;
  let significant = 0;
  let significantHuman = 0;
  const widths = [];
  const humanWidths = [];
  const lambdas = [];
  for (let s = 1; s <= samples; s++) {
    const chosen = assay.sampleUnits(topics, topicsPerSample, s);
    const units = assay.topicUnits(restrict(full, chosen), judge, [measure]);
    const report = assay.ppiLeaderboard(units, { alpha: 0.05, correction: 'holm' });
    for (const r of report.rows) {
      const t = truth.get(r.run);
      rows++;
      if (r.ci_lower <= t && t <= r.ci_upper) covered++;
      if (r.human.ci_lower <= t && t <= r.human.ci_upper) coveredHuman++;
      widths.push(r.ci_upper - r.ci_lower);
      humanWidths.push(r.human.ci_upper - r.human.ci_lower);
      lambdas.push(r.lambda);
    }
    for (const p of report.pairs) {
      const d = truth.get(p.a) - truth.get(p.b);
      pairs++;
      if (p.ci_lower <= d && d <= p.ci_upper) coveredPairs++;
      if (p.human.ci_lower <= d && d <= p.human.ci_upper) coveredPairsHuman++;
      if (p.ci_lower > 0 || p.ci_upper < 0) significant++;
      if (p.human.ci_lower > 0 || p.human.ci_upper < 0) significantHuman++;
    }
  }
  const llmBias = mean(judge.map((e) => e.summary[0] - truth.get(e.runid)));
  console.log(
    `${name.padEnd(34)} coverage ${pct(covered / rows)} (human-only ${pct(coveredHuman / rows)}); ` +
      `width ratio ${(mean(widths) / mean(humanWidths)).toFixed(3)} ` +
      `(PPI ${mean(widths).toFixed(4)}, human-only ${mean(humanWidths).toFixed(4)}); ` +
      `mean λ ${mean(lambdas).toFixed(2)}; LLM-only bias ${llmBias >= 0 ? '+' : ''}${llmBias.toFixed(4)}`,
  );
  console.log(
    `${''.padEnd(34)} differences: coverage ${pct(coveredPairs / pairs)} (human-only ${pct(coveredPairsHuman / pairs)}); ` +
      `intervals excluding 0: ${pct(significant / pairs)} (human-only ${pct(significantHuman / pairs)})`,
  );
}

/** Coverage and widths of pair-sampling draws (P@10). */
function pairBench(name, human, llm, runs) {
  const measure = 'P@10';
  const truth = new Map(evaluate(human, runs, measure).map((e) => [e.runid, e.summary[0]]));
  const all = [];
  for (const [topic, docs] of llm)
    for (const [docno, g] of docs) if (g >= 0) all.push(`${topic}\t${docno}`);
  let covered = 0;
  let coveredHuman = 0;
  let rows = 0;
  const widths = [];
  const humanWidths = [];
  for (let s = 1; s <= pairSamples; s++) {
    const chosen = assay.sampleUnits(all, pairsPerSample, s);
    const sample = new Map();
    for (const pair of chosen) {
      const [topic, docno] = pair.split('\t');
      if (!sample.has(topic)) sample.set(topic, new Map());
      sample.get(topic).set(docno, human.get(topic).get(docno));
    }
    const units = assay.pairUnits(sample, llm, runs, [measure]);
    const report = assay.ppiLeaderboard(units, { alpha: 0.05, correction: 'holm' });
    for (const r of report.rows) {
      const t = truth.get(r.run);
      rows++;
      if (r.ci_lower <= t && t <= r.ci_upper) covered++;
      if (r.human.ci_lower <= t && t <= r.human.ci_upper) coveredHuman++;
      widths.push(r.ci_upper - r.ci_lower);
      humanWidths.push(r.human.ci_upper - r.human.ci_lower);
    }
  }
  console.log(
    `${name.padEnd(34)} coverage ${pct(covered / rows)} (human-only ${pct(coveredHuman / rows)}); ` +
      `width ratio ${(mean(widths) / mean(humanWidths)).toFixed(3)} ` +
      `(PPI ${mean(widths).toFixed(4)}, human-only ${mean(humanWidths).toFixed(4)})`,
  );
}

const started = performance.now();
const dl21 = qrels(`${shared}/anserini_tools/qrels/qrels.dl21-passage.txt`);
const runs21 = runsIn(`${shared}/syndl/TREC-DLs-files/TREC-DL-2021/passages-runs`);
const gpt21 = qrels(`${shared}/llm_judgement_comparison/binary-gpt4o-dl21.txt`);
console.log(
  `${samples} draws of ${topicsPerSample} topics; nDCG@10; 95% intervals; coverage of each run's mean under every NIST label`,
);
topicBench(`DL21, 14 runs, GPT-4o binary`, dl21, gpt21, runs21, 'nDCG@10');
topicBench(
  `DL21, simulated noisy judge`,
  dl21,
  simulated(dl21, 1, (g, r) => (g < 0 || r() < 0.6 ? g : Math.floor(r() * 4))),
  runs21,
  'nDCG@10',
);
topicBench(
  `DL21, simulated lenient judge`,
  dl21,
  simulated(dl21, 2, (g, r) => (g >= 0 && g < 3 && r() < 0.5 ? g + 1 : g)),
  runs21,
  'nDCG@10',
);
const dl19 = qrels(`${shared}/anserini_tools/qrels/qrels.dl19-passage.txt`);
topicBench(
  `DL19, 3 runs, GPT-4o binary`,
  dl19,
  qrels(`${shared}/llm_judgement_comparison/binary-gpt4o-dl19.txt`),
  runsIn(`${shared}/syndl/TREC-DLs-files/TREC-DL-2019/passages-runs`),
  'nDCG@10',
);
console.log(`\n${pairSamples} draws of ${pairsPerSample} pairs; P@10`);
pairBench(`DL21, 14 runs, GPT-4o binary`, dl21, gpt21, runs21);
console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);
