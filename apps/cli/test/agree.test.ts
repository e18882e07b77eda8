import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  cohenKappa,
  createRng,
  fleissKappaFromLabels,
  gwetAC,
  krippendorffAlpha,
  pabak,
  quantileSorted,
} from '@assay/stats';
import type { AgreementReport } from '../src/analysis/agree-command.js';
import { cli } from './run-cli.js';

const LLMJUDGE = fileURLToPath(new URL('../../../test/fixtures/llmjudge/', import.meta.url));
const human = `${LLMJUDGE}llmjudge_test_qrel_idx.txt`;

// Published by the LLMJudge organisers (llm4eval/LLMJudge-benchmark,
// codes/0-corr-analysis.ipynb, output of its table cell): Krippendorff's ordinal alpha
// between the human labels and each submission clamped into 0-3, on the four grades and
// on the labels binarised at 1, 2 and 3.
const PUBLISHED: Record<string, [number, number, number, number]> = {
  'h2oloo-fewself': [0.495764, 0.410792, 0.428016, 0.297844],
  'h2oloo-zeroshot1': [0.481175, 0.405772, 0.385039, 0.306258],
  'h2oloo-zeroshot2': [0.389818, 0.34181, 0.317459, 0.276929],
  'TREMA-rubric0': [0.103604, 0.117231, -0.089472, 0.016718],
  'TREMA-sumdecompose': [0.392616, 0.313767, 0.343022, 0.199542],
  'willia-umbrela1': [0.491793, 0.412928, 0.393941, 0.312438],
  'willia-umbrela2': [0.455608, 0.396124, 0.329797, 0.319274],
  'willia-umbrela3': [0.453547, 0.396488, 0.331441, 0.318456],
};

async function agree(...args: string[]): Promise<AgreementReport> {
  const { code, stdout, stderr } = await cli('agree', ...args, '--format', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as AgreementReport;
}

describe('assay agree on the LLMJudge label sets', () => {
  for (const [run, [alpha, b1, b2, b3]] of Object.entries(PUBLISHED)) {
    it(`${run}: reproduces the published alphas`, async () => {
      const r = await agree(human, `${LLMJUDGE}${run}.txt`, '--scale', '0-3', '--clip');
      expect(r.n).toBe(4423);
      expect(r.onlyA + r.onlyB).toBe(0);
      expect(r.krippendorffAlpha.ordinal).toBeCloseTo(alpha, 6);
      expect(r.binarized.map((b) => b.threshold)).toEqual([1, 2, 3]);
      expect(r.binarized[0]!.alpha).toBeCloseTo(b1, 6);
      expect(r.binarized[1]!.alpha).toBeCloseTo(b2, 6);
      expect(r.binarized[2]!.alpha).toBeCloseTo(b3, 6);
    });
  }

  it('refuses grades outside the scale, naming file and line, unless --clip', async () => {
    const llm = `${LLMJUDGE}RMITIR-llama70B.txt`;
    const refused = await cli('agree', human, llm, '--scale', '0-3');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`${llm}:2449: grade 5 is outside the scale 0-3`);
    const clipped = await agree(human, llm, '--scale', '0-3', '--clip');
    expect(clipped.clipped).toEqual({ a: 0, b: 2 });
    const text = await cli('agree', human, llm, '--scale', '0-3', '--clip');
    expect(text.stdout).toContain('clamped into the scale: 0 grades of A, 2 of B');
  });
});

