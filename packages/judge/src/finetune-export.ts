import { renderPrompt } from '@assay/llm';
import { seededPermutation } from '@assay/stats';
import type { JudgeTemplate, TemplateValues } from './template.js';

/** One judged (topic, document) pair with the values its prompt is rendered from. */
export interface FinetunePair {
  topic: string;
  docno: string;
  grade: number;
  values: TemplateValues;
}

/** Which pairs become examples, and where the binary cut is. */
export interface FinetuneOptions {
  /** Grades at or above this are relevant. */
  binaryAt: number;
  /** Keep this many pairs, drawn at random with `seed` (default: all). */
  sample?: number;
  /** Seed of the draw (default 0). */
  seed?: number;
  /** Keep as many not-relevant pairs as relevant ones (the larger side drawn at random). */
  balance?: boolean;
}

/** One chat fine-tuning example: the judge's system and user prompts and its answer. */
export interface FinetuneExample {
  messages: [
    { role: 'system'; content: string },
    { role: 'user'; content: string },
    { role: 'assistant'; content: string },
  ];
}

/**
 * Checks that a judge can be taught yes/no answers: a relevance template with two grades
 * whose answer needs its grade field only. Throws with the reason.
 */
export function checkBinaryTemplate(template: JudgeTemplate): void {
  const field = template.gradeField;
  if (!field) throw new Error(`judge ${template.id} scores answers, not relevance`);
  if (template.scale.max - template.scale.min !== 1)
    throw new Error(
      `judge ${template.id} grades ${template.scale.min}..${template.scale.max}; fine-tuning examples need a yes/no judge (two grades)`,
    );
  const required = (template.schema.required as string[] | undefined) ?? [field];
  const others = required.filter((name) => name !== field);
  if (others.length > 0)
    throw new Error(
      `judge ${template.id} answers ${others.join(', ')} besides ${field}; fine-tuning examples hold the grade only`,
    );
}

/**
 * The example of one pair: the template rendered for it, and the answer the template asks
 * for, `{"<grade field>": max}` when relevant and `{"<grade field>": min}` when not.
 */
export function finetuneExample(
  template: JudgeTemplate,
  values: TemplateValues,
  relevant: boolean,
): FinetuneExample {
  const rendered = renderPrompt(template, values);
  const grade = relevant ? template.scale.max : template.scale.min;
  return {
    messages: [
      { role: 'system', content: rendered.system },
      { role: 'user', content: rendered.user },
      { role: 'assistant', content: JSON.stringify({ [template.gradeField!]: grade }) },
    ],
  };
}

/**
 * The pairs kept, in their given order: with `balance`, every pair of the smaller class
 * and as many of the larger drawn at random; then, with `sample`, that many drawn at random.
 * The draws are seeded, so the same options give the same file.
 */
export function selectFinetunePairs(
  pairs: readonly FinetunePair[],
  options: FinetuneOptions,
): FinetunePair[] {
  const seed = options.seed ?? 0;
  let kept = pairs.map((_, i) => i);
  if (options.balance) {
    const relevant = kept.filter((i) => pairs[i]!.grade >= options.binaryAt);
    const not = kept.filter((i) => pairs[i]!.grade < options.binaryAt);
    const [small, large] = relevant.length <= not.length ? [relevant, not] : [not, relevant];
    const drawn = seededPermutation(large.length, seed)
      .slice(0, small.length)
      .map((p) => large[p]!);
    kept = [...small, ...drawn].sort((a, b) => a - b);
  }
  if (options.sample !== undefined && options.sample < kept.length) {
    const from = kept;
    kept = seededPermutation(from.length, seed + 1)
      .slice(0, options.sample)
      .map((p) => from[p]!)
      .sort((a, b) => a - b);
  }
  return kept.map((i) => pairs[i]!);
}

/** The chat fine-tuning JSONL (`{"messages": [...]}` a line) of the pairs selected. */
export function formatFinetuneJsonl(
  template: JudgeTemplate,
  pairs: readonly FinetunePair[],
  options: FinetuneOptions,
): string {
  checkBinaryTemplate(template);
  return selectFinetunePairs(pairs, options)
    .map(
      (p) =>
        `${JSON.stringify(finetuneExample(template, p.values, p.grade >= options.binaryAt))}\n`,
    )
    .join('');
}
