import { parseArgs } from 'node:util';

/**
 * Command-line parsing for every assay command, on Node's `util.parseArgs`: short options
 * may be grouped (`-qc`) and take their value attached (`-mP.5`, `-l2`) or as the next
 * argument (`-m P.5`), as trec_eval users type them; long options take `--name value` or
 * `--name=value`; options repeat; `--` ends the options and `-` is a positional.
 *
 * Each command declares its options once, each with a kind: what its value must be
 * (an integer within bounds, a number, one of some words, a grade scale, a file, a list, or
 * no value at all). Parsing checks every value against its kind, so every command refuses a
 * bad value with the same sentence (`--alpha must be a number between 0 and 1, got "x"`),
 * and the help lists the options from the same declarations.
 */

/** What an option's value must be. */
export type OptionKind =
  | { type: 'flag' }
  | { type: 'text' }
  | { type: 'file' }
  | { type: 'integer'; min?: number; max?: number }
  | { type: 'number'; min?: number; max?: number; above?: number; below?: number }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'scale' }
  | { type: 'list' };

/** An option without a value (`--replace`). */
export const FLAG: OptionKind = { type: 'flag' };
/** Any text (a name, a URL, a measure). */
export const TEXT: OptionKind = { type: 'text' };
/** A file path (`-` for standard input where a command reads one). */
export const FILE: OptionKind = { type: 'file' };
/** A grade scale `MIN..MAX`, also written `MIN-MAX` or `MIN:MAX` (integers, MIN <= MAX). */
export const SCALE: OptionKind = { type: 'scale' };
/** A comma-separated list; the option may also repeat (`--x a,b --x c` is a, b, c). */
export const LIST: OptionKind = { type: 'list' };

/** A whole number, optionally within `min`..`max` (both included). */
export function integer(bounds: { min?: number; max?: number } = {}): OptionKind {
  return { type: 'integer', ...bounds };
}

/** A finite number within `min`..`max` (included), or `above`/`below` (excluded). */
export function number(
  bounds: { min?: number; max?: number; above?: number; below?: number } = {},
): OptionKind {
  return { type: 'number', ...bounds };
}

/** One of `values`. */
export function oneOf(...values: string[]): OptionKind {
  return { type: 'enum', values };
}

/** Declares one option: its short letter and/or long name, and what its value must be. */
export interface OptionSpec {
  short?: string;
  long?: string;
  /** Key under which the option is collected. */
  key: string;
  kind: OptionKind;
  /** The value's name in the help (default from the kind: `N`, `X`, `FILE`, `a|b`). */
  arg?: string;
  /** What the option does, for the help; an option without it is left out of the list. */
  help?: string;
  /**
   * Every value counts (`--exclude a --exclude b`). A file option without it takes one file:
   * naming two different files is refused rather than one of them silently dropped.
   */
  repeats?: boolean;
}

/** A grade scale: the lowest and highest grade. */
export interface Scale {
  min: number;
  max: number;
}

/** Options collected by key (repeatable, as given), plus the positional arguments. */
export class ParsedArgs {
  constructor(
    readonly options: Map<string, string[]>,
    readonly positionals: string[],
  ) {}

  /** Whether the option was given. */
  has(key: string): boolean {
    return this.options.has(key);
  }

  /** The last value given (a later option overrides an earlier one), or undefined. */
  option(key: string): string | undefined {
    return this.options.get(key)?.at(-1);
  }

  /** The last value of an integer or number option, checked when parsed. */
  number(key: string): number | undefined {
    const text = this.option(key);
    return text === undefined ? undefined : Number(text);
  }

  /** The last value of a scale option. */
  scale(key: string): Scale | undefined {
    const text = this.option(key);
    return text === undefined ? undefined : scaleOf(text)!;
  }

  /** Every value given, in order; a list option's values split at commas (empty items dropped). */
  all(key: string, split = false): string[] {
    const values = this.options.get(key) ?? [];
    return split ? values.flatMap((v) => v.split(',')).filter((v) => v !== '') : values;
  }
}

/** A command line that does not fit the declared options. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Whether an option of this kind takes a value. */
function takesValue(kind: OptionKind): boolean {
  return kind.type !== 'flag';
}

