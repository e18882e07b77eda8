/**
 * A small getopt: short options may be grouped (`-qc`) and take their value attached
 * (`-mP.5`, `-l2`) or as the next argument (`-m P.5`), as trec_eval users type them;
 * long options take `--name value` or `--name=value`.
 */

/** Declares one option: its short letter and/or long name, and whether it takes a value. */
export interface OptionSpec {
  short?: string;
  long?: string;
  /** Key under which the option is collected. */
  key: string;
  takesValue: boolean;
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

/** Parses argv against the option specs; `--` ends option parsing and `-` is positional. */
export function getopt(argv: readonly string[], specs: readonly OptionSpec[]): ParsedArgs {
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  const add = (key: string, value: string) => {
    const list = options.get(key);
    if (list) list.push(value);
    else options.set(key, [value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = specs.find((s) => s.long === name);
      if (!spec) throw new UsageError(`unknown option --${name}`);
      if (!spec.takesValue) {
        if (eq >= 0) throw new UsageError(`option --${name} takes no value`);
        add(spec.key, '');
        continue;
      }
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`option --${name} needs a value`);
      add(spec.key, value);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const spec = specs.find((s) => s.short === letter);
        if (!spec) throw new UsageError(`unknown option -${letter}`);
        if (!spec.takesValue) {
          add(spec.key, '');
          continue;
        }
        let value = arg.slice(j + 1);
        if (value === '') {
          const next = argv[++i];
          if (next === undefined) throw new UsageError(`option -${letter} needs a value`);
          value = next;
        }
        add(spec.key, value);
        break;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { options, positionals };
}
