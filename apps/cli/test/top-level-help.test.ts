import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/main.js';
import { cli } from './run-cli.js';

/** The `Commands:` lines of the top-level help: each command's name and what follows it. */
function listed(help: string): Array<{ name: string; subcommands: string[]; line: string }> {
  const block = help.split('\n\n').find((part) => part.startsWith('Commands:\n'));
  if (!block) throw new Error(`no Commands: block in\n${help}`);
  return block
    .split('\n')
    .slice(1)
    .map((line) => {
      const m = /^ {2}([a-z][a-z-]*) {2,}\S.*?(?:: ([a-z-]+(?:, [a-z-]+)*))?$/.exec(line);
      if (!m) throw new Error(`not a command line: '${line}'`);
      return { name: m[1]!, subcommands: m[2]?.split(', ') ?? [], line };
    });
}

/**
 * The subcommands a command's own usage names, in order: the word after `assay NAME` on
 * each usage line when it is a lower-case word (not an option, placeholder or file).
 */
function usageSubcommands(name: string, help: string): string[] {
  const usage = help.split('\n\n')[0]!;
  const subs: string[] = [];
  for (const line of usage.split('\n')) {
    const m = new RegExp(`^(?:Usage: | +)assay ${name}(?: (\\S+))?`).exec(line);
    const word = m?.[1];
    if (word && /^[a-z][a-z-]*$/.test(word) && !subs.includes(word)) subs.push(word);
  }
  return subs;
}

describe('assay --help', () => {
  it('lists every command of the table, in its order, under one usage line', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout.split('\n')[0]).toBe('Usage: assay <command> [options]');
    const names = listed(help.stdout).map((c) => c.name);
    expect(names).toEqual(Object.keys(COMMANDS));
    expect(names.length).toBe(23);
    expect(names).toContain('retrieve');
    expect(names).toContain('judge-report');
    // One column: every summary starts at the same place, past the longest name.
    const column = listed(help.stdout).map(
      (c) => c.line.length - c.line.slice(2 + c.name.length).trimStart().length,
    );
    expect(new Set(column)).toEqual(new Set(['  judge-report  '.length]));
  });

  it('is what `assay` alone and an unknown command print, with a usage exit status', async () => {
    const help = (await cli('--help')).stdout;
    const bare = await cli();
    expect(bare.code).toBe(1);
    expect(bare.stdout).toBe(help);
    const unknown = await cli('evaluate');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`assay: unknown command 'evaluate'\n${help}`);
    // A name of the table's prototype is no command either.
    expect((await cli('toString')).stderr).toBe(`assay: unknown command 'toString'\n${help}`);
  });

  it('names each command, and its subcommands, as the command’s own --help usage does', async () => {
    const lines = listed((await cli('--help')).stdout);
    for (const { name, subcommands } of lines) {
      const own = await cli(name, '--help');
      expect(own.code, name).toBe(0);
      expect(own.stderr, name).toBe('');
      expect(own.stdout, name).toMatch(new RegExp(`^Usage: assay ${name}( |\\n)`));
      // Its help says more than its usage: what it does, or its options.
      expect(own.stdout.split('\n\n').length, name).toBeGreaterThan(1);
      expect(subcommands, name).toEqual(usageSubcommands(name, own.stdout));
    }
    // The commands with subcommands, as their usage lines name them.
    expect(
      Object.fromEntries(
        lines.filter((l) => l.subcommands.length).map((l) => [l.name, l.subcommands]),
      ),
    ).toEqual({
      ppi: ['sample'],
      import: ['collection', 'documents', 'topics', 'qrels', 'run'],
      datasets: ['list', 'load'],
      collections: ['delete'],
      db: ['migrate'],
      answers: ['score', 'report', 'agree'],
      nuggets: ['import', 'export', 'create', 'assign', 'score'],
      support: ['assign', 'score'],
      rubrics: ['assign', 'score'],
      index: ['build'],
      export: ['run', 'qrels', 'finetune'],
      users: ['add', 'list', 'tokens', 'token', 'revoke', 'rotate'],
    });
  });

  it('reads a usage’s subcommands as a person would', () => {
    const help = `Usage: assay users add NAME [--role annotator|admin]
       assay users list
       assay users token NAME [--label LABEL]      (also: token-add)
       assay users revoke NAME | --token ID

Options:`;
    expect(usageSubcommands('users', help)).toEqual(['add', 'list', 'token', 'revoke']);
    expect(usageSubcommands('eval', 'Usage: assay eval [trec_eval options] QRELS RUN...')).toEqual(
      [],
    );
    expect(
      usageSubcommands(
        'judge',
        `Usage: assay judge --judge ID --topics FILE
                   --out QRELS [--model M]`,
      ),
    ).toEqual([]);
  });
});