/**
 * Parses argv against the option specs and checks each value against its option's kind.
 * A value is taken as given, even one that starts with a dash (`--budget -1` is a value,
 * then checked); a flag collects `''`.
 */
export function getopt(argv: readonly string[], specs: readonly OptionSpec[]): ParsedArgs {
  const byName = new Map<string, OptionSpec>();
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple: true }> = {};
  for (const spec of specs) {
    // parseArgs names every option by a long name; a short-only option gets a name that
    // no command line can spell, so `--q` stays unknown.
    const name = spec.long ?? `\0${spec.key}`;
    byName.set(name, spec);
    config[name] = {
      type: takesValue(spec.kind) ? 'string' : 'boolean',
      multiple: true,
      ...(spec.short ? { short: spec.short } : {}),
    };
  }
  const { tokens } = parseArgs({
    args: [...argv],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = byName.get(token.name);
    const long = token.rawName.startsWith('--');
    if (!spec || (long && spec.long === undefined))
      throw new UsageError(`unknown option ${token.rawName}`);
    let value = '';
    if (takesValue(spec.kind)) {
      if (token.value === undefined) throw new UsageError(`option ${token.rawName} needs a value`);
      value = token.value;
      checkValue(spec, value);
    } else if (token.inlineValue) throw new UsageError(`option ${token.rawName} takes no value`);
    const list = options.get(spec.key);
    if (list) list.push(value);
    else options.set(spec.key, [value]);
  }
  for (const spec of specs) refuseSecondFile(spec, options.get(spec.key));
  return new ParsedArgs(options, positionals);
}

/** A one-file option given two different files: which one was meant is not ours to guess. */
function refuseSecondFile(spec: OptionSpec, values: string[] | undefined): void {
  if (spec.kind.type !== 'file' || spec.repeats || !values) return;
  const files = [...new Set(values)];
  if (files.length > 1)
    throw new UsageError(
      `${flagName(spec)} takes one file, got ${files.length}: ${files.map((f) => JSON.stringify(f)).join(', ')}`,
    );
}

/** How messages name an option: its long form if it has one, else its short form. */
export function flagName(spec: Pick<OptionSpec, 'short' | 'long'>): string {
  return spec.long !== undefined ? `--${spec.long}` : `-${spec.short}`;
}

/** Throws the one usage error for a value its option's kind refuses. */
function checkValue(spec: OptionSpec, value: string): void {
  const expected = refusal(spec.kind, value);
  if (expected !== undefined) throw new UsageError(mustBe(flagName(spec), expected, value));
}

/** The sentence every command says of a bad value: `--alpha must be a number between 0 and 1, got "x"`. */
export function mustBe(flag: string, expected: string, value: string): string {
  return `${flag} must be ${expected}, got ${JSON.stringify(value)}`;
}

/**
 * Checks a value against a kind outside the command line (an environment variable, a
 * `NAME=VALUE` part): the value as a number, or the usage error naming `flag`.
 */
export function checkNumber(flag: string, kind: OptionKind, value: string): number {
  const expected = refusal(kind, value);
  if (expected !== undefined) throw new UsageError(mustBe(flag, expected, value));
  return Number(value);
}

/** What the kind expects, when `value` is not of it; undefined when it is. */
function refusal(kind: OptionKind, value: string): string | undefined {
  switch (kind.type) {
    case 'integer': {
      const ok =
        /^\s*[+-]?\d+\s*$/.test(value) &&
        Number.isSafeInteger(Number(value)) &&
        (kind.min === undefined || Number(value) >= kind.min) &&
        (kind.max === undefined || Number(value) <= kind.max);
      return ok ? undefined : `an integer${bounds(kind)}`;
    }
    case 'number': {
      const n = Number(value);
      const ok =
        value.trim() !== '' &&
        Number.isFinite(n) &&
        (kind.min === undefined || n >= kind.min) &&
        (kind.max === undefined || n <= kind.max) &&
        (kind.above === undefined || n > kind.above) &&
        (kind.below === undefined || n < kind.below);
      return ok ? undefined : `a number${bounds(kind)}`;
    }
    case 'enum':
      return kind.values.includes(value) ? undefined : `one of ${kind.values.join(', ')}`;
    case 'scale':
      return scaleOf(value)
        ? undefined
        : 'a grade scale MIN..MAX (or MIN-MAX, MIN:MAX) of integers with MIN <= MAX';
    case 'file':
    case 'text':
      return value === '' ? 'not empty' : undefined;
    default:
      return undefined;
  }
}

