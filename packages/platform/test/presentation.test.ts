// The one presentation of a leaderboard (@assay/platform/presentation), checked against
// values worked out by hand: the formats, ticks, tags and marks, the geometry of each chart,
// the escaping of names from users' files, and the page shell every HTML report is in.
import { answerQualityReport } from '@assay/stats';
import { describe, expect, it } from 'vitest';
import { compareTopicValues, comparisonHtml, judgeReportHtml } from '../src/analysis/index.js';
import { answersHtml } from '../src/answers/index.js';
import {
  bestMeans,
  correctionName,
  f4,
  formatP,
  htmlPage,
  intervalDomain,
  intervalPlotSvg,
  linear,
  marksLegend,
  pValueMatrix,
  pValueMatrixHtml,
  runTags,
  significanceMarks,
  slopeChartSvg,
  testName,
  tickLabel,
  ticks,
  topicDifferences,
  topicDifferencesSvg,
  winsLosses,
  type MatrixTest,
} from '../src/presentation/index.js';

const EVIL = '<script>alert(1)</script>';
const EVIL_ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;';

describe('numbers', () => {
  it('writes statistics to four decimals and p-values in exponent form below 0.001', () => {
    expect(f4(0.25)).toBe('0.2500');
    expect(f4(-0.123456)).toBe('-0.1235');
    expect(f4(Number.NaN)).toBe('n/a');
    expect(f4(null)).toBe('n/a');
    expect(f4(undefined)).toBe('n/a');
    expect(f4(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(formatP(0.25)).toBe('0.2500');
    expect(formatP(0.0012)).toBe('0.0012');
    expect(formatP(0.001)).toBe('0.0010');
    expect(formatP(0.00099)).toBe('9.90e-4');
    expect(formatP(0.0005)).toBe('5.00e-4');
    expect(formatP(1.234e-7)).toBe('1.23e-7');
    expect(formatP(0)).toBe('0.0000');
    expect(formatP(1)).toBe('1.0000');
    expect(formatP(Number.NaN)).toBe('n/a');
    expect(formatP(null)).toBe('n/a');
  });

  it('puts about five round ticks on an axis', () => {
    // Span 1: a fifth is 0.2, a round step.
    expect(ticks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    // Span 0.6: a fifth is 0.12, rounded up to 0.2; the first tick is the first multiple above -0.3.
    expect(ticks(-0.3, 0.3)).toEqual([-0.2, 0, 0.2]);
    // Span 0.03: a fifth is 0.006, rounded up to 0.01.
    expect(ticks(0.41, 0.44)).toEqual([0.41, 0.42, 0.43, 0.44]);
    // Span 0.07: a fifth is 0.014, rounded up to 0.02.
    expect(ticks(0, 0.07)).toEqual([0, 0.02, 0.04, 0.06]);
    // Span 250: a fifth is 50, a round step.
    expect(ticks(0, 250)).toEqual([0, 50, 100, 150, 200, 250]);
    // Symmetric, as the per-topic plot's axis: -0.5/0.2 rounds up to -2 steps.
    expect(ticks(-0.5, 0.5)).toEqual([-0.4, -0.2, 0, 0.2, 0.4]);
    // No span: treated as a span of 1 (step 0.2), the value itself its one tick.
    expect(ticks(5, 5)).toEqual([5]);
  });

  it('labels ticks with at most six significant digits', () => {
    expect(tickLabel(0.1 + 0.2)).toBe('0.3');
    expect(tickLabel(-0.05)).toBe('-0.05');
    expect(tickLabel(1234567)).toBe('1234570');
    expect(tickLabel(0)).toBe('0');
  });

  it('pads the interval axis by 4% either side, and widens a single point by 0.05', () => {
    // [0.2, 0.6], padded by 0.04 × 0.4 = 0.016.
    const [lo, hi] = intervalDomain([
      [0.2, 0.4],
      [0.3, 0.6],
    ]);
    expect(lo).toBeCloseTo(0.184, 12);
    expect(hi).toBeCloseTo(0.616, 12);
    // [0.45, 0.55], padded by 0.04 × 0.1 = 0.004.
    const [plo, phi] = intervalDomain([[0.5, 0.5]]);
    expect(plo).toBeCloseTo(0.446, 12);
    expect(phi).toBeCloseTo(0.554, 12);
  });

  it('maps a domain onto a range linearly, reversed ranges too', () => {
    expect(linear(0, 1, 200, 696)(0.5)).toBe(448);
    expect(linear(-1, 1, 206, 10)(0)).toBe(108);
    expect(linear(-1, 1, 206, 10)(1)).toBe(10);
  });
});

describe('tags and marks', () => {
  it('tags runs a–z, A–Z, then numbers', () => {
    const names = Array.from({ length: 53 }, (_, i) => `r${i}`);
    const tags = runTags(names);
    expect([
      tags.get('r0'),
      tags.get('r25'),
      tags.get('r26'),
      tags.get('r51'),
      tags.get('r52'),
    ]).toEqual(['a', 'z', 'A', 'Z', '53']);
  });

  it('marks the runs a mean beats in leaderboard order, with commas once a tag is longer', () => {
    const tags = runTags(['best', 'second', 'third', 'fourth']);
    // Given out of order, written in leaderboard order.
    expect(significanceMarks(tags, ['fourth', 'second'])).toBe('bd');
    expect(significanceMarks(tags, [])).toBe('');
    expect(significanceMarks(tags, undefined)).toBe('');
    // A name that is no run of the leaderboard has no tag and no mark.
    expect(significanceMarks(tags, ['elsewhere', 'third'])).toBe('c');
    const many = runTags(Array.from({ length: 53 }, (_, i) => `r${i}`));
    expect(significanceMarks(many, ['r52', 'r1'])).toBe('b,53');
  });

  it('finds the best mean of each column, skipping runs without one', () => {
    const runs = [
      { means: { P_10: 0.3, map: 0.2 } },
      { means: { P_10: 0.5, map: null } },
      { means: { P_10: 0.1, map: 0.25 } },
    ];
    expect(bestMeans(['P_10', 'map'], runs)).toEqual({ P_10: 0.5, map: 0.25 });
  });

  it('names the tests, the corrections and the marks in words', () => {
    expect(testName('t')).toBe('paired t-test');
    expect(testName('wilcoxon')).toBe('Wilcoxon signed-rank test');
    expect(testName('randomization')).toBe('paired randomization test');
    expect(testName('sign')).toBe('sign');
    expect(correctionName('holm')).toBe('Holm');
    expect(correctionName('bh')).toBe('Benjamini-Hochberg');
    expect(correctionName('none')).toBe('no');
    expect(marksLegend(undefined)).toBe(
      'A mark after a mean lists the runs (by tag) it is significantly better than on that measure.',
    );
    expect(marksLegend('bm25')).toBe(
      'A mark after a mean: significantly better than that run (only tests against the baseline bm25 were run).',
    );
  });
});

describe('the interval plot', () => {
  const svg = intervalPlotSvg('P_<10>', [
    { run: EVIL, mean: 0.3, lo: 0.2, hi: 0.4 },
    { run: 'bm25', mean: 0.45, lo: 0.3, hi: 0.6 },
  ]);

  it('escapes the run and measure names it writes', () => {
    expect(svg).not.toContain('<script>');
    expect(svg).toContain(`>${EVIL_ESCAPED}</text>`);
    expect(svg).toContain(`<title>${EVIL_ESCAPED}: mean 0.3000, 95% CI [0.2000, 0.4000]</title>`);
    expect(svg).toContain('aria-label="P_&lt;10&gt;: means with 95% confidence intervals"');
    expect(svg).toContain('>mean P_&lt;10&gt; with 95% bootstrap interval</text>');
    // Inline in a page, it names no URL (not even a namespace): a report fetches nothing.
    expect(svg).not.toMatch(/https?:/);
  });

  it('places whiskers and means on the padded axis, one 22-unit row per run', () => {
    // Axis [0.184, 0.616] onto x 200…696: x(v) = 200 + (v − 0.184) / 0.432 × 496.
    // x(0.2) = 218.4, x(0.4) = 448.0, x(0.3) = 333.2; rows centred at y 23 and 45.
    expect(svg).toContain('viewBox="0 0 720 96"');
    expect(svg).toContain('<line x1="218.4" x2="448.0" y1="23.0" y2="23.0"');
    expect(svg).toContain('<circle cx="333.2" cy="23.0" r="4.5"');
    // x(0.3) = 333.2, x(0.6) = 677.6, x(0.45) = 505.4.
    expect(svg).toContain('<line x1="333.2" x2="677.6" y1="45.0" y2="45.0"');
    expect(svg).toContain('<circle cx="505.4" cy="45.0" r="4.5"');
    // Ticks every 0.1 (a fifth of 0.432 rounded up); the 0.5 tick at x 562.8.
    const labels = [...svg.matchAll(/text-anchor="middle">([\d.]+)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(['0.2', '0.3', '0.4', '0.5', '0.6']);
    expect(svg).toContain('<text x="562.8" y="72" text-anchor="middle">0.5</text>');
  });
});

describe('the per-topic differences', () => {
  it('sorts differences largest first, ties by topic id, and counts wins', () => {
    const diffs = topicDifferences(
      ['t1', 't2', 't3', 't0'],
      [0.75, 0.25, 0.5, 0.5],
      [0.25, 0.5, 0.5, 0.5],
    );
    expect(diffs).toEqual([
      { topic: 't1', a: 0.75, b: 0.25, diff: 0.5 },
      { topic: 't0', a: 0.5, b: 0.5, diff: 0 },
      { topic: 't3', a: 0.5, b: 0.5, diff: 0 },
      { topic: 't2', a: 0.25, b: 0.5, diff: -0.25 },
    ]);
    expect(winsLosses(diffs)).toEqual({ wins: 1, losses: 1, ties: 2 });
  });

  const diffs = topicDifferences(['q<1>', 'q2', 'q3'], [0.75, 0.5, 0.25], [0.25, 0.5, 0.5]);
  const svg = topicDifferencesSvg('ndcg', EVIL, 'bm25', diffs);

  it('draws a bar from zero per topic: up in green, down in red, a tie flat', () => {
    // y maps [-0.5, 0.5] onto 206…10: y(0) = 108, y(0.5) = 10, y(-0.25) = 157.
    // Three bars share 660 units: 220 each, 219 wide with a gap of 1.
    const bars = [
      ...svg.matchAll(
        /<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="([^"]+)"/g,
      ),
    ];
    expect(bars.map((m) => m.slice(1))).toEqual([
      ['50.0', '10.0', '219.00', '98.0', '#3c8d5a'],
      ['270.0', '108.0', '219.00', '0.0', '#3c8d5a'],
      ['490.0', '108.0', '219.00', '49.0', '#b5483b'],
    ]);
    // The zero line is the dark one.
    expect(svg).toContain('<line x1="50" x2="710" y1="108.0" y2="108.0" stroke="#555"/>');
    expect(svg).toContain('3 topics sorted by difference: ');
    expect(svg).toContain(' higher on 1, bm25 higher on 1, equal on 1</text>');
  });

  it('escapes run names and topic ids', () => {
    expect(svg).not.toContain('<script>');
    expect(svg).toContain(`aria-label="Per-topic ndcg differences: ${EVIL_ESCAPED} − bm25"`);
    expect(svg).toContain(
      `<title>topic q&lt;1&gt;: ${EVIL_ESCAPED} 0.7500, bm25 0.2500, difference 0.5000</title>`,
    );
  });
});

describe('the p-value matrix', () => {
  const pairs: MatrixTest[] = [
    { a: 'x', b: 'y', measure: 'm', meanDiff: 0.25, p: 0.01, pAdjusted: 0.02, significant: true },
    { a: 'z', b: 'x', measure: 'm', meanDiff: 0.5, p: 0.2, pAdjusted: 0.4, significant: false },
    { a: 'y', b: 'z', measure: 'other', meanDiff: 1, p: 0, pAdjusted: 0, significant: true },
  ];

  it('lays the tests of one measure out as a run × run matrix, signed from the row run', () => {
    const xy = { diff: 0.25, p: 0.01, pAdjusted: 0.02, significant: true };
    const yx = { diff: -0.25, p: 0.01, pAdjusted: 0.02, significant: true };
    const xz = { diff: -0.5, p: 0.2, pAdjusted: 0.4, significant: false };
    const zx = { diff: 0.5, p: 0.2, pAdjusted: 0.4, significant: false };
    // y against z was tested on another measure only: no cell.
    expect(pValueMatrix(['x', 'y', 'z'], pairs, 'm')).toEqual([
      [null, xy, xz],
      [yx, null, null],
      [zx, null, null],
    ]);
  });

  it('writes the table: corrected p per cell, coloured and said in words when significant', () => {
    const runs = ['x', 'y', 'z'];
    const html = pValueMatrixHtml({ measure: 'm', runs, tags: runTags(runs), pairs });
    const rows = [...html.matchAll(/<tr><th scope="row" class="run">(.*?)<\/th>(.*?)<\/tr>/g)];
    const cells = rows.map((r) => [
      r[1],
      ...[...r[2]!.matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map((c) => c[2]!.replace(/<[^>]+>/g, '')),
    ]);
    expect(cells).toEqual([
      ['a x', '–', '0.0200 (row better)', '0.4000'],
      ['b y', '0.0200 (row worse)', '–', ''],
      ['c z', '0.4000', '', '–'],
    ]);
    expect(html).toContain('class="sig win" style="background:#d7efd9"');
    expect(html).toContain('class="sig loss" style="background:#f6d6d4"');
    expect(html).toContain('title="x − y: 0.2500; p 0.0100, corrected 0.0200"');
    expect(html).toContain('<td title="not tested"></td>');
    expect(html).toContain('<caption>Corrected p-values, m: row run against column run.</caption>');
  });

  it('escapes run names, their tags and the measure', () => {
    const runs = [EVIL, 'b"m'];
    const html = pValueMatrixHtml({
      measure: '<m>',
      runs,
      tags: runTags(runs),
      pairs: [
        {
          a: EVIL,
          b: 'b"m',
          measure: '<m>',
          meanDiff: 0.1,
          p: 0.5,
          pAdjusted: 0.5,
          significant: false,
        },
      ],
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain(`<th scope="row" class="run">a ${EVIL_ESCAPED}</th>`);
    expect(html).toContain(`<th scope="col" title="b&quot;m">b</th>`);
    expect(html).toContain(
      `title="${EVIL_ESCAPED} − b&quot;m: 0.1000; p 0.5000, corrected 0.5000"`,
    );
    expect(html).toContain('Corrected p-values, &lt;m&gt;:');
  });
});

describe('the slope chart', () => {
  const svg = slopeChartSvg({
    label: 'P_10 rankings under <a> and "b"',
    leftHead: '<a>',
    rightHead: '"b"',
    left: [
      { run: '<script>x</script>', value: '0.5000' },
      { run: 'bm25', value: '0.4000' },
      { run: 'only-left' },
    ],
    right: [
      { run: 'bm25', value: '0.6000' },
      { run: '<script>x</script>', value: '0.3000' },
    ],
  });

  it('escapes every name it writes', () => {
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('1. &lt;script&gt;x&lt;/script&gt; 0.5000');
    expect(svg).toContain('aria-label="P_10 rankings under &lt;a&gt; and &quot;b&quot;"');
  });

  it('joins each run present on both sides: down in red, up in green, none for a missing run', () => {
    const lines = [...svg.matchAll(/<line [^>]*y1="([\d.]+)" y2="([\d.]+)" stroke="([^"]+)"/g)];
    // Rows are 22 apart from y = 41: the first run falls from place 1 to 2, bm25 rises.
    expect(lines.map((m) => [m[1], m[2], m[3]])).toEqual([
      ['41.0', '63.0', '#b5483b'],
      ['63.0', '41.0', '#3c8d5a'],
    ]);
    expect(svg).toContain('3. only-left');
    expect(svg).toContain('rank 2 (0.4000) → rank 1 (0.6000)');
  });
});

/** The shell's opening, written out: the head every HTML report of assay starts with. */
const shellHead = (title: string) =>
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
  `<title>${title}</title>\n<style>svg{max-width:100%;height:auto}`;

describe('the page shell of the HTML reports', () => {
  it('escapes the title into <title> and the one <h1>, and keeps the body as given', () => {
    const page = htmlPage({ title: `Board ${EVIL}`, style: 'p{}', body: '<p>ok</p>' });
    expect(page.startsWith(shellHead(`Board ${EVIL_ESCAPED}`))).toBe(true);
    expect(page).toContain(
      `p{}</style>\n</head>\n<body>\n<h1>Board ${EVIL_ESCAPED}</h1>\n<p>ok</p>\n</body>\n</html>\n`,
    );
    expect(page).not.toContain('<script>');
  });

  it('holds the compare, answers and judge reports, each with the viewport tag', () => {
    const systems = ['bm25', EVIL].map((run, s) => ({
      run,
      values: new Map(['q1', 'q2', 'q3'].map((q, i) => [q, { P_10: (i + 1 + s) / 10 }])),
    }));
    const comparison = compareTopicValues(
      systems,
      ['q1', 'q2', 'q3'],
      ['P_10'],
      { test: 't', correction: 'holm', alpha: 0.05, permutations: 1000, seed: 42 },
      { topicHandling: 'every topic counts', source: 'answers' },
    );
    const compare = comparisonHtml({ leaderboards: [{ qrels: 'nist', comparison }] }, 'Board');
    expect(compare.startsWith(shellHead('Board'))).toBe(true);
    expect(compare).toContain('<h1>Board</h1>');
    expect(compare).not.toContain('<script>');
    // The charts and matrix are the presentation's own.
    expect(compare).toContain('aria-label="P_10: means with 95% confidence intervals"');
    expect(compare).toContain(`aria-label="Per-topic P_10 differences: ${EVIL_ESCAPED} − bm25"`);

    const rows = ['q1', 'q2'].flatMap((topic) =>
      ['a', 'b'].map((system, s) => ({ topic, system, trial: 1, scores: { x: 2 + s } })),
    );
    const answers = answersHtml(answerQualityReport(rows, { samples: 50 }), {
      test: 'paired',
      correction: 'holm',
      alpha: 0.05,
    });
    expect(answers.startsWith(shellHead('Answer quality'))).toBe(true);
    expect(answers).toContain('<h1>Answer quality</h1>');

    const judge = judgeReportHtml(
      {
        scale: { min: 0, max: 3 },
        judges: [],
        drift: [],
        bootstrap: { samples: 0, seed: 42, level: 0.95, method: 'none' },
        rareGradeShare: 0.02,
        notes: [],
      },
      'Judges',
    );
    expect(judge.startsWith(shellHead('Judges'))).toBe(true);
  });
});
