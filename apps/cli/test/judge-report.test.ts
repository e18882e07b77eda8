import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { JudgeReport } from '@assay/platform/analysis';
import { fleissKappaFromLabels, krippendorffAlpha } from '@assay/stats';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import { scratchDir } from './cli-fixtures.js';
import { cli } from './run-cli.js';

const { file } = scratchDir('assay-judge-report-');

async function report(...args: string[]): Promise<JudgeReport> {
  const { code, stdout, stderr } = await cli('judge-report', ...args, '--format', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as JudgeReport;
}

describe('assay judge-report on small label sets', () => {
  // Topic 1 d1-d5, topic 2 d6-d10; grades 0-2. The judge `flip` gives 2 − the human grade.
  const humanGrades = [0, 1, 2, 2, 0, 1, 0, 2, 1, 0];
  const judgeGrades = [0, 1, 2, 1, 0, 1, 1, 2, 1, 0];
  const thirdGrades = [0, 2, 2, 2, 0, 0, 0, 2, 1, 0];
  const qrels = (grades: number[]) =>
    `${grades.map((g, i) => `${i < 5 ? 1 : 2} 0 d${i + 1} ${g}`).join('\n')}\n`;
  const human = file('human.qrels', qrels(humanGrades));
  const judge = file('judge.qrels', qrels(judgeGrades));
  const third = file('third.qrels', qrels(thirdGrades));
  const flip = file('flip.qrels', qrels(humanGrades.map((g) => 2 - g)));
  // Passage lengths 10, 20, ..., 100 words.
  const docs = file(
    'docs.tsv',
    `${humanGrades.map((_, i) => `d${i + 1}\t${Array.from({ length: 10 * (i + 1) }, () => 'w').join(' ')}`).join('\n')}\n`,
  );

  it('measures a judge against the human labels, with usage, polarity and length bias', async () => {
    const r = await report(
      '--human',
      `people=${human}`,
      '--judge',
      `j=${judge}`,
      '--judge',
      `flip=${flip}`,
      '--docs',
      docs,
      '--samples',
      '100',
    );
    expect(r.human).toMatchObject({ name: 'people', labels: 10 });
    const j = r.judges.find((x) => x.judge === 'j')!;
    // Judge grades: 0 ×3, 1 ×5, 2 ×2.
    expect(j.usage.map((u) => u.count)).toEqual([3, 5, 2]);
    expect(j.usage.map((u) => u.share)).toEqual([0.3, 0.5, 0.2]);
    expect(j.rareGrades).toEqual([]);
    expect(j.agreement.n).toBe(10);
    expect(j.agreement.exactAgreement).toBe(0.8);
    expect(j.agreement.confusion.matrix).toEqual([
      [3, 1, 0],
      [0, 3, 0],
      [0, 1, 2],
    ]);
    expect(j.agreement.intervals).toBeDefined();
    expect(j.inverted).toBe(false);
    // The flipped judge agrees below chance.
    const f = r.judges.find((x) => x.judge === 'flip')!;
    expect(f.inverted).toBe(true);
    expect(f.agreement.cohenKappa.linear).toBeLessThan(0);
    // Length bias of j: differences (judge − human) are 0 except d4 (−1, 40 words) and d7
    // (+1, 70 words). Lengths 10..100 (mean 55); Σ(x − 55)·d = (−15)(−1) + (15)(1) = 30;
    // Σ(x − 55)² = 8250; Σ(d − 0)² = 2: r = 30/√(8250·2).
    expect(j.lengthBias!.n).toBe(10);
    expect(j.lengthBias!.pearson).toBeCloseTo(30 / Math.sqrt(8250 * 2), 12);
    expect(j.lengthBias!.difference).toBe('judge − human');
    expect(j.lengthBias!.bands.map((b) => b.n)).toEqual([2, 2, 2, 2, 2]);
    expect(j.lengthBias!.bands[1]).toEqual({ from: 30, to: 40, n: 2, meanDifference: -0.5 });
    // Two judges: the panel.
    expect(r.panel!.itemsAll).toBe(10);
    expect(r.panel!.pairwise).toHaveLength(1);
  });

  it('without human labels: each judge against the majority of the others, and the panel', async () => {
    const r = await report(
      '--judge',
      `j=${judge}`,
      '--judge',
      `t=${third}`,
      '--judge',
      `h=${human}`,
      '--samples',
      '0',
    );
    expect(r.human).toBeUndefined();
    expect(r.judges.map((x) => x.against)).toEqual([
      'the majority of the other judges',
      'the majority of the other judges',
      'the majority of the other judges',
    ]);
    const p = r.panel!;
    expect(p.itemsAll).toBe(10);
    expect(p.fleissKappa.value).toBeCloseTo(
      fleissKappaFromLabels([judgeGrades, thirdGrades, humanGrades]),
      12,
    );
    expect(p.krippendorffAlpha.ordinal).toBeCloseTo(
      krippendorffAlpha([judgeGrades, thirdGrades, humanGrades], 'ordinal'),
      12,
    );
    expect(p.fleissKappa.ci).toBeUndefined();
    expect(p.pairwise.map((x) => [x.a, x.b])).toEqual([
      ['j', 't'],
      ['j', 'h'],
      ['t', 'h'],
    ]);
    // j against the majority of t and h (ties to the lower grade): per item min when they
    // differ: t/h = 0/0 1→2/1 → 1, 2/2, 2/2, 0/0, 0/1 → 0, 0/0, 2/2, 1/1, 0/0.
    const j = r.judges[0]!;
    const majority = [0, 1, 2, 2, 0, 0, 0, 2, 1, 0];
    expect(j.agreement.exactAgreement).toBe(
      judgeGrades.filter((g, i) => g === majority[i]).length / 10,
    );
  });

  it('compares two versions of a judge: transition matrix, changes, shift and kappa', async () => {
    const r = await report(
      '--judge',
      `v1=${judge}`,
      '--judge',
      `v2=${third}`,
      '--drift',
      'v1,v2',
      '--samples',
      '50',
    );
    const d = r.drift[0]!;
    expect([d.from, d.to, d.n]).toEqual(['v1', 'v2', 10]);
    // v1 0 1 2 1 0 1 1 2 1 0 → v2 0 2 2 2 0 0 0 2 1 0: changed d2 (+1), d4 (+1), d6 (−1), d7 (−1).
    expect(d.changed).toBeCloseTo(0.4, 12);
    expect(d.meanShift).toBeCloseTo(0, 12);
    expect(d.agreement.confusion.matrix).toEqual([
      [3, 0, 0],
      [2, 1, 2],
      [0, 0, 2],
    ]);
    const text = await cli(
      'judge-report',
      '--judge',
      `v1=${judge}`,
      '--judge',
      `v2=${third}`,
      '--drift',
      'v1,v2',
    );
    expect(text.stdout).toContain('== drift v1 -> v2: 10 items both labelled');
    expect(text.stdout).toContain('changed: 40.0% of the items; mean shift +0.0000 grades');
  });

  it('writes one self-contained HTML page with the names escaped', async () => {
    const out = await cli(
      'judge-report',
      '--human',
      human,
      '--judge',
      `<b>j</b>=${judge}`,
      '--format',
      'html',
      '--samples',
      '0',
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^<!doctype html>/);
    expect(out.stdout).toContain('Judge &lt;b&gt;j&lt;/b&gt;');
    expect(out.stdout).not.toContain('<b>j</b>');
    expect(out.stdout).not.toMatch(/<script|https?:/);
  });

  it('position swap: the same answers judged side by side in two orders', async () => {
    // Topic t1: s1, s2, s3 shown A B C in the first file and C B A in the second (every pair
    // swapped). Quality: first 5 3 3, second 2 3 4. s1/s2 and s1/s3: the answer shown first
    // wins both times (inconsistent, position-led); s2/s3: a tie, then s3 wins (inconsistent).
    // Relevance-like "r": 1 1 1 both times, consistent ties.
    const line = (system: string, q: number, label: string) =>
      JSON.stringify({
        topic: 't1',
        system,
        trial: 1,
        scores: { q, r: 1 },
        justification: '',
        label,
      });
    const first = file(
      'first.jsonl',
      [line('s1', 5, 'A'), line('s2', 3, 'B'), line('s3', 3, 'C')].join('\n'),
    );
    const second = file(
      'second.jsonl',
      [line('s1', 2, 'C'), line('s2', 3, 'B'), line('s3', 4, 'A')].join('\n'),
    );
    const r = await report('--swap', `${first},${second}`, '--samples', '0');
    expect(r.judges).toEqual([]);
    expect(r.positionSwap).toEqual({
      topics: 1,
      criteria: [
        { criterion: 'q', swapped: 3, consistent: 0, consistency: 0, firstWins: 2, secondWins: 0 },
        { criterion: 'r', swapped: 3, consistent: 3, consistency: 1, firstWins: 0, secondWins: 0 },
      ],
    });
    const text = await cli('judge-report', '--swap', `${first},${second}`);
    expect(text.stdout).toContain(
      '== position swap: 1 topics judged side by side twice, in different orders',
    );
  });

  it('refuses what it cannot report on', async () => {
    expect((await cli('judge-report', '--judge', `j=${judge}`)).code).toBe(1);
    expect((await cli('judge-report', '--human', human)).code).toBe(1);
    const drift = await cli(
      'judge-report',
      '--human',
      human,
      '--judge',
      `j=${judge}`,
      '--drift',
      'j,x',
    );
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('--drift j,x: give two judge names');
    const elsewhere = file('elsewhere.qrels', '9 0 z 1\n9 0 y 0\n');
    const none = await cli('judge-report', '--human', human, '--judge', `e=${elsewhere}`);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('judge e labels no item that');
  });
});

const LLMJUDGE = fileURLToPath(new URL('../../../test/fixtures/llmjudge/', import.meta.url));

describe('assay judge-report on the LLMJudge benchmark label sets', () => {
  it('reproduces the published alphas of each judge and flags grades outside the scale', async () => {
    // Published by the LLMJudge organisers (see agree.test.ts): ordinal alpha of each
    // submission clamped into 0-3. judge-report leaves out-of-scale labels out instead of
    // clamping them; these three have none.
    const r = await report(
      '--human',
      `${LLMJUDGE}llmjudge_test_qrel_idx.txt`,
      '--judge',
      `fewself=${LLMJUDGE}h2oloo-fewself.txt`,
      '--judge',
      `umbrela1=${LLMJUDGE}willia-umbrela1.txt`,
      '--judge',
      `rubric0=${LLMJUDGE}TREMA-rubric0.txt`,
      '--scale',
      '0-3',
      '--samples',
      '0',
    );
    const alpha = Object.fromEntries(
      r.judges.map((j) => [j.judge, j.agreement.krippendorffAlpha.ordinal]),
    );
    expect(alpha.fewself).toBeCloseTo(0.495764, 6);
    expect(alpha.umbrela1).toBeCloseTo(0.491793, 6);
    expect(alpha.rubric0).toBeCloseTo(0.103604, 6);
    expect(r.judges.every((j) => j.agreement.n === 4423)).toBe(true);
    const llama = await report(
      '--human',
      `${LLMJUDGE}llmjudge_test_qrel_idx.txt`,
      '--judge',
      `llama70b=${LLMJUDGE}RMITIR-llama70B.txt`,
      '--scale',
      '0-3',
      '--samples',
      '0',
    );
    expect(llama.judges[0]!.outsideScale).toBe(2);
    expect(llama.notes[0]).toContain('llama70b: 2 labels outside the scale 0-3 were left out');
  });
});

const RAG = join(SHARED_DATA, 'trec_rag_2026_dev/rag25-dev-umbrela-qrels');
const RAG_FILES = {
  'gpt5.5': `${RAG}/rag25-climbmix-umbrela-codex-gpt5.5-medium-reasoning-v1.qrels`,
  'qwen-v2': `${RAG}/rag25-climbmix-umbrela-qwen3.5-9b-v2.qrels`,
  'ministral-v2': `${RAG}/rag25-climbmix-umbrela-ministral-3-14b-instruct-2512-v2.qrels`,
  'qwen-v1': `${RAG}/older-versions/rag25-climbmix-umbrela-qwen3.5-9b-v1.qrels`,
  'ministral-v1': `${RAG}/older-versions/rag25-climbmix-umbrela-ministral-3-14b-instruct-2512-v1.qrels`,
};

describe.skipIf(Object.values(RAG_FILES).some(missingSharedFile))(
  'assay judge-report on the TREC RAG 2026 development label sets',
  () => {
    // Expected values: apps/cli/test/reference/rag26_judges.py (numpy, written apart from
    // assay), its output pasted here.
    const COUNTS = {
      'gpt5.5': [4710, 8647, 6574, 3914, 2496],
      'qwen-v2': [3434, 7661, 10992, 4184, 70],
      'ministral-v2': [5931, 415, 15309, 4685, 1],
      'qwen-v1': [3274, 7072, 9932, 5696, 367],
      'ministral-v1': [5058, 5870, 11532, 3876, 5],
    };
    const DRIFT = {
      qwen: {
        transition: [
          [3167, 106, 1, 0, 0],
          [267, 6433, 371, 1, 0],
          [0, 1106, 8690, 136, 0],
          [0, 16, 1929, 3751, 0],
          [0, 0, 1, 296, 70],
        ],
        agreement: 0.8394138415398049,
        changed: 0.16058615846019508,
        shift: -0.11446034698758589,
        kappa: [0.7750843301822041, 0.8447767973949397, 0.9099784242365312],
      },
      ministral: {
        transition: [
          [4749, 69, 240, 0, 0],
          [1153, 314, 4385, 18, 0],
          [29, 30, 9764, 1709, 0],
          [0, 2, 920, 2953, 1],
          [0, 0, 0, 5, 0],
        ],
        agreement: 0.6749933563646027,
        changed: 0.32500664363539733,
        shift: 0.17121597509585817,
        kappa: [0.5168200293123721, 0.6829312830375505, 0.8181780179721889],
      },
    };

    it('grade usage and version-to-version agreement equal an independent computation', async () => {
      const r = await report(
        ...Object.entries(RAG_FILES).flatMap(([name, path]) => ['--judge', `${name}=${path}`]),
        '--drift',
        'qwen-v1,qwen-v2',
        '--drift',
        'ministral-v1,ministral-v2',
        '--samples',
        '200',
      );
      expect(r.scale).toEqual({ min: 0, max: 4 });
      for (const [name, counts] of Object.entries(COUNTS)) {
        const j = r.judges.find((x) => x.judge === name)!;
        expect(j.labels).toBe(26341);
        expect(
          j.usage.map((u) => u.count),
          name,
        ).toEqual(counts);
        expect(j.rareGrades, name).toEqual(counts.flatMap((c, g) => (c / 26341 < 0.02 ? [g] : [])));
      }
      // The collapsed scales: Ministral v2 hardly uses 1 and 4, both Qwens and Ministral v1 4.
      expect(r.judges.find((x) => x.judge === 'ministral-v2')!.rareGrades).toEqual([1, 4]);
      for (const [d, expected] of [
        [r.drift[0]!, DRIFT.qwen],
        [r.drift[1]!, DRIFT.ministral],
      ] as const) {
        expect(d.n).toBe(26341);
        expect(d.agreement.confusion.matrix).toEqual(expected.transition);
        expect(d.agreement.exactAgreement).toBeCloseTo(expected.agreement, 14);
        expect(d.changed).toBeCloseTo(expected.changed, 14);
        expect(d.meanShift).toBeCloseTo(expected.shift, 14);
        expect([
          d.agreement.cohenKappa.unweighted,
          d.agreement.cohenKappa.linear,
          d.agreement.cohenKappa.quadratic,
        ]).toEqual(expected.kappa.map((k) => expect.closeTo(k, 12)));
        const [lo, hi] = d.agreement.intervals!.cohenKappa.unweighted;
        expect(lo).toBeLessThan(expected.kappa[0]!);
        expect(hi).toBeGreaterThan(expected.kappa[0]!);
      }
      expect(r.panel!.itemsAll).toBe(26341);
    });
  },
);

const RUNS21 = join(SHARED_DATA, 'syndl/TREC-DLs-files/TREC-DL-2021/passages-runs');
const NIST21 = join(SHARED_DATA, 'anserini_tools/qrels/qrels.dl21-passage.txt');
const GPT21 = join(SHARED_DATA, 'llm_judgement_comparison/binary-gpt4o-dl21.txt');

describe.skipIf([RUNS21, NIST21, GPT21].some(missingSharedFile))(
  'assay judge-report with runs: the leaderboard correlation of assay compare',
  () => {
    it('GPT-4o binary labels against NIST on DL 2021: tau-b as assay compare --qrels --qrels', async () => {
      const runs = readdirSync(RUNS21)
        .sort()
        .map((f) => join(RUNS21, f));
      const r = await report(
        '--human',
        `NIST=${NIST21}`,
        '--judge',
        `gpt4o=${GPT21}`,
        '--samples',
        '100',
        ...runs,
      );
      const compare = await cli(
        'compare',
        '--qrels',
        NIST21,
        '--qrels',
        GPT21,
        '-m',
        'nDCG@10',
        '--correlation-samples',
        '100',
        '--format',
        'json',
        ...runs,
      );
      const c = JSON.parse(compare.stdout).rankCorrelation['nDCG@10'];
      const lb = r.judges[0]!.leaderboard!;
      expect(r.measure).toBe('nDCG@10');
      expect(r.runs).toBe(14);
      expect(lb.kendallTauB).toBeCloseTo(c.kendallTauB, 14);
      expect(lb.tauAP).toBeCloseTo(c.tauAP, 14);
      expect(lb.ci!.kendallTauB).toEqual(c.ci.kendallTauB);
      // GPT-4o's binary labels use two grades of NIST's four.
      expect(r.judges[0]!.usage.map((u) => u.grade)).toEqual([0, 1, 2, 3]);
      expect(r.judges[0]!.rareGrades).toEqual([2, 3]);
    });
  },
);
