import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderPrompt } from '@assay/llm';
import { loadJudgeTemplates, parseJudgeOutput, parseTemplate } from '../src/index.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const templates = loadJudgeTemplates(JUDGES);

describe('the shipped judge templates', () => {
  it('are the documented judges, each citing its source', () => {
    expect([...templates.keys()].sort()).toEqual([
      'answer-quality',
      'binary-filter',
      'citation-support',
      'graded-0-3',
      'graded-0-4',
      'nugget-assign',
      'nugget-create',
      'nugget-importance',
      'rag-groundedness',
      'rubric-judge',
    ]);
    for (const t of templates.values()) expect(t.source.length).toBeGreaterThan(40);
    expect(templates.get('graded-0-4')).toMatchObject({
      scale: { min: 0, max: 4 },
      relevantAt: 2,
      gradeField: 'grade',
    });
    expect(templates.get('graded-0-3')).toMatchObject({ scale: { min: 0, max: 3 }, relevantAt: 2 });
    expect(templates.get('answer-quality')!.criteria).toEqual([
      'informativeness',
      'completeness',
      'novelty',
      'actionability',
    ]);
  });

  it('render every variable and leave no placeholder behind (snapshots reviewed by hand)', () => {
    const values: Record<string, Record<string, string>> = {
      'graded-0-3': {
        query: 'tortoise lifespan',
        description: 'How long tortoises live',
        passage: 'Tortoises live 80-150 years.',
      },
      'graded-0-4': {
        query: 'which bike suits me',
        background: 'I cycle 10 km to work.',
        history: 'user: I want a new bike.',
        reference_answer: 'An e-bike with a 50 km range.',
        passage: 'E-bikes suit 10-20 km commutes.',
      },
      'binary-filter': { query: 'tortoise lifespan', passage: 'Tortoises live 80-150 years.' },
      'answer-quality': { query: 'tortoise lifespan', answer: 'About a century.' },
      'rag-groundedness': {
        query: 'tortoise lifespan',
        context: '[1] Tortoises live 80-150 years.',
        answer: 'About a century [1].',
      },
      'nugget-create': {
        query: 'tortoise lifespan',
        passages: '[1] Tortoises live 80-150 years.\n[2] Giant tortoises live longest.',
        nuggets: '[1] tortoises live 80-150 years',
        max_nuggets: '30',
      },
      'nugget-importance': { query: 'tortoise lifespan', nuggets: '[1] tortoises live long' },
      'nugget-assign': {
        query: 'tortoise lifespan',
        answer: 'About a century.',
        nuggets: '[1] tortoises live long\n[2] giant tortoises live longest',
      },
      'citation-support': {
        query: 'tortoise lifespan',
        sentence: 'Tortoises live about a century.',
        passages: '[1] Tortoises live 80-150 years.',
      },
      'rubric-judge': {
        query: 'tortoise lifespan',
        answer: 'About a century.',
        criteria: '[1] The response gives a range of years.\n[2] The response is rude.',
      },
    };
    for (const [id, v] of Object.entries(values)) {
      const rendered = renderPrompt(templates.get(id)!, v);
      expect(rendered.user).not.toMatch(/\{\{|\}\}/);
      for (const value of Object.values(v)) expect(rendered.user).toContain(value);
      expect(rendered).toMatchSnapshot(id);
    }
  });

  it("leave out the nugget list of nugget creation's first batch", () => {
    const first = renderPrompt(templates.get('nugget-create')!, {
      query: 'q',
      passages: '[1] p',
      max_nuggets: '30',
    });
    expect(first.user).toContain('You see the next passages.');
    expect(first.user).not.toContain('The nuggets so far');
  });

  it('drop optional blocks without a value, and refuse missing or unknown variables', () => {
    const t = templates.get('graded-0-4')!;
    const bare = renderPrompt(t, { query: 'q', passage: 'p' });
    expect(bare.user).not.toContain('What we know about the user');
    expect(bare.user).not.toContain('A good answer');
    expect(() => renderPrompt(t, { query: 'q' })).toThrow(/no value for \{\{passage\}\}/);
    expect(() => renderPrompt(t, { query: 'q', passage: 'p', pasage: 'x' })).toThrow(
      /no variable \{\{pasage\}\}/,
    );
  });

  it('insert passage text verbatim, even when it looks like a placeholder', () => {
    const r = renderPrompt(templates.get('binary-filter')!, {
      query: 'q',
      passage: 'see {{query}} and {{#x}}',
    });
    expect(r.user).toContain('see {{query}} and {{#x}}');
  });

  it('report template mistakes with the file name', () => {
    expect(() => parseTemplate('no front matter', 'j.md')).toThrow(
      'j.md: expected YAML front matter',
    );
    const bad =
      '---\nid: x\nkind: relevance\ndescription: d\nscale: {min: 3, max: 1}\noutput: {grade_field: g, schema: {}}\nsource: s\nsystem: s\n---\n{{#a}}\n';
    expect(() => parseTemplate(bad, 'j.md')).toThrow(/j\.md: /);
  });

  it('refuse a scale beyond the grades a label set stores', () => {
    const withScale = (scale: string) =>
      `---\nid: x\nkind: relevance\ndescription: d\nscale: ${scale}\noutput: {grade_field: g, schema: {}}\nsource: s\nsystem: s\n---\n{{query}}\n`;
    expect(() => parseTemplate(withScale('{min: 0, max: 2000000000}'), 'j.md')).toThrow(
      'j.md: front matter field scale 0..2000000000 is outside -1000..1000, the grades assay stores',
    );
    expect(() => parseTemplate(withScale('{min: -1001, max: 0}'), 'j.md')).toThrow(/-1001\.\.0/);
    expect(parseTemplate(withScale('{min: -1000, max: 1000}'), 'j.md').scale).toEqual({
      min: -1000,
      max: 1000,
    });
  });
});

