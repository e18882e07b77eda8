import { readFileSync } from 'node:fs';
import { parseQrels, parseRun } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import { evaluateRun, formatTrecText, prepareQrels, resolveMeasures } from '../src/index.js';

describe('README example', () => {
  it('prints what the README says', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const expected = [...readme.matchAll(/^\/\/ (\S.*)$/gm)].map((m) => m[1]);
    const qrels = prepareQrels(parseQrels('1 0 d1 1\n1 0 d2 0\n'));
    const run = parseRun('1 Q0 d2 1 2.0 demo\n1 Q0 d1 2 1.0 demo\n');
    const result = evaluateRun(qrels, run, resolveMeasures(['map', 'nDCG@10', 'Judged@10']));
    // d1 is relevant at rank 2: AP = 1/2, nDCG = (1/log2 3) / 1 = 0.6309, both docs judged.
    expect(formatTrecText(result).trimEnd().split('\n')).toEqual(expected);
  });
});
