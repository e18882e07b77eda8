import { z } from 'zod';

/**
 * What one setting of a method is, besides its zod schema: how the command line spells it,
 * its help line, its default and what the paper used. The CLI flags and help, the API
 * body, the errors and the docs' methods table are all made from these.
 */
export interface SettingInfo {
  /**
   * `integer` and `number` take a value; `choice` one of `choices`; `date` YYYY-MM-DD;
   * `switch` is true when given, `off-switch` (a `no-…` flag) false when given; `text` a
   * line of text (a URL, a file or run, an index or field name), checked as `expects` says.
   */
  kind: 'integer' | 'number' | 'choice' | 'date' | 'switch' | 'off-switch' | 'text';
  /** The command-line flag without its dashes. */
  flag: string;
  /** The value's name in the help (`N`, `X`, `MODE`, `DATE`); switches take none. */
  arg?: string;
  /** What it does, in one line. */
  help: string;
  /** The default, when there is one. */
  default?: string | number | boolean;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** The setting counts only when `key` is set (to `value`, when named). */
  onlyWith?: { key: string; value?: string };
  /** What the paper used, when it says and it is not the default (for the docs). */
  paper?: string;
  /** What a `text` value must be, for messages (`an http(s) URL`). */
  expects?: string;
}

/** One setting: its schema (defaults filled in when parsed), its type alone, and what it is. */
export interface Setting<T = unknown> {
  schema: z.ZodType<T>;
  /** The value's type without default or optionality (the API body's field). */
  base: z.ZodType;
  info: SettingInfo;
}

/** A method's settings by key (the API's name; the flag is the key in kebab-case). */
export type SettingsShape = Record<string, Setting>;

/** The parsed settings of a shape, defaults filled in. */
export type SettingsOf<S extends SettingsShape> = {
  [K in keyof S]: S[K] extends Setting<infer T> ? T : never;
};

/** How a surface names a setting or a field in its messages (`--rounds`, `"settings.rounds"`). */
export type Spell = (key: string) => string;

/** The key in kebab-case: `rerankDepth` → `rerank-depth`. */
export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The setting's own name as the run header and the docs' default spelling use it. */
export const keySpelling: Spell = (key) => key;

interface Common {
  /** The flag, when not the key in kebab-case. */
  flag?: string;
  paper?: string;
  onlyWith?: SettingInfo['onlyWith'];
}

function info(kind: SettingInfo['kind'], help: string, extra: Partial<SettingInfo>): SettingInfo {
  const out: SettingInfo = { kind, flag: '', help };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) Object.assign(out, { [k]: v });
  return out;
}

/** A whole number from `min` (default 1) to `max`, with its default if it has one. */
export function integer(
  help: string,
  o: Common & { default: number; min?: number; max: number; arg?: string },
): Setting<number> {
  const min = o.min ?? 1;
  const base = z.number().int().min(min).max(o.max);
  return {
    schema: base.default(o.default),
    base,
    info: info('integer', help, { ...o, min, arg: o.arg ?? 'N' }),
  };
}

/** A number from `min` to `max`. */
export function number(
  help: string,
  o: Common & { default: number; min: number; max: number; arg?: string },
): Setting<number> {
  const base = z.number().min(o.min).max(o.max);
  return {
    schema: base.default(o.default),
    base,
    info: info('number', help, { ...o, arg: o.arg ?? 'X' }),
  };
}

/** One of `choices`, with a default. */
export function choice<const C extends readonly [string, ...string[]]>(
  choices: C,
  help: string,
  o: Common & { default: C[number]; arg?: string },
): Setting<C[number]>;
/** One of `choices`, or absent. */
export function choice<const C extends readonly [string, ...string[]]>(
  choices: C,
  help: string,
  o?: Common & { arg?: string },
): Setting<C[number] | undefined>;
export function choice<const C extends readonly [string, ...string[]]>(
  choices: C,
  help: string,
  o: Common & { default?: C[number]; arg?: string } = {},
): Setting<C[number] | undefined> {
  const base = z.enum(choices);
  return {
    schema: (o.default === undefined ? base.optional() : base.default(o.default)) as z.ZodType<
      C[number] | undefined
    >,
    base,
    info: info('choice', help, { ...o, choices, arg: o.arg ?? choices.join('|') }),
  };
}

/** Off unless given (`--decompose`). */
export function onSwitch(help: string, o: Common = {}): Setting<boolean> {
  return {
    schema: z.boolean().default(false),
    base: z.boolean(),
    info: info('switch', help, { ...o, default: false }),
  };
}

/** On unless turned off with its `no-…` flag (`--no-feedback`). */
export function offSwitch(help: string, o: Common & { flag: string }): Setting<boolean> {
  return {
    schema: z.boolean().default(true),
    base: z.boolean(),
    info: info('off-switch', help, { ...o, default: true }),
  };
}