describe('reading judge answers', () => {
  const t = templates.get('graded-0-3')!;

  it('reads JSON, fenced JSON and JSON inside prose', () => {
    expect(parseJudgeOutput('{"intent_match":1,"trustworthiness":2,"grade":2}', t)).toMatchObject({
      ok: true,
      judgment: { grade: 2, via: 'json' },
    });
    expect(
      parseJudgeOutput('Sure:\n```json\n{"intent_match":0,"trustworthiness":0,"grade":0}\n```', t),
    ).toMatchObject({
      ok: true,
      judgment: { grade: 0 },
    });
    expect(
      parseJudgeOutput(
        'My answer is {"intent_match":2,"trustworthiness":1,"grade":3} as requested.',
        t,
      ),
    ).toMatchObject({
      ok: true,
      judgment: { grade: 3 },
    });
  });

  it('rejects answers that break the schema', () => {
    expect(parseJudgeOutput('{"intent_match":1,"trustworthiness":2,"grade":7}', t)).toEqual({
      ok: false,
      reason: 'the answer does not match the schema: $.grade must be <= 3',
    });
    expect(parseJudgeOutput('{"grade":2}', t)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/intent_match is missing/),
    });
  });

  it('reads an explicitly labelled grade from text, and nothing vaguer', () => {
    expect(parseJudgeOutput('Reasoning ... ##final score: 2', t)).toMatchObject({
      ok: true,
      judgment: { grade: 2, via: 'text' },
    });
    expect(parseJudgeOutput('Grade = 1', t)).toMatchObject({ ok: true, judgment: { grade: 1 } });
    expect(parseJudgeOutput('I would give it 3 out of 3.', t).ok).toBe(false);
    expect(parseJudgeOutput('grade: 2 ... actually grade: 3', t).ok).toBe(false);
    expect(parseJudgeOutput('grade: 9', t).ok).toBe(false);
    expect(parseJudgeOutput('', t).ok).toBe(false);
  });

  it('reads criteria scores of answer-quality judges', () => {
    const aq = templates.get('answer-quality')!;
    const r = parseJudgeOutput(
      '{"informativeness":4,"completeness":3,"novelty":1,"actionability":5,"justification":"ok"}',
      aq,
    );
    expect(r).toMatchObject({
      ok: true,
      judgment: { scores: { informativeness: 4, completeness: 3, novelty: 1, actionability: 5 } },
    });
  });
});
