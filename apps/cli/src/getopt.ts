import { parseArgs } from 'node:util';

/**
 * Command-line parsing for every assay command, on Node's `util.parseArgs`: short options
 * may be grouped (`-qc`) and take their value attached (`-mP.5`, `-l2`) or as the next
 * argument (`-m P.5`), as trec_eval users type them; long options take `--name value` or
 * `--name=value`; options repeat; `--` ends the options and `-` is a positional. Each
 * command declares its options once, and its help lists them from that declaration.
 */

/** Declares one option: its short letter and/or long name, and whether it takes a value. */
export interface OptionSpec {
  short?: string;
  long?: string;
  /** Key under which the option is collected. */
  key: string;
  takesValue: boolean;
  /** The value's name in the help (`FILE`, `N`); default `VALUE`. */
  arg?: string;
  /** What the option does, for the help; an option without it is left out of the list. */
  help?: string;
}

/** Options collected by key (repeatable), plus the positional arguments. */
export interface ParsedArgs {
  options: Map<string, string[]>;
  positionals: string[];
}

/** A command line that does not fit the declared options. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Parses argv against the option specs. A value is taken as given, even one that starts
 * with a dash (`--budget -1` gives the command `-1` to judge); a flag collects `''`.
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
      type: spec.takesValue ? 'string' : 'boolean',
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
    if (spec.takesValue) {
      if (token.value === undefined) throw new UsageError(`option ${token.rawName} needs a value`);
      value = token.value;
    } else if (token.inlineValue) throw new UsageError(`option ${token.rawName} takes no value`);
    const list = options.get(spec.key);
    if (list) list.push(value);
    else options.set(spec.key, [value]);
  }
  return { options, positionals };
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
    return s.takesValue ? `${flag} ${s.arg ?? 'VALUE'}` : flag;
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