describe('assay agree on a hand-computed example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-agree-'));
  const a = join(dir, 'a.qrels');
  const b = join(dir, 'b.qrels');
  // Pairs: (1,x) 0/0, (1,y) 1/1, (1,z) 1/0, (2,x) 2/2; (2,w) only in A; (3,v) only in B.
  writeFileSync(a, '1 0 x 0\n1 0 y 1\n1 0 z 1\n2 0 x 2\n2 0 w 0\n');
  writeFileSync(b, '1 0 x 0\n1 0 y 1\n1 0 z 0\n2 0 x 2\n3 0 v 1\n');

  it('counts pairs, agreement, confusion and kappa', async () => {
    const r = await agree(a, b, '--scale', '0-2');
    expect([r.n, r.onlyA, r.onlyB]).toEqual([4, 1, 1]);
    expect(r.exactAgreement).toBe(0.75);
    expect(r.confusion).toEqual({
      labels: [0, 1, 2],
      matrix: [
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 1],
      ],
    });
    // Cohen's kappa: p_o = 3/4; marginals A (1,2,1)/4, B (2,1,1)/4 → p_e = (2+2+1)/16 = 5/16;
    // kappa = (3/4 - 5/16) / (1 - 5/16) = 7/11.
    expect(r.cohenKappa.unweighted).toBeCloseTo(7 / 11, 12);
    // Binarised at 1: A = 0 1 1 1, B = 0 1 0 1 → p_o = 3/4, p_e = (1·2 + 3·2)/16 = 1/2 → 1/2.
    expect(r.binarized[0]!.kappa).toBeCloseTo(0.5, 12);
  });

  it('refuses a stray grade of 1e8 with exit 2 naming file and line, quickly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-agree-'));
    const a = join(dir, 'a.qrels');
    const b = join(dir, 'b.qrels');
    writeFileSync(a, '1 0 d1 1\n1 0 d2 0\n');
    writeFileSync(b, '1 0 d1 1\n1 0 d2 100000000\n');
    const refused = await cli('agree', a, b);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`${b}:2: grade 100000000 makes the scale 0-100000000`);
    // With a declared scale and --clip the grade is clamped to 3: d1 agrees, d2 does not.
    const clipped = await agree(a, b, '--scale', '0-3', '--clip');
    expect(clipped.n).toBe(2);
    expect(clipped.exactAgreement).toBe(0.5);
    // A scale that wide is a bad command line (exit 1), like any other bad --scale.
    const wide = await cli('agree', a, b, '--scale', '0-5000');
    expect(wide.code).toBe(1);
    expect(wide.stderr).toContain('--scale 0-5000 holds more than 1000 grades');
  });
});

