import { parseArgs } from 'node:util';
import { addUser, issueUserToken, listUserSummaries, revokeUserTokens } from '@assay/platform';
import { UsageError } from './getopt.js';
import { EXIT, withDatabase, type PlatformCommandIo } from './platform-session.js';

export const USERS_USAGE = `Usage: assay users add NAME [--role annotator|admin]
       assay users list
       assay users token NAME
       assay users revoke NAME

People who label in the web app or administer assay, and their API tokens.
  add      create a user (role annotator by default) and print their API token and
           sign-in link; the token is shown only this once (only its hash is stored)
  list     users with their role, live tokens and last use
  token    a new token (and sign-in link) for an existing user
  revoke   revoke every token of a user

Works on the configured database (DATABASE_URL, else embedded PGlite under
ASSAY_DATA_DIR); the sign-in link uses PORT (default 8080).

Exit status: 0 done; 1 usage; 3 no such user; 4 the name is taken.`;

function signInLink(io: PlatformCommandIo, token: string): string {
  const port = (io.env ?? process.env).PORT || '8080';
  return `http://localhost:${port}/#token=${token}`;
}

/** `assay users add|list|token|revoke`. */
export async function usersCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help') {
    io.stdout(`${USERS_USAGE}\n`);
    return what === undefined ? EXIT.usage : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: { role: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const role = values.role ?? 'annotator';
  if (role !== 'annotator' && role !== 'admin')
    throw new UsageError(`--role is annotator or admin, not '${role}'`);
  if (what === 'list') {
    if (positionals.length > 0) throw new UsageError("'users list' takes no arguments");
    const users = await withDatabase(io, (db) => listUserSummaries(db));
    for (const u of users) {
      const used = u.lastUsedAt ? u.lastUsedAt.toISOString() : 'never';
      io.stdout(
        `${u.id}\t${u.name}\t${u.role}\t${u.activeTokens} live token(s)\tlast used ${used}\n`,
      );
    }
    return 0;
  }
  if (!['add', 'token', 'revoke'].includes(what))
    throw new UsageError(`unknown users command '${what}' (add, list, token, revoke)`);
  if (positionals.length !== 1) throw new UsageError(`'users ${what}' takes one NAME`);
  const name = positionals[0]!;
  if (what === 'revoke') {
    const { user, revoked } = await withDatabase(io, (db) => revokeUserTokens(db, name));
    io.stdout(`revoked ${revoked} token(s) of ${user.name}\n`);
    return 0;
  }
  const created = await withDatabase(io, (db) =>
    what === 'add' ? addUser(db, { name, role }) : issueUserToken(db, name),
  );
  io.stdout(
    `${what === 'add' ? 'created' : 'new token for'} ${created.role} ${created.name} (id ${created.id}); ` +
      `this token is shown only once:\n\n  ${created.token}\n\nsign-in link: ${signInLink(io, created.token)}\n`,
  );
  return 0;
}
