// `assay compare` with two qrels: leaderboard names (--qrels NAME=FILE), the topic set
// (--topics common|first|FILE, a warning when the qrels' topics differ) and the HTML page
// layout. Expected means by hand in the comments.
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { file } = scratchDir('assay-compare-topics-');

// H judges topics 1, 2 and 4, L topics 1, 3 and 4. r1 puts the relevant document first
// everywhere; r2 only on topics 2 and 4.
const H = file('H', '1 0 a 1\n2 0 b 1\n4 0 d 1\n');
const L = file('L', '1 0 a 1\n3 0 c 1\n4 0 d 1\n');
const r1 = file('r1', '1 Q0 a 1 1 r1\n2 Q0 b 1 1 r1\n3 Q0 c 1 1 r1\n4 Q0 d 1 1 r1\n');
const r2 = file('r2', '1 Q0 x 1 1 r2\n2 Q0 b 1 1 r2\n3 Q0 x 1 1 r2\n4 Q0 d 1 1 r2\n');
const topicsFile = file('topics.tsv', '2\tquery two\n3\tquery three\n');

type Board = {
  qrels: string;
  topics: number;
  runs: Array<{ run: string; means: Record<string, number> }>;
};

/** `assay compare` of r1 and r2 on P@1 under both qrels, named NIST and LLM. */
const compareBoth = (...args: string[]) =>
  cli('compare', '--qrels', `NIST=${H}`, '--qrels', `LLM=${L}`, r1, r2, '-m', 'P@1', ...args);

async function boards(...args: string[]) {
  const r = await compareBoth('--format', 'json', ...args);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as { leaderboards: Board[] };
  const means = report.leaderboards.map((b) =>
    Object.fromEntries(b.runs.map((x) => [x.run, x.means['P@1']])),
  );
  return { report, means, stderr: r.stderr };
}

describe('assay compare --qrels NAME=FILE and --topics', () => {
  it('names the leaderboards and warns that the topic sets differ', async () => {
    const { report, means, stderr } = await boards();
    expect(report.leaderboards.map((b) => b.qrels)).toEqual(['NIST', 'LLM']);
    // Own topics: NIST {1, 2, 4}: r1 1, r2 (0 + 1 + 1)/3; LLM {1, 3, 4}: r1 1, r2 (0 + 0 + 1)/3.
    expect(means).toEqual([
      { r1: 1, r2: 2 / 3 },
      { r1: 1, r2: 1 / 3 },
    ]);
    expect(stderr).toBe(
      'assay compare: the qrels judge different topics (NIST: 3, LLM: 3; 2 in common); each leaderboard averages over its own qrels topics; --topics common|first|FILE evaluates all on one set\n',
    );
  });

  it('--topics common evaluates both on the topics both judge', async () => {
    const { report, means, stderr } = await boards('--topics', 'common');
    expect(stderr).toBe('');
    // {1, 4}: r1 1, r2 (0 + 1)/2 under both.
    expect(report.leaderboards.map((b) => b.topics)).toEqual([2, 2]);
    expect(means).toEqual([
      { r1: 1, r2: 0.5 },
      { r1: 1, r2: 0.5 },
    ]);
  });

  it('--topics first evaluates both on the first qrels topics (unjudged there: 0)', async () => {
    const { means } = await boards('--topics', 'first');
    // LLM over {1, 2, 4}; topic 2 has no judgments in LLM: r1 (1 + 0 + 1)/3, r2 (0 + 0 + 1)/3.
    expect(means).toEqual([
      { r1: 1, r2: 2 / 3 },
      { r1: 2 / 3, r2: 1 / 3 },
    ]);
  });

  it('--topics FILE evaluates both on the listed topics', async () => {
    const { means } = await boards('--topics', topicsFile);
    // {2, 3}: NIST r1 (1 + 0)/2, r2 (1 + 0)/2; LLM r1 (0 + 1)/2, r2 0.
    expect(means).toEqual([
      { r1: 0.5, r2: 0.5 },
      { r1: 0.5, r2: 0 },
    ]);
  });
});

describe('assay compare HTML layout', () => {
  it('puts the agreement summary first, the p-value matrices last, and names the qrels', async () => {
    const r = await compareBoth('--topics', 'common', '--format', 'html');
    expect(r.code).toBe(0);
    const html = r.stdout;
    const agreement = html.indexOf('<h2>Leaderboard agreement</h2>');
    const first = html.indexOf('<h2>Leaderboard 1: NIST</h2>');
    const second = html.indexOf('<h2>Leaderboard 2: LLM</h2>');
    const pvalues = html.indexOf('<h2>Corrected p-values: NIST</h2>');
    expect(agreement).toBeGreaterThan(0);
    expect(first).toBeGreaterThan(agreement);
    expect(second).toBeGreaterThan(first);
    expect(pvalues).toBeGreaterThan(second);
    expect(html).toMatch(/<text [^>]*font-weight="600"[^>]*>NIST<\/text>/);
    expect(html).not.toContain('first qrels');
    // Cells never wrap (a p-value such as 7.25e-135 stays on one line) and significance
    // marks sit in a fixed-width slot after the number.
    expect(html).toMatch(/td,th\{[^}]*white-space:nowrap/);
    expect(html).toMatch(/sup\.mk\{display:inline-block;min-width:\d+ch/);
  });
});
