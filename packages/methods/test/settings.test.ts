import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  METHOD_DEFINITIONS,
  methodSettingsSchema,
  methodsReference,
  methodsWithSetting,
  MODEL_METHODS,
  parseMethodSettings,
  settingsCatalogue,
  valueFromText,
} from '../src/index.js';

describe('method settings: one schema per method', () => {
  it('every method parses no settings into its defaults', () => {
    expect(parseMethodSettings('grill', {})).toMatchObject({
      rounds: 1,
      minGain: 0,
      rerankBudget: 500,
      decompose: false,
      candidates: 20,
      qbdQuery: 'document',
      qbdTerms: 10,
      qbdNeighbours: 10,
      gapDocuments: 10,
      maxGaps: 3,
      queriesPerGap: 3,
      rrfK: 60,
    });
    expect(parseMethodSettings('llmforum', {})).toMatchObject({
      fbDepth: 50,
      positives: 5,
      alpha: 1,
      beta: 1,
      gamma: 1,
      maxRegenerations: 5,
      controlThreshold: 0.5,
      reformulation: true,
    });
    expect(parseMethodSettings('amd', {})).toEqual({
      aggregation: 'sparse',
      feedback: true,
      queryWeight: 0.7,
      rrfK: 60,
    });
    for (const method of MODEL_METHODS)
      if (method !== 'rerank' && method !== 'gr-aqd-a')
        expect(() => parseMethodSettings(method, {})).not.toThrow();
  });

  it('names the methods a setting applies to, and the setting a value is wrong for', () => {
    const spell = (key: string) => `--${key}`;
    expect(() => parseMethodSettings('amd', { rounds: 3 }, { spell })).toThrow(
      '--rounds applies to grill only, not amd',
    );
    expect(() => parseMethodSettings('dense', { rerankDepth: 3 }, { spell })).toThrow(
      '--rerankDepth applies to gr-* and rerank only, not dense',
    );
    expect(() => parseMethodSettings('grill', { rounds: 0 }, { spell })).toThrow(
      '--rounds needs a whole number from 1 to 50, not 0',
    );
    expect(() => parseMethodSettings('query2doc', { aggregation: 'rrf' }, { spell })).toThrow(
      '--aggregation needs one of sparse, dense, not "rrf"',
    );
    expect(() => parseMethodSettings('amd', { queryWeight: 0.5 }, { spell })).toThrow(
      '--queryWeight applies to --aggregation dense',
    );
    expect(() =>
      parseMethodSettings('rerank', { reranker: 'rankgpt', rankgptStep: 30 }, { spell }),
    ).toThrow('--rankgptStep (30) must not exceed --rankgptWindow (20)');
    expect(() => parseMethodSettings('rerank', {}, { spell })).toThrow(
      'rerank needs --reranker (cross-encoder or rankgpt)',
    );
    expect(() => parseMethodSettings('srsa', { today: '2026-02-30' }, { spell })).toThrow(
      '--today needs a date YYYY-MM-DD, not "2026-02-30"',
    );
  });

  it('reads command-line text as the setting kind', () => {
    const info = (key: string) => settingsCatalogue().find((s) => s.key === key)!.info;
    expect(valueFromText(info('rounds'), '3')).toBe(3);
    expect(valueFromText(info('rounds'), '1.5')).toBe('1.5');
    expect(valueFromText(info('controlThreshold'), '0.25')).toBe(0.25);
    expect(valueFromText(info('decompose'), '')).toBe(true);
    expect(valueFromText(info('feedback'), '')).toBe(false);
    expect(info('feedback').flag).toBe('no-feedback');
  });

  it('one catalogue entry per setting, with every method that has it', () => {
    const keys = settingsCatalogue().map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(methodsWithSetting('rerankDepth')).toEqual([
      'gr-qr',
      'gr-ad',
      'gr-qd',
      'gr-aqd',
      'gr-aqd-a',
      'rerank',
    ]);
    const aggregation = settingsCatalogue().find((s) => s.key === 'aggregation')!;
    expect(aggregation.info.choices).toEqual(['sparse', 'dense', 'rrf']);
    expect(aggregation.methods).toEqual([
      { method: 'query2doc', default: 'sparse' },
      { method: 'amd', default: 'sparse' },
    ]);
    for (const method of MODEL_METHODS)
      for (const key of Object.keys(METHOD_DEFINITIONS[method].settings))
        expect(methodsWithSetting(key)).toContain(method);
  });

  it("the API's settings take every method's keys and nothing else", () => {
    const schema = methodSettingsSchema();
    expect(schema.safeParse({ rounds: 3, aggregation: 'rrf', reranker: 'rankgpt' }).success).toBe(
      true,
    );
    expect(schema.safeParse({ rounds: 0 }).success).toBe(false);
    expect(schema.safeParse({ budgetUsd: 1 }).success).toBe(false);
    expect(Object.keys(schema.shape).sort()).toEqual(
      settingsCatalogue()
        .map((s) => s.key)
        .sort(),
    );
  });
});

const DOCS = fileURLToPath(new URL('../../../docs/methods.md', import.meta.url));
const START = '<!-- methods tables: made from the method definitions (packages/methods) -->';
const END = '<!-- end of the methods tables -->';

/** Table rows as trimmed cells (Prettier pads cells and separator rows; the words stay). */
function cells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/^-+$/, '---')),
    );
}

describe('docs/methods.md', () => {
  it('holds the methods and settings tables made from the definitions', () => {
    const text = readFileSync(DOCS, 'utf8');
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, `docs/methods.md lacks ${START}`).toBeGreaterThan(-1);
    expect(to).toBeGreaterThan(from);
    const generated = methodsReference();
    if (process.env.UPDATE_DOCS === '1') {
      // UPDATE_DOCS=1 npx vitest run packages/methods/test/settings.test.ts, then Prettier.
      writeFileSync(DOCS, `${text.slice(0, from + START.length)}\n\n${generated}\n${text.slice(to)}`);
      return;
    }
    expect(cells(text.slice(from, to))).toEqual(cells(generated));
  });
});
