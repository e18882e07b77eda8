import { describe, expect, it } from 'vitest';
import { databasePerEngine, whoIs } from './cli-fixtures.js';
import { assay } from './run-cli.js';

const engines = databasePerEngine('assay-users-', { PORT: '9123' });

for (const engine of engines) {
  describe(`assay users [${engine.kind}]`, () => {
    it('adds a user, prints the token once with a sign-in link, lists and revokes', async () => {
      const added = await assay(engine.env(), 'users', 'add', 'ada', '--role', 'annotator');
      expect(added.code, added.stderr).toBe(0);
      const token = /^ {2}(assay_\S+)$/m.exec(added.stdout)?.[1];
      expect(token).toBeDefined();
      expect(added.stdout).toContain(`sign-in link: http://localhost:9123/#token=${token}`);
      expect(await whoIs(engine.env(), token!)).toBe('ada/annotator');

      const taken = await assay(engine.env(), 'users', 'add', 'ada');
      expect(taken.code).toBe(4);

      const list = await assay(engine.env(), 'users', 'list');
      expect(list.stdout).toMatch(/\tada\tannotator\t1 live token\(s\)\tlast used /);
      expect(list.stdout).not.toContain(token!);

      const revoked = await assay(engine.env(), 'users', 'revoke', 'ada');
      expect(revoked.stdout).toBe('revoked 1 token(s) of ada\n');
      expect(await whoIs(engine.env(), token!)).toBe('unauthorized');
      expect((await assay(engine.env(), 'users', 'revoke', 'nobody')).code).toBe(3);
      const boss = await assay(engine.env(), 'users', 'add', 'x', '--role', 'boss');
      expect(boss.code).toBe(1);
      expect(boss.stderr).toContain('--role must be one of annotator, admin, got "boss"');
      const badToken = await assay(engine.env(), 'users', 'revoke', '--token', '0');
      expect(badToken.code).toBe(1);
      expect(badToken.stderr).toContain('--token must be an integer >= 1, got "0"');
    });
  });
}
