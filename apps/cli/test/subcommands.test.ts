import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// `assay nuggets|support|rubrics SUB`: one dispatcher for the three RAG commands.
describe('the RAG commands and their subcommands', () => {
  for (const [command, known] of [
    ['nuggets', 'import, export, create, assign or score'],
    ['support', 'assign or score'],
    ['rubrics', 'assign or score'],
  ] as const) {
    it(`assay ${command}: help, a missing and an unknown subcommand`, async () => {
      for (const argv of [['--help'], ['-h'], ['help'], ['assign', '--help']]) {
        const help = await cli(command, ...argv);
        expect(help.code, argv.join(' ')).toBe(0);
        expect(help.stdout).toContain(`assay ${command}`);
      }
      const missing = await cli(command);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`give a subcommand: ${known}`);
      const unknown = await cli(command, 'frobnicate');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("unknown subcommand 'frobnicate'");
      // A name every object has is not a subcommand either.
      const inherited = await cli(command, 'toString');
      expect(inherited.code).toBe(1);
      expect(inherited.stderr).toContain("unknown subcommand 'toString'");
    });
  }
});
