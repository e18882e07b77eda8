import { describe, expect, it } from 'vitest';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  integer,
  LIST,
  number,
  oneOf,
  optionsHelp,
  SCALE,
  TEXT,
  UsageError,
  type OptionSpec,
} from '../src/shell/getopt.js';

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

describe('file options', () => {
  const files: OptionSpec[] = [
    { long: 'responses', key: 'responses', kind: FILE },
    { long: 'exclude', key: 'exclude', kind: FILE, repeats: true },
    { long: 'name', key: 'name', kind: TEXT },
  ];

  it('refuse two different files for an option that takes one, naming both', () => {
    expect(() => getopt(['--responses', 'a.jsonl', '--responses', 'b.jsonl'], files)).toThrow(
      new UsageError('--responses takes one file, got 2: "a.jsonl", "b.jsonl"'),
    );
  });

  it('take the same file named twice, every file of a repeatable one, and any repeated text', () => {
    const parsed = getopt(
      [
        '--responses',
        'a.jsonl',
        '--responses=a.jsonl',
        '--exclude',
        'q1',
        '--exclude',
        'q2',
        '--name',
        'x',
        '--name',
        'y',
      ],
      files,
    );
    expect(parsed.option('responses')).toBe('a.jsonl');
    expect(parsed.all('exclude')).toEqual(['q1', 'q2']);
    expect(parsed.option('name')).toBe('y');
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

describe('option kinds', () => {
  const KINDS: OptionSpec[] = [
    { long: 'alpha', key: 'alpha', kind: number({ above: 0, below: 1 }) },
    { long: 'k1', key: 'k1', kind: number({ min: 0 }) },
    { long: 'b', key: 'b', kind: number({ min: 0, max: 1 }) },
    { long: 'depth', key: 'depth', kind: integer({ min: 1 }) },
    { short: 'l', key: 'l', kind: integer() },
    { long: 'format', key: 'format', kind: oneOf('text', 'json') },
    { long: 'scale', key: 'scale', kind: SCALE },
    { long: 'weights', key: 'weights', kind: LIST },
    { long: 'out', key: 'out', kind: FILE },
    { long: 'replace', key: 'replace', kind: FLAG },
  ];
  const error = (...argv: string[]) => {
    try {
      getopt(argv, KINDS);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    return 'parsed';
  };

  it('reads values of every kind', () => {
    const p = getopt(
      [
        '--alpha',
        '0.1',
        '--depth=7',
        '-l',
        '+2',
        '--scale',
        '-1..3',
        '--weights',
        '1,2',
        '--weights',
        '3',
        '--replace',
      ],
      KINDS,
    );
    expect(p.number('alpha')).toBe(0.1);
    expect(p.number('depth')).toBe(7);
    expect(p.number('l')).toBe(2);
    expect(p.scale('scale')).toEqual({ min: -1, max: 3 });
    expect(p.all('weights', true)).toEqual(['1', '2', '3']);
    expect(p.has('replace')).toBe(true);
    expect(p.option('format')).toBeUndefined();
  });

  it('takes a scale as MIN..MAX, MIN-MAX or MIN:MAX alike', () => {
    for (const text of ['0..3', '0-3', '0:3', ' 0 .. 3 '])
      expect(getopt(['--scale', text], KINDS).scale('scale')).toEqual({ min: 0, max: 3 });
    for (const text of ['-2-1', '-2..1', '-2:1'])
      expect(getopt(['--scale', text], KINDS).scale('scale')).toEqual({ min: -2, max: 1 });
    expect(getopt(['--scale', '2:2'], KINDS).scale('scale')).toEqual({ min: 2, max: 2 });
  });

  it('refuses a bad value with one sentence: the option, what it takes, what it got', () => {
    expect(error('--alpha', 'x')).toBe(
      '--alpha must be a number strictly between 0 and 1, got "x"',
    );
    expect(error('--alpha', '1')).toBe(
      '--alpha must be a number strictly between 0 and 1, got "1"',
    );
    expect(error('--k1', '-0.5')).toBe('--k1 must be a number >= 0, got "-0.5"');
    expect(error('--k1', '')).toBe('--k1 must be a number >= 0, got ""');
    expect(error('--b', '1.5')).toBe('--b must be a number between 0 and 1, got "1.5"');
    expect(error('--depth', '0')).toBe('--depth must be an integer >= 1, got "0"');
    expect(error('--depth', '2.5')).toBe('--depth must be an integer >= 1, got "2.5"');
    expect(error('-l', 'one')).toBe('-l must be an integer, got "one"');
    expect(error('--format', 'xml')).toBe('--format must be one of text, json, got "xml"');
    expect(error('--scale', '3..0')).toBe(
      '--scale must be a grade scale MIN..MAX (or MIN-MAX, MIN:MAX) of integers with MIN <= MAX, got "3..0"',
    );
    expect(error('--scale', '0..x')).toContain('--scale must be a grade scale');
    expect(error('--out', '')).toBe('--out must be not empty, got ""');
    expect(error('--depth', '1e3')).toBe('--depth must be an integer >= 1, got "1e3"');
  });

  it('names each value in the help after its kind, unless the spec names it', () => {
    expect(
      optionsHelp([
        { long: 'depth', key: 'depth', kind: integer({ min: 1 }), help: 'd' },
        { long: 'alpha', key: 'alpha', kind: number(), help: 'a' },
        { long: 'format', key: 'format', kind: oneOf('text', 'json'), help: 'f' },
        { long: 'scale', key: 'scale', kind: SCALE, help: 's' },
        { long: 'out', key: 'out', kind: FILE, help: 'o' },
        { long: 'seed', key: 'seed', kind: integer(), arg: 'S', help: 'r' },
      ]),
    ).toBe(
      [
        '  --depth N           d',
        '  --alpha X           a',
        '  --format text|json  f',
        '  --scale MIN..MAX    s',
        '  --out FILE          o',
        '  --seed S            r',
      ].join('\n'),
    );
  });

  it('assembles a command help in one shape: usage, about, titled option lists, notes', () => {
    const specs: OptionSpec[] = [{ long: 'x', key: 'x', kind: FLAG, help: 'an x' }];
    expect(
      commandHelp({
        usage: 'assay thing [--x]',
        about: 'Does a thing.',
        sections: [{ specs }, { title: 'more options', specs }],
        notes: 'Exit status: 0.',
      }),
    ).toBe(
      'Usage: assay thing [--x]\n\nDoes a thing.\n\nOptions:\n  --x  an x\n\nmore options:\n  --x  an x\n\nExit status: 0.',
    );
  });
});
