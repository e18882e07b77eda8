import { z } from 'zod';
import { amdMethod } from './amd.js';
import { denseMethod, hybridMethod } from './dense-methods.js';
import {
  grAdMethod,
  grAqdAMethod,
  grAqdMethod,
  grQdMethod,
  grQrMethod,
} from './generate-then-retrieve.js';
import type { MethodDefinition } from './method-definition.js';
import { grillMethod } from './grill.js';
import { llmforumMethod } from './llmforum.js';
import { query2docMethod } from './query2doc.js';
import { reactMethod, simpleSearchMethod } from './search-baselines.js';
import { srsaMethod } from './srsa.js';
import { rerankMethod } from './rerank-method.js';
import { checkSearchSettings } from './search-service.js';
import {
  keySpelling,
  parseSettings,
  SettingsError,
  type SettingInfo,
  type Spell,
} from './settings.js';

/** Every method that calls models, by its `--method` name. */
export const METHOD_DEFINITIONS = {
  query2doc: query2docMethod,
  amd: amdMethod,
  dense: denseMethod,
  hybrid: hybridMethod,
  grill: grillMethod,
  'gr-qr': grQrMethod,
  'gr-ad': grAdMethod,
  'gr-qd': grQdMethod,
  'gr-aqd': grAqdMethod,
  'gr-aqd-a': grAqdAMethod,
  llmforum: llmforumMethod,
  srsa: srsaMethod,
  'simple-search': simpleSearchMethod,
  react: reactMethod,
  rerank: rerankMethod,
} satisfies Record<string, MethodDefinition>;

/** One of the methods that call models. */
export type ModelMethod = keyof typeof METHOD_DEFINITIONS;

/** The names of the methods that call models, in the order the docs list them. */
export const MODEL_METHODS = Object.keys(METHOD_DEFINITIONS) as ModelMethod[];

/** Whether `method` names a method that calls models. */
export function isModelMethod(method: string): method is ModelMethod {
  return Object.hasOwn(METHOD_DEFINITIONS, method);
}

/** The definition of a method. */
export function methodDefinition(method: ModelMethod): MethodDefinition {
  return METHOD_DEFINITIONS[method];
}

/** One setting across the methods that have it, with each method's default. */
export interface CataloguedSetting {
  key: string;
  info: SettingInfo;
  /** The setting's type without default (the API body's field). */
  base: z.ZodType;
  methods: Array<{ method: ModelMethod; default: SettingInfo['default'] }>;
}

let catalogue: CataloguedSetting[] | undefined;

/**
 * Every method setting once, in the order the methods declare them, with the methods that
 * have it and their defaults: what the CLI's flags and help, the API body's `settings` and
 * the docs' table are made from. A key that two methods declare differently (another kind,
 * flag or range) is a mistake in the definitions and throws; differing choices are united.
 */
export function settingsCatalogue(): readonly CataloguedSetting[] {
  if (catalogue) return catalogue;
  const byKey = new Map<string, CataloguedSetting>();
  for (const method of MODEL_METHODS)
    for (const [key, setting] of Object.entries(METHOD_DEFINITIONS[method].settings)) {
      let entry = byKey.get(key);
      if (!entry) {
        entry = { key, info: setting.info, base: setting.base, methods: [] };
        byKey.set(key, entry);
      } else {
        const a = entry.info;
        const b = setting.info;
        if (a.kind !== b.kind || a.flag !== b.flag || a.min !== b.min || a.max !== b.max)
          throw new Error(`setting ${key} is declared differently by ${method}`);
        // Choices may differ by method (query2doc's aggregation lacks rrf): the catalogue,
        // the API's field, takes them all; each method's schema checks its own.
        if (b.choices && String(a.choices) !== String(b.choices)) {
          const choices = [...new Set([...(a.choices ?? []), ...b.choices])] as [
            string,
            ...string[],
          ];
          entry.info = { ...a, choices, arg: choices.join('|') };
          entry.base = z.enum(choices);
        }
      }
      entry.methods.push({ method, default: setting.info.default });
    }
  catalogue = [...byKey.values()];
  return catalogue;
}

/** The methods that have setting `key`. */
export function methodsWithSetting(key: string): ModelMethod[] {
  return settingsCatalogue()
    .find((s) => s.key === key)
    ?.methods.map((m) => m.method) ?? [];
}

/**
 * A method's settings from what a request or a command line gave, defaults filled in and
 * checked (ranges, settings that go together, settings that span several): a key the
 * method does not have says which methods have it ("applies to grill only"). Errors are
 * {@link SettingsError}s naming the setting with `spell` (`--rounds`, `"settings.rounds"`).
 */
export function parseMethodSettings(
  method: ModelMethod,
  raw: Readonly<Record<string, unknown>> = {},
  options: { spell?: Spell; shown?: (key: string, value: unknown) => string } = {},
): Record<string, unknown> {
  const spell = options.spell ?? keySpelling;
  const definition = methodDefinition(method);
  const settings = parseSettings(method, definition.settings, raw, {
    spell,
    elsewhere: (key) => compactMethods(methodsWithSetting(key)),
    ...(options.shown ? { shown: options.shown } : {}),
  });
  try {
    definition.check?.(settings, spell);
    checkSearchSettings(settings, spell);
  } catch (error) {
    if (error instanceof SettingsError) throw error;
    throw new SettingsError('', (error as Error).message);
  }
  return settings;
}

/**
 * The API body's `settings`: every method setting as an optional field with its help,
 * the methods that have it and their defaults. Which of them a method takes is checked by
 * {@link parseMethodSettings}.
 */
export function methodSettingsSchema(): z.ZodObject {
  return z
    .object(
      Object.fromEntries(
        settingsCatalogue().map((s) => [
          s.key,
          s.base.optional().describe(`${s.info.help} (${settingDefaults(s)})`),
        ]),
      ),
    )
    .strict();
}

/** `grill 1`, `gr-* 1000, rerank 100`: the methods that have a setting, with their defaults. */
export function settingDefaults(s: CataloguedSetting): string {
  const groups: Array<{ methods: string[]; value: string }> = [];
  for (const m of s.methods) {
    const value = m.default === undefined ? 'no default' : String(m.default);
    const last = groups.at(-1);
    if (last && last.value === value) last.methods.push(m.method);
    else groups.push({ methods: [m.method], value });
  }
  return groups
    .map((g) => `${compactMethods(g.methods).join(', ')}${g.value === 'no default' ? '' : `: ${g.value}`}`)
    .join('; ');
}

/** Method names, the five gr-* variants written `gr-*` when all are there. */
export function compactMethods(methods: readonly string[]): string[] {
  const gr = ['gr-qr', 'gr-ad', 'gr-qd', 'gr-aqd', 'gr-aqd-a'];
  if (!gr.every((m) => methods.includes(m))) return [...methods];
  const out: string[] = [];
  for (const m of methods) {
    const name = gr.includes(m) ? 'gr-*' : m;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