/** A real calendar date written YYYY-MM-DD; absent, today's date by the clock (UTC). */
export function date(help: string, o: Common = {}): Setting<string> {
  const base = z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d));
  return {
    schema: base.default(() => new Date().toISOString().slice(0, 10)),
    base,
    info: info('date', help, { ...o, arg: 'DATE' }),
  };
}

/**
 * A line of text (at most 2,000 characters, no control characters), absent unless given;
 * `check` says what else it must be (`expects` in messages).
 */
export function text(
  help: string,
  o: Common & { arg: string; expects?: string; check?: (value: string) => boolean },
): Setting<string | undefined> {
  let base = z
    .string()
    .min(1)
    .max(2000)
    .refine((v) => v.trim() !== '' && ![...v].some((ch) => ch.charCodeAt(0) < 0x20));
  if (o.check) base = base.refine(o.check);
  const { check: _check, ...rest } = o;
  return {
    schema: base.optional(),
    base,
    info: info('text', help, { ...rest, expects: o.expects ?? 'a line of text' }),
  };
}

/** The shape with each setting's flag filled in (the key in kebab-case unless named). */
export function settings<S extends SettingsShape>(shape: S): S {
  return Object.fromEntries(
    Object.entries(shape).map(([key, s]) => [
      key,
      { ...s, info: { ...s.info, flag: s.info.flag || kebab(key) } },
    ]),
  ) as S;
}

/** What a value of the setting must be, for messages: `a whole number from 1 to 50`. */
export function expects(s: SettingInfo): string {
  switch (s.kind) {
    case 'integer':
      return `a whole number from ${s.min} to ${s.max}`;
    case 'number':
      return `a number from ${s.min} to ${s.max}`;
    case 'choice':
      return `one of ${s.choices!.join(', ')}`;
    case 'date':
      return 'a date YYYY-MM-DD';
    case 'switch':
    case 'off-switch':
      return 'true or false';
    case 'text':
      return s.expects ?? 'a line of text';
  }
}

/** The help of the aggregation setting query2doc and amd share (the steps say the rest). */
export const AGGREGATION_HELP =
  'how the expansion is searched: sparse (BM25 of the expanded query), dense (embeddings; needs --embedding-model) or, for amd, rrf (BM25 per refined answer, fused by RRF)';

/** A setting's problem, naming it as the surface spells it. */
export class SettingsError extends Error {
  constructor(
    /** The setting (or field) at fault. */
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * A command-line value as the setting's type: a number for `integer` and `number` settings
 * (text that is no number is left as it is, for the schema to refuse), true for a switch,
 * false for an off-switch, the text otherwise.
 */
export function valueFromText(s: SettingInfo, text: string): unknown {
  switch (s.kind) {
    case 'integer':
      return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
    case 'number':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'switch':
      return true;
    case 'off-switch':
      return false;
    default:
      return text;
  }
}

/**
 * Parses raw settings against a method's shape, defaults filled in. A key the method does
 * not have, a value out of range, or a setting given without the one it goes with throws a
 * {@link SettingsError} naming it with `spell`; `elsewhere(key)` lists the methods that do
 * have a key (for "applies to … only"), `shown(key)` how the value was given.
 */
export function parseSettings<S extends SettingsShape>(
  method: string,
  shape: S,
  raw: Readonly<Record<string, unknown>>,
  options: {
    spell?: Spell;
    elsewhere?: (key: string) => readonly string[];
    shown?: (key: string, value: unknown) => string;
  } = {},
): SettingsOf<S> {
  const spell = options.spell ?? keySpelling;
  const shown = options.shown ?? ((_key, value) => JSON.stringify(value));
  for (const key of Object.keys(raw)) {
    if (raw[key] === undefined || Object.hasOwn(shape, key)) continue;
    const others = options.elsewhere?.(key) ?? [];
    throw new SettingsError(
      key,
      others.length
        ? `${spell(key)} applies to ${listOf(others)} only, not ${method}`
        : `${method} has no setting ${spell(key)}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(shape)) {
    const value = raw[key];
    const needs = setting.info.onlyWith;
    if (value !== undefined && needs) {
      const other = raw[needs.key];
      if (other === undefined || (needs.value !== undefined && other !== needs.value))
        throw new SettingsError(
          key,
          needs.value === undefined
            ? `${spell(key)} needs ${spell(needs.key)}`
            : `${spell(key)} applies to ${spell(needs.key)} ${needs.value}`,
        );
    }
    const parsed = setting.schema.safeParse(value);
    if (!parsed.success)
      throw new SettingsError(
        key,
        `${spell(key)} needs ${expects(setting.info)}, not ${shown(key, value)}`,
      );
    out[key] = parsed.data;
  }
  return out as SettingsOf<S>;
}

/** `a`, `a and b`, `a, b and c`. */
export function listOf(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A shape's defaults: what parsing no settings at all gives. */
export function defaultsOf<S extends SettingsShape>(shape: S): SettingsOf<S> {
  return parseSettings('', shape, {});
}
