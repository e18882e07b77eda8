import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadJudgeTemplates, type JudgeTemplate, type TemplateValues } from '@assay/judge';
import { requestHash } from '@assay/llm';
import { PlatformError } from '../core/errors.js';

/** What judge templates judge (the API's list of them names these). */
export { JUDGE_KINDS } from '@assay/judge';

/** The `judges/` folder of this assay checkout (the shipped judge templates). */
export function defaultJudgesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'judges');
    if (existsSync(join(candidate, 'graded-0-3.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new PlatformError('not_found', 'cannot find the judges/ folder of this assay checkout');
    dir = parent;
  }
}

/** SHA-256 of a judge template's canonical JSON: which prompt a label set was made with. */
export function templateHash(template: JudgeTemplate): string {
  return requestHash(template as unknown as Record<string, unknown>);
}

/** A topic as judging sees it. */
export interface JudgeTopic {
  query: string;
  description?: string | undefined;
  narrative?: string | undefined;
  /** A conversational topic's context (TREC CAsT/iKAT style), as topics files and the API give it. */
  context?:
    | {
        previousTurns?: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>;
        userBackground?: readonly string[];
        referenceAnswer?: string;
      }
    | null
    | undefined;
}

/** The slots a topic fills: its text and fields, and its conversational context. */
const TOPIC_SLOTS = [
  'query',
  'description',
  'narrative',
  'background',
  'history',
  'reference_answer',
];
/** The slots a document fills. */
const DOCUMENT_SLOTS = ['passage', 'title'];

/** Where each context slot comes from, for messages. */
const SLOT_SOURCE: Record<string, string> = {
  background: 'user_background',
  history: 'previous_turns',
  reference_answer: 'reference_answer',
  description: 'description',
  narrative: 'narrative',
};

/** A document as judging sees it. */
export interface JudgeDocument {
  title?: string | undefined;
  text: string;
}

/**
 * The values a relevance template renders for one (topic, document): `query`,
 * `description`, `narrative`; from a conversational topic's context `background` (the
 * user's statements, numbered), `history` (the earlier turns, `user:` / `assistant:` a
 * line) and `reference_answer`; `passage` (the title, if any, on its own line, then the
 * text) and `title`; limited to the variables the template uses.
 */
export function judgeValues(
  template: JudgeTemplate,
  topic: JudgeTopic,
  doc: JudgeDocument,
): TemplateValues {
  const title = doc.title?.trim();
  const context = topic.context ?? {};
  const background = (context.userBackground ?? []).map((b) => b.trim()).filter(Boolean);
  const turns = (context.previousTurns ?? []).filter((t) => t.text.trim() !== '');
  const all: TemplateValues = {
    query: topic.query,
    description: topic.description,
    narrative: topic.narrative,
    background: background.map((b, i) => `${i + 1}. ${b}`).join('\n'),
    history: turns.map((t) => `${t.role}: ${t.text.trim()}`).join('\n'),
    reference_answer: context.referenceAnswer?.trim(),
    passage: title ? `${title}\n${doc.text}` : doc.text,
    title,
  };
  const known = new Set([...template.requiredVariables, ...template.optionalVariables]);
  const values: TemplateValues = {};
  for (const [name, value] of Object.entries(all))
    if (known.has(name) && value !== undefined && value !== '') values[name] = value;
  return values;
}

/** Checks that a template can write a label set from topics and documents alone. */
export function checkRelevanceTemplate(template: JudgeTemplate): void {
  if (!template.gradeField)
    throw new PlatformError(
      'invalid_input',
      template.kind === 'answer-quality' || template.kind === 'groundedness'
        ? `judge '${template.id}' scores answers, not relevance; pick a relevance judge`
        : `judge '${template.id}' is a ${template.kind} judge, not a relevance judge; pick a relevance judge`,
    );
  const available = new Set([...TOPIC_SLOTS, ...DOCUMENT_SLOTS]);
  const missing = template.requiredVariables.filter((v) => !available.has(v));
  if (missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} needs ${missing.map((v) => `{{${v}}}`).join(', ')}, which topics and documents do not provide`,
    );
}

/** How a template's slots are filled over a pool: per slot, the items and topics without a value. */
export interface SlotCoverage {
  slot: string;
  required: boolean;
  /** Items whose value for the slot is present. */
  filled: number;
  items: number;
  /** Topics (in pool order) whose items leave the slot empty. */
  emptyTopics: string[];
}

/** Each slot of a template and how the items fill it (the dry run shows it). */
export function slotCoverage(
  template: JudgeTemplate,
  items: ReadonlyArray<{ topicId: string; values: TemplateValues }>,
): SlotCoverage[] {
  const slots = [
    ...template.requiredVariables.map((slot) => ({ slot, required: true })),
    ...template.optionalVariables.map((slot) => ({ slot, required: false })),
  ];
  return slots.map(({ slot, required }) => {
    const empty: string[] = [];
    let filled = 0;
    for (const item of items)
      if (item.values[slot]) filled++;
      else if (!empty.includes(item.topicId)) empty.push(item.topicId);
    return { slot, required, filled, items: items.length, emptyTopics: empty };
  });
}

/**
 * Refuses items that leave a required slot of the template empty (a template whose
 * `{{reference_answer}}` stands outside an optional block needs every topic to carry
 * one), naming the slot, where it comes from and the topics that lack it.
 */
export function checkRequiredSlots(
  template: JudgeTemplate,
  items: ReadonlyArray<{ topicId: string; values: TemplateValues }>,
): void {
  for (const c of slotCoverage(template, items))
    if (c.required && c.emptyTopics.length > 0)
      throw new PlatformError(
        'invalid_input',
        `judge ${template.id} needs {{${c.slot}}} for every item, and ${c.emptyTopics.length} topic${c.emptyTopics.length === 1 ? '' : 's'} give${c.emptyTopics.length === 1 ? 's' : ''} none (${c.emptyTopics.slice(0, 10).join(', ')}${c.emptyTopics.length > 10 ? ', …' : ''})${SLOT_SOURCE[c.slot] ? `: give "${SLOT_SOURCE[c.slot]}" in the topics` : ''}`,
      );
}

/**
 * The judge template `id` of `dir` (default: the shipped judges/). invalid_input when the
 * folder cannot be read, not_found when it has no such judge (the message lists those it has).
 */
export function loadJudgeTemplate(id: string, dir?: string): JudgeTemplate {
  let templates: Map<string, JudgeTemplate>;
  try {
    templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(
      'invalid_input',
      `cannot read judge templates: ${(error as Error).message}`,
    );
  }
  const template = templates.get(id);
  if (!template)
    throw new PlatformError(
      'not_found',
      `no judge '${id}' (known: ${[...templates.keys()].join(', ')})`,
    );
  return template;
}

/** What a judge template is for, as listed: its id, kind, grade scale and description. */
export interface JudgeTemplateSummary {
  id: string;
  kind: JudgeTemplate['kind'];
  scale: { min: number; max: number };
  description: string;
}

/**
 * The judge templates of `dir` (default: the shipped judges/), by id. invalid_input when
 * the folder cannot be read.
 */
export function listJudgeTemplates(dir?: string): JudgeTemplateSummary[] {
  let templates: Map<string, JudgeTemplate>;
  try {
    templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(
      'invalid_input',
      `cannot read judge templates: ${(error as Error).message}`,
    );
  }
  return [...templates.values()]
    .map((t) => ({
      id: t.id,
      kind: t.kind,
      scale: { min: t.scale.min, max: t.scale.max },
      description: t.description,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
