import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// NIST trec_eval 10.0 regression files (see test/fixtures/trec_eval/ORIGIN.md). Each case
// is the trec_eval command line that produced the expected file; assay must print the
// same text line for line.
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/trec_eval/', import.meta.url));
const f = (name: string) => FIXTURES + name;

const CASES: Array<{ expected: string; args: string[] }> = [
  { expected: 'out.test', args: [f('qrels.test'), f('results.test')] },
  { expected: 'out.test', args: [f('qrels.test.with-comments'), f('results.test')] },
  { expected: 'out.comment.test', args: [f('qrels.comment.test'), f('results.comment.test')] },
  { expected: 'out.test.a', args: ['-m', 'all_trec', f('qrels.test'), f('results.test')] },
  { expected: 'out.test.aq', args: ['-m', 'all_trec', '-q', f('qrels.test'), f('results.test')] },
  {
    expected: 'out.test.aqc',
    args: ['-m', 'all_trec', '-q', '-c', f('qrels.test'), f('results.trunc')],
  },
  {
    expected: 'out.test.aqcM',
    args: ['-m', 'all_trec', '-q', '-c', '-M100', f('qrels.test'), f('results.trunc')],
  },
  {
    expected: 'out.test.aql',
    args: [
      '-m',
      'all_trec',
      '-mrelstring.20',
      '-q',
      '-l2',
      f('qrels.rel_level'),
      f('results.test'),
    ],
  },
  {
    expected: 'out.test.meas_params',
    args: [
      '-q',
      '-miprec_at_recall..10,.20,.25,.75,.50',
      '-m',
      'P.5,7,3',
      '-m',
      'recall.20,2000',
      '-m',
      'Rprec_mult.5.0,0.2,0.35',
      '-mutility.2,-1,0,0',
      '-m',
      '11pt_avg..25,.5,.75',
      '-mndcg.1=3,2=9,4=4.5',
      '-mndcg_cut.10,20,23.4',
      '-msuccess.2,5,20',
      f('qrels.test'),
      f('results.test'),
    ],
  },
  {
    expected: 'out.test.aqZ',
    args: ['-q', '-m', 'all_trec', '-Z', f('zscores_file'), f('qrels.test'), f('results.test')],
  },
  {
    expected: 'out.test.qrels_jg',
    args: ['-m', 'qrels_jg', '-q', '-R', 'qrels_jg', f('qrels.123'), f('results.test')],
  },
  {
    expected: 'out.test.prefs',
    args: ['-m', 'all_prefs', '-q', '-R', 'prefs', f('prefs.test'), f('prefs.results.test')],
  },
  {
    expected: 'out.test.qrels_prefs',
    args: ['-m', 'all_prefs', '-q', '-R', 'qrels_prefs', f('qrels.test'), f('results.test')],
  },
];

describe('assay eval reproduces trec_eval 10.0 regression outputs', () => {
  it('has every fixture', () => {
    for (const c of CASES) expect(existsSync(f(c.expected)), c.expected).toBe(true);
  });

  for (const c of CASES) {
    it(`${c.expected} (${c.args.filter((a) => !a.startsWith(FIXTURES)).join(' ') || 'default measures'})`, async () => {
      const { code, stdout, stderr } = await cli('eval', ...c.args);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const expected = readFileSync(f(c.expected), 'utf8').split('\n');
      const actual = stdout.split('\n');
      // Compare line by line so a failure names the first differing measure and topic.
      for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
        expect(actual[i], `line ${i + 1}`).toBe(expected[i]);
      }
    });
  }
});

describe('assay eval carries every relevance format to its worker threads', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const cases: Array<{ expected: string; args: string[]; runs: string[] }> = [
    {
      expected: 'out.test.qrels_jg',
      args: ['-m', 'qrels_jg', '-q', '-R', 'qrels_jg', f('qrels.123')],
      runs: [f('results.test'), f('results.test')],
    },
    {
      expected: 'out.test.prefs',
      args: ['-m', 'all_prefs', '-q', '-R', 'prefs', f('prefs.test')],
      runs: [f('prefs.results.test'), f('prefs.results.test')],
    },
    {
      expected: 'out.test.qrels_prefs',
      args: ['-m', 'all_prefs', '-q', '-R', 'qrels_prefs', f('qrels.test')],
      runs: [f('results.test'), f('results.test')],
    },
  ];
  for (const c of cases) {
    it(`${c.expected} twice, from the built bundle`, () => {
      const result = spawnSync(
        process.execPath,
        ['apps/cli/bin/assay.js', 'eval', ...c.args, ...c.runs],
        { cwd: root, encoding: 'utf8' },
      );
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const expected = readFileSync(f(c.expected), 'utf8');
      expect(result.stdout).toBe(expected + expected);
    });
  }
});

describe('assay eval checks values numerically too', () => {
  it('every per-topic and summary value of out.test.aqc is within 5e-5', async () => {
    const { stdout } = await cli(
      'eval',
      '-m',
      'all_trec',
      '-q',
      '-c',
      '--format',
      'json',
      f('qrels.test'),
      f('results.trunc'),
    );
    const rows = JSON.parse(stdout) as Array<{
      measure: string;
      qid: string;
      value: number | string;
    }>;
    const expected = readFileSync(f('out.test.aqc'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('\t').map((s) => s.trim()))
      .filter(([name]) => name !== 'runid' && name !== 'relstring');
    expect(expected.length).toBeGreaterThan(300);
    for (const [measure, qid, value] of expected) {
      const row = rows.find((r) => r.measure === measure && r.qid === qid);
      expect(row, `${measure} ${qid}`).toBeDefined();
      expect(
        Math.abs((row!.value as number) - Number(value)),
        `${measure} ${qid}`,
      ).toBeLessThanOrEqual(5e-5);
    }
  });
});