/** ` between 0 and 1`, ` strictly between 0 and 1`, ` >= 1`, ` > 0 and <= 2`, or nothing. */
function bounds(kind: { min?: number; max?: number; above?: number; below?: number }): string {
  const { min, max, above, below } = kind;
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  if (above !== undefined && below !== undefined) return ` strictly between ${above} and ${below}`;
  const parts: string[] = [];
  if (min !== undefined) parts.push(`>= ${min}`);
  if (above !== undefined) parts.push(`> ${above}`);
  if (max !== undefined) parts.push(`<= ${max}`);
  if (below !== undefined) parts.push(`< ${below}`);
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}

/**
 * A grade scale as assay writes it everywhere: `MIN..MAX`, `MIN-MAX` or `MIN:MAX`, integers
 * (negative ones too: `-1..3`, `-1-3`, `-1:3`), MIN <= MAX; undefined when it is not one.
 */
export function scaleOf(text: string): Scale | undefined {
  const m = /^\s*(-?\d+)\s*(?:\.\.|-|:)\s*(-?\d+)\s*$/.exec(text);
  if (!m) return undefined;
  const min = Number(m[1]);
  const max = Number(m[2]);
  return Number.isSafeInteger(min) && Number.isSafeInteger(max) && min <= max
    ? { min, max }
    : undefined;
}

/** The value's name in the help: the declared one, else one from the kind. */
function argName(spec: OptionSpec): string {
  if (spec.arg !== undefined) return spec.arg;
  switch (spec.kind.type) {
    case 'integer':
      return 'N';
    case 'number':
      return 'X';
    case 'enum':
      return spec.kind.values.join('|');
    case 'scale':
      return 'MIN..MAX';
    case 'file':
      return 'FILE';
    case 'list':
      return 'A,B,...';
    default:
      return 'VALUE';
  }
}

/**
 * The option list of a command's help, from its declarations: one entry per option with
 * `help`, its short form if it has one (else its long form) and its value's name, then
 * the help aligned in one column (continuation lines indented to it).
 */
export function optionsHelp(specs: readonly OptionSpec[]): string {
  const shown = specs.filter((s) => s.help !== undefined);
  const names = shown.map((s) => {
    const flag = s.short ? `-${s.short}` : `--${s.long}`;
    return takesValue(s.kind) ? `${flag} ${argName(s)}` : flag;
  });
  const width = Math.max(0, ...names.map((n) => n.length)) + 2;
  return shown
    .map((s, i) => {
      const [first, ...rest] = s.help!.split('\n');
      const lines = [`  ${names[i]!.padEnd(width)}${first}`];
      for (const line of rest) lines.push(`  ${' '.repeat(width)}${line}`);
      return lines.join('\n');
    })
    .join('\n');
}

/** `-h, --help`, which every command takes. */
export const HELP_OPTION: OptionSpec = { short: 'h', long: 'help', key: 'help', kind: FLAG };

/** What a command's help says, around the options made from its declarations. */
export interface CommandHelp {
  /** The synopsis lines, without `Usage: `. */
  usage: string;
  /** What the command does (paragraphs). */
  about?: string;
  /** The option groups: a title (`Options` when absent) and their declarations. */
  sections: ReadonlyArray<{ title?: string; specs: readonly OptionSpec[] }>;
  /** What follows the options: notes, exit statuses. */
  notes?: string;
}

/**
 * A command's help, in the one shape every command prints:
 * `Usage: …`, what it does, each option group under its title, the notes.
 */
export function commandHelp(help: CommandHelp): string {
  const parts = [`Usage: ${help.usage}`];
  if (help.about) parts.push(help.about);
  for (const section of help.sections) {
    const list = optionsHelp(section.specs);
    if (list !== '') parts.push(`${section.title ?? 'Options'}:\n${list}`);
  }
  if (help.notes) parts.push(help.notes);
  return parts.join('\n\n');
}
