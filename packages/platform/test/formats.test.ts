// The one writer or escaper per output format, checked cell by cell against hand-written
// expectations, and the slope chart shared by the compare report and the web app.
import { describe, expect, it } from 'vitest';
import {
  csvCell,
  csvRow,
  escapeHtml,
  latexComment,
  latexEscape,
  slopeChartSvg,
} from '../src/formats/index.js';

describe('CSV cells', () => {
  it('guard text a spreadsheet would run as a formula, and only text', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+SUM(1+1)')).toBe("'+SUM(1+1)");
    expect(csvCell('-2+3+cmd')).toBe("'-2+3+cmd");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('\rcmd')).toBe(`"'\rcmd"`);
    expect(csvCell('＝cmd')).toBe("'＝cmd");
    // Numbers stay numbers, negative ones included; NaN is an empty cell.
    expect(csvCell(-0.25)).toBe('-0.25');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('bm25')).toBe('bm25');
  });

  it('quote commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvRow(['=x', 1, 'y,z'])).toBe(`'=x,1,"y,z"`);
  });
});

describe('LaTeX escaping', () => {
  it('escapes every special character and keeps a name inside its comment', () => {
    expect(latexEscape('a_b & c% $d$ #1 {x} ~ ^ \\ < > |')).toBe(
      'a\\_b \\& c\\% \\$d\\$ \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} \\textless{} \\textgreater{} \\textbar{}',
    );
    expect(latexEscape('human\n\\input{/etc/passwd}')).toBe(
      'human \\textbackslash{}input\\{/etc/passwd\\}',
    );
    expect(latexComment('title\r\n\\input{x}')).toBe('% title \\input{x}');
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
    expect(escapeHtml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&#39;');
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
