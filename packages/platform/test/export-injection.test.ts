import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  createComparisonReport,
  importCollection,
  importQrels,
  importRun,
  renderLeaderboard,
  type CompareReport,
} from '../src/index.js';

// Run tags and a label set name an attacker chose: spreadsheet formulas and a LaTeX
// command after a line break (which would end a `%` comment).
const TAGS = ['=HYPERLINK("http://x")', '+SUM(1+1)', '-2+3+cmd', '@SUM(A1)'];
const LABEL_SET = 'human\n\\input{/etc/passwd}%';
const QRELS = '1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 0\n3 0 e 1\n';

/** A run ranking `docs` per topic, tagged `tag`. */
function runText(tag: string, order: string[][]): string {
  return order
    .flatMap((docs, t) => docs.map((d, i) => `${t + 1} Q0 ${d} ${i + 1} ${10 - i} ${tag}`))
    .join('\n');
}

forEachDatabase('downloads of names users chose', (t) => {
  it('neutralise CSV formulas and keep LaTeX commands out of the .tex, comments included', async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'a\tx\n' });
    await importQrels(t.db, { collection: 'c', labelSet: LABEL_SET, file: 'q', text: QRELS });
    const orders = [
      [['a', 'b'], ['c', 'd'], ['e']],
      [['b', 'a'], ['d', 'c'], ['e']],
      [['a'], ['d', 'c'], ['x']],
      [['b'], ['c'], ['e']],
    ];
    for (const [i, tag] of TAGS.entries())
      await importRun(t.db, { collection: 'c', file: `r${i}`, text: runText(tag, orders[i]!) });
    const report = await createComparisonReport(t.db, {
      collection: 'c',
      labelSets: [LABEL_SET],
      runs: TAGS,
      measures: ['P.1'],
    });
    const result = report.result as CompareReport;

    const csv = renderLeaderboard(result, 'csv').body;
    // Each name is written as text: a leading quote, then the name (quoted where CSV needs).
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    for (const tag of TAGS.slice(1)) expect(csv).toContain(`'${tag}`);
    // No cell anywhere starts with a formula character followed by a letter or quote.
    for (const line of csv.split('\n'))
      for (const cell of line.split(','))
        expect(cell.replace(/^"/, '')).not.toMatch(/^[=+@]|^-[^0-9.]|^-2\+/);

    const tex = renderLeaderboard(result, 'latex').body;
    expect(tex).not.toContain('\\input{');
    expect(tex).toContain('human \\textbackslash{}input\\{/etc/passwd\\}\\%');
    // Every line that mentions the label set is still inside its comment.
    for (const line of tex.split('\n'))
      if (line.includes('passwd')) expect(line.startsWith('%')).toBe(true);
  });
});
