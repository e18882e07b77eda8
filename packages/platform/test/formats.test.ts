// The one writer or escaper per output format, checked cell by cell against hand-written
// expectations (the charts shared by the reports and the web app: presentation.test.ts).
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, escapeHtml, latexComment, latexEscape } from '../src/formats/index.js';

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

describe('HTML escaping', () => {
  it('escapes the five characters that end text or an attribute', () => {
    expect(escapeHtml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&#39;');
  });
});
