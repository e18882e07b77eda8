import { describe, expect, it } from 'vitest';
import { AGREE_OPTIONS } from '../src/analysis/agree-command.js';
import {
  ANSWERS_AGREE_OPTIONS,
  ANSWERS_REPORT_OPTIONS,
  ANSWERS_SCORE_OPTIONS,
} from '../src/answers/answers-command.js';
import { COLLECTIONS_OPTIONS } from '../src/catalog/collections-command.js';
import { COMPARE_OPTIONS } from '../src/analysis/compare-command.js';
import { CONSENSUS_OPTIONS } from '../src/judging/consensus-command.js';
import { EVAL_OPTIONS } from '../src/eval/eval-command.js';
import { EXPORT_OPTIONS } from '../src/catalog/export-command.js';
import { FUSE_OPTIONS } from '../src/retrieval/fuse-command.js';
import type { OptionSpec } from '../src/shell/getopt.js';
import { IMPORT_OPTIONS } from '../src/catalog/import-command.js';
import { INDEX_OPTIONS } from '../src/retrieval/index-command.js';
import { JUDGE_OPTIONS } from '../src/judging/judge-command.js';
import { JUDGE_REPORT_OPTIONS } from '../src/analysis/judge-report-command.js';
import { POOL_OPTIONS } from '../src/judging/pool-command.js';
import { PPI_OPTIONS, PPI_SAMPLE_OPTIONS } from '../src/analysis/ppi-command.js';
import { SERVE_OPTIONS } from '../src/admin/serve-command.js';
import { USERS_OPTIONS } from '../src/admin/users-command.js';
import { WORKER_OPTIONS } from '../src/judging/worker-command.js';
import { cli } from './run-cli.js';

// Each command's help, asked for as a user asks (`assay CMD --help`, for a command with
// subcommands `assay CMD SUB --help`), against the options its parser reads.
const COMMANDS: Array<[string[], readonly OptionSpec[]]> = [
  [['agree'], AGREE_OPTIONS],
  [
    ['answers', 'score'],
    [...ANSWERS_SCORE_OPTIONS, ...ANSWERS_REPORT_OPTIONS, ...ANSWERS_AGREE_OPTIONS],
  ],
  [['collections', 'delete'], COLLECTIONS_OPTIONS],
  [['compare'], COMPARE_OPTIONS],
  [['consensus'], CONSENSUS_OPTIONS],
  [['eval'], EVAL_OPTIONS],
  [['export', 'run'], EXPORT_OPTIONS],
  [['fuse'], FUSE_OPTIONS],
  [['import', 'qrels'], IMPORT_OPTIONS],
  [['index', 'build'], INDEX_OPTIONS],
  [['judge'], JUDGE_OPTIONS],
  [['judge-report'], JUDGE_REPORT_OPTIONS],
  [['pool'], POOL_OPTIONS],
  [['ppi'], [...PPI_OPTIONS, ...PPI_SAMPLE_OPTIONS]],
  [['serve'], SERVE_OPTIONS],
  [['users', 'add'], USERS_OPTIONS],
  [['worker'], WORKER_OPTIONS],
];

/** The option column of a help line: `-m MEASURE`, `--depth N`. */
const optionLine = /^ {2}(-{1,2}[A-Za-z][\w-]*)(?: (\S+))?(?: {2,}(.*))?$/;

describe('every command prints its help from its option declarations', () => {
  for (const [argv, specs] of COMMANDS) {
    it(`assay ${argv.join(' ')} --help`, async () => {
      const r = await cli(...argv, '--help');
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const lines = r.stdout.split('\n');
      // One shape everywhere: the usage first, then the option lists under a title.
      expect(lines[0]).toMatch(new RegExp(`^Usage: assay ${argv[0]} `));
      expect(lines.some((l) => /^(Options|[\w ]+ options):$/.test(l))).toBe(true);
      // Every option but --help is documented, with its first help line beside its flag.
      for (const spec of specs) {
        if (spec.long === 'help') continue;
        expect(spec.help, `${spec.long ?? spec.short} has no help`).toBeDefined();
        const flag = spec.short ? `-${spec.short}` : `--${spec.long}`;
        const first = spec.help!.split('\n')[0]!;
        const shown = lines.filter((l) => {
          const m = optionLine.exec(l);
          return m?.[1] === flag && (m[3] ?? '').trim() === first.trim();
        });
        expect(shown.length, `${flag} in assay ${argv[0]} --help`).toBeGreaterThan(0);
      }
      // And every option listed is one the parser reads.
      const flags = new Set(
        specs.flatMap((s) => [s.short && `-${s.short}`, s.long && `--${s.long}`]),
      );
      for (const line of lines) {
        const m = optionLine.exec(line);
        if (m && m[3] !== undefined) expect(flags, line).toContain(m[1]);
      }
    });
  }
});

describe('--help is the same everywhere on a command line', () => {
  // Commands without options of their own, and commands with subcommands: the help of
  // `assay CMD --help`, `assay CMD SUB --help` and `assay CMD SUB -h` is one text, exit 0.
  const cases: Array<[string, string[]]> = [
    ['db', ['migrate']],
    ['datasets', ['load', 'cranfield']],
    ['collections', ['delete', 'c']],
    ['users', ['add', 'ann']],
    ['answers', ['agree', 'a.jsonl']],
    ['nuggets', ['score']],
  ];
  for (const [command, sub] of cases) {
    it(`assay ${command} ${sub.join(' ')} --help`, async () => {
      const top = await cli(command, '--help');
      const inner = await cli(command, ...sub, '--help');
      const short = await cli(command, ...sub, '-h');
      for (const r of [top, inner, short]) {
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
      }
      expect(top.stdout.startsWith(`Usage: assay ${command} `)).toBe(true);
      expect(inner.stdout).toBe(top.stdout);
      expect(short.stdout).toBe(top.stdout);
    });
  }
});
