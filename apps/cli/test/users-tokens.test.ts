import { describe, expect, it } from 'vitest';
import { databasePerEngine, whoIs } from './cli-fixtures.js';
import { assay } from './run-cli.js';

const engines = databasePerEngine('assay-user-tokens-', { PORT: '9123' });

const secretOf = (stdout: string) => /^ {2}(assay_\S+)$/m.exec(stdout)?.[1];

for (const engine of engines) {
  describe(`assay users tokens [${engine.kind}]`, () => {
    it('lists, adds with a label, revokes one and rotates one token', async () => {
      const env = engine.env();
      const added = await assay(env, 'users', 'add', 'grace');
      expect(added.code, added.stderr).toBe(0);
      const first = secretOf(added.stdout)!;
      const laptop = await assay(env, 'users', 'token-add', 'grace', '--label', 'laptop');
      expect(laptop.code, laptop.stderr).toBe(0);
      const second = secretOf(laptop.stdout)!;
      expect(await whoIs(env, second)).toBe('grace/annotator');

      const listed = await assay(env, 'users', 'tokens', 'grace');
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split('\n');
      // Newest first: the laptop token, then the one made with the user.
      expect(lines.map((l) => l.split('\t')[1])).toEqual(['laptop', 'created']);
      expect(lines.every((l) => /\tlive$/.test(l))).toBe(true);
      expect(listed.stdout).not.toContain(first);
      expect(listed.stdout).not.toContain(second);
      const [laptopId, firstId] = lines.map((l) => l.split('\t')[0]!);

      const revoked = await assay(env, 'users', 'revoke', '--token', firstId!);
      expect(revoked.stdout).toBe(`revoked token ${firstId} of grace\n`);
      expect(await whoIs(env, first)).toBe('unauthorized');
      expect(await whoIs(env, second)).toBe('grace/annotator');
      expect((await assay(env, 'users', 'revoke', '--token', firstId!)).code).toBe(4);

      const rotated = await assay(env, 'users', 'rotate', '--token', laptopId!);
      expect(rotated.code, rotated.stderr).toBe(0);
      const third = secretOf(rotated.stdout)!;
      expect(rotated.stdout).toContain(`revoked token ${laptopId}; new token `);
      expect(await whoIs(env, second)).toBe('unauthorized');
      expect(await whoIs(env, third)).toBe('grace/annotator');
      const after = await assay(env, 'users', 'tokens', 'grace');
      expect(after.stdout.trim().split('\n')[0]).toMatch(/^\d+\tlaptop\t.*\tlive$/);

      expect((await assay(env, 'users', 'rotate', '--token', '999999')).code).toBe(3);
      expect((await assay(env, 'users', 'rotate', 'grace')).code).toBe(1);
      expect((await assay(env, 'users', 'revoke', '--token', 'abc')).code).toBe(1);
      // Each command opens the database anew: a dozen of them on a busy machine.
    }, 180_000);

    it('refuses an all-digit user name with exit 2 and the rule', async () => {
      const refused = await assay(engine.env(), 'users', 'add', '123');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'user name "123": a name may not be all digits (a number in a path or argument means an id)',
      );
    });
  });
}
