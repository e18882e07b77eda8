import { describe, expect, it } from 'vitest';
import { FLAG, getopt, optionsHelp, type OptionSpec, TEXT, UsageError } from '../src/getopt.js';

// The trec_eval-style options of `assay eval`, cut down, plus long-only ones.
const SPECS: OptionSpec[] = [
  { short: 'q', long: 'query_eval_wanted', key: 'q', kind: FLAG, help: 'per topic' },
  { short: 'm', long: 'measure', key: 'm', kind: TEXT, arg: 'MEASURE', help: 'a measure' },
  { short: 'c', key: 'c', kind: FLAG },
  { short: 'l', key: 'l', kind: TEXT },
  { long: 'format', key: 'format', kind: TEXT, arg: 'F', help: 'text or json\nor csv' },
  { long: 'dry-run', key: 'dryRun', kind: FLAG, help: 'send nothing' },
];

const parse = (...argv: string[]) => {
  const { options, positionals } = getopt(argv, SPECS);
  return { options: Object.fromEntries(options), positionals };
};

describe('getopt', () => {
  it('reads trec_eval-style grouped flags and attached values', () => {
    expect(parse('-qc', '-mP.5', '-m', 'map', '-l2', 'qrels', 'run')).toEqual({
      options: { q: [''], c: [''], m: ['P.5', 'map'], l: ['2'] },
      positionals: ['qrels', 'run'],
    });
    // A value-taking letter inside a group takes the rest of the group, or the next word.
    expect(parse('-qmndcg_cut.10').options).toEqual({ q: [''], m: ['ndcg_cut.10'] });
    expect(parse('-qm', 'recip_rank').options).toEqual({ q: [''], m: ['recip_rank'] });
  });

  it('keeps repeats in command-line order and reads long forms both ways', () => {
    expect(parse('--measure', 'P.10', '-m', 'map', '--measure=ndcg').options).toEqual({
      m: ['P.10', 'map', 'ndcg'],
    });
    expect(parse('--format=json', '--dry-run', '--format', 'csv').options).toEqual({
      format: ['json', 'csv'],
      dryRun: [''],
    });
  });

  it('ends options at --, and takes - and values starting with a dash as given', () => {
    expect(parse('-q', '--', '-c', 'run')).toEqual({
      options: { q: [''] },
      positionals: ['-c', 'run'],
    });
    expect(parse('-', 'run').positionals).toEqual(['-', 'run']);
    expect(parse('-l', '-1').options).toEqual({ l: ['-1'] });
    expect(parse('--format', '--dry-run').options).toEqual({ format: ['--dry-run'] });
  });

  it('names the option in each usage error', () => {
    const failure = (...argv: string[]) => {
      try {
        getopt(argv, SPECS);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      return 'parsed';
    };
    expect(failure('-x')).toBe('unknown option -x');
    expect(failure('-qx')).toBe('unknown option -x');
    expect(failure('--nope=1')).toBe('unknown option --nope');
    // A short-only option has no long spelling.
    expect(failure('--c')).toBe('unknown option --c');
    expect(failure('-m')).toBe('option -m needs a value');
    expect(failure('--format')).toBe('option --format needs a value');
    expect(failure('--dry-run=yes')).toBe('option --dry-run takes no value');
  });
});

describe('optionsHelp', () => {
  it('lists the options with help in one aligned column, from their declarations', () => {
    // Widest entry "-m MEASURE" (10 characters) plus two spaces sets the column.
    expect(optionsHelp(SPECS)).toBe(
      [
        '  -q          per topic',
        '  -m MEASURE  a measure',
        '  --format F  text or json',
        '              or csv',
        '  --dry-run   send nothing',
      ].join('\n'),
    );
  });
});