describe('assay agree: Gwet, PABAK and topic-clustered intervals', () => {
  const judge = `${LLMJUDGE}willia-umbrela1.txt`;
  /** topic → [human grades, judge grades] over the pairs both grade, topics in A's order. */
  function byTopic(): Array<[number[], number[]]> {
    const read = (path: string) => {
      const m = new Map<string, Map<string, number>>();
      for (const line of readFileSync(path, 'utf8').trim().split('\n')) {
        const [q, , d, g] = line.trim().split(/\s+/);
        if (!m.has(q!)) m.set(q!, new Map());
        m.get(q!)!.set(d!, Math.min(3, Math.max(0, Number(g))));
      }
      return m;
    };
    const a = read(human);
    const b = read(judge);
    const out: Array<[number[], number[]]> = [];
    for (const [q, docs] of a) {
      const x: number[] = [];
      const y: number[] = [];
      for (const [d, g] of docs) {
        const h = b.get(q)?.get(d);
        if (h !== undefined) {
          x.push(g);
          y.push(h);
        }
      }
      if (x.length > 0) out.push([x, y]);
    }
    return out;
  }

  it('reports AC1, AC2, PABAK and Fleiss beside kappa, equal to the label-array forms', async () => {
    const r = await agree(human, judge, '--scale', '0-3', '--clip', '--samples', '0');
    const topics = byTopic();
    const x = topics.flatMap((t) => t[0]);
    const y = topics.flatMap((t) => t[1]);
    const labels = [0, 1, 2, 3];
    expect(r.gwet.ac1).toBeCloseTo(gwetAC(x, y, { labels }), 12);
    expect(r.gwet.ac2.linear).toBeCloseTo(gwetAC(x, y, { labels, weights: 'linear' }), 12);
    expect(r.gwet.ac2.quadratic).toBeCloseTo(gwetAC(x, y, { labels, weights: 'quadratic' }), 12);
    expect(r.pabak).toBeCloseTo(pabak(x, y, { labels }), 12);
    expect(r.fleissKappa).toBeCloseTo(fleissKappaFromLabels([x, y]), 12);
    expect(r.intervals).toBeUndefined();
  });

  it('intervals equal a bootstrap of the topics computed here from the label arrays', async () => {
    const r = await agree(
      human,
      judge,
      '--scale',
      '0-3',
      '--clip',
      '--samples',
      '300',
      '--seed',
      '9',
    );
    expect(r.bootstrap).toMatchObject({ samples: 300, seed: 9, level: 0.95, topics: 25 });
    // The reference: createRng(9), 25 topics drawn per resample (nextInt(25)), the drawn
    // topics' labels concatenated, each statistic from the label arrays, percentile 2.5/97.5.
    const topics = byTopic();
    const labels = [0, 1, 2, 3];
    const stats: Record<string, (x: number[], y: number[]) => number> = {
      kappa: (x, y) => cohenKappa(x, y, { labels }),
      quadratic: (x, y) => cohenKappa(x, y, { labels, weights: 'quadratic' }),
      ordinal: (x, y) => krippendorffAlpha([x, y], 'ordinal'),
      fleiss: (x, y) => fleissKappaFromLabels([x, y], labels),
      ac1: (x, y) => gwetAC(x, y, { labels }),
      pabak: (x, y) => pabak(x, y, { labels }),
    };
    const draws: Record<string, number[]> = Object.fromEntries(
      Object.keys(stats).map((k) => [k, []]),
    );
    const rng = createRng(9);
    for (let s = 0; s < 300; s++) {
      const x: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < topics.length; i++) {
        const [tx, ty] = topics[rng.nextInt(topics.length)]!;
        x.push(...tx);
        y.push(...ty);
      }
      for (const [k, f] of Object.entries(stats)) draws[k]!.push(f(x, y));
    }
    const interval = (k: string) => {
      const sorted = Float64Array.from(draws[k]!).sort();
      return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)].map((v) =>
        expect.closeTo(v, 10),
      );
    };
    const ci = r.intervals!;
    expect(ci.cohenKappa.unweighted).toEqual(interval('kappa'));
    expect(ci.cohenKappa.quadratic).toEqual(interval('quadratic'));
    expect(ci.krippendorffAlpha.ordinal).toEqual(interval('ordinal'));
    expect(ci.fleissKappa).toEqual(interval('fleiss'));
    expect(ci.gwet.ac1).toEqual(interval('ac1'));
    expect(ci.pabak).toEqual(interval('pabak'));
    // Every interval holds its estimate here.
    expect(ci.cohenKappa.unweighted[0]).toBeLessThan(r.cohenKappa.unweighted);
    expect(ci.cohenKappa.unweighted[1]).toBeGreaterThan(r.cohenKappa.unweighted);
    const text = await cli(
      'agree',
      human,
      judge,
      '--scale',
      '0-3',
      '--clip',
      '--samples',
      '300',
      '--seed',
      '9',
    );
    expect(text.stdout).toContain('300 resamples of 25 topics, seed 9');
    expect(text.stdout).toMatch(/Gwet's AC1\s+\d\.\d{4} \[/);
    const bad = await cli('agree', human, judge, '--samples', '-1');
    expect(bad.code).toBe(1);
  });
});

describe('assay agree encodings', () => {
  it('refuses undeclared Latin-1 naming file:line, and reads it with --encoding latin1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-agree-latin1-'));
    const a = join(dir, 'a.qrels');
    const b = join(dir, 'b.qrels');
    // "café" (é as the one byte 0xE9) judged 1 by A and 0 by B.
    writeFileSync(a, Buffer.from('1 0 caf\u00e9 1\n1 0 tea 0\n', 'latin1'));
    writeFileSync(b, Buffer.from('1 0 caf\u00e9 0\n1 0 tea 0\n', 'latin1'));
    const refused = await cli('agree', a, b);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^assay agree: ${a}:1: the line is not valid UTF-8`));
    const read = await cli('agree', '--encoding', 'latin1', '--format', 'json', a, b);
    expect(read.code).toBe(0);
    const report = JSON.parse(read.stdout) as AgreementReport;
    // Both documents paired: one agreement (tea), one disagreement (café).
    expect(report.n).toBe(2);
    expect(report.exactAgreement).toBe(0.5);
  });
});
