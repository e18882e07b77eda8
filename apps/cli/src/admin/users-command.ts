import {
  addUser,
  findTokenOwner,
  issueUserToken,
  listUserSummaries,
  listUserTokens,
  revokeUserToken,
  revokeUserTokens,
  rotateUserToken,
} from '@assay/platform';
import {
  commandHelp,
  getopt,
  HELP_OPTION,
  integer,
  oneOf,
  TEXT,
  UsageError,
  type OptionSpec,
} from '../shell/getopt.js';
import { EXIT, withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';

/** The options of `assay users`; each belongs to some of its subcommands (checked below). */
export const USERS_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'role',
    key: 'role',
    kind: oneOf('annotator', 'admin'),
    help: "add: the new user's role (default annotator)",
  },
  { long: 'label', key: 'label', kind: TEXT, help: 'token: a label for the new token' },
  {
    long: 'token',
    key: 'token',
    kind: integer({ min: 1 }),
    arg: 'ID',
    help: 'revoke, rotate: the token (its id, as users tokens lists it)',
  },
  HELP_OPTION,
];

export const USERS_USAGE = commandHelp({
  usage: `assay users add NAME [--role annotator|admin]
       assay users list
       assay users tokens NAME
       assay users token NAME [--label LABEL]      (also: token-add)
       assay users revoke NAME | --token ID
       assay users rotate --token ID`,
  about: `People who label in the web app or administer assay, and their API tokens.
  add      create a user (role annotator by default) and print their API token and
           sign-in link; the token is shown only this once (only its hash is stored)
  list     users with their role, live tokens and last use
  tokens   a user's tokens: id, label, created, last used, revoked (never the secret)
  token    one more token (and sign-in link) for a user; the others stay valid
  revoke   revoke every token of a user, or with --token ID that one token
  rotate   revoke token ID and print a new one with the same label, once

A user name may not be all digits. ASSAY_ADMIN_TOKEN only makes the first admin; to
change the admin's token later, use rotate.

Works on the configured database (DATABASE_URL, else embedded PGlite under
ASSAY_DATA_DIR); the sign-in link uses PORT (default 8080).`,
  sections: [{ specs: USERS_OPTIONS }],
  notes: `Exit status: 0 done; 1 usage; 2 a bad name or label; 3 no such user or token;
4 the name is taken, the token is already revoked, or it is the last admin's.`,
});

function signInLink(io: PlatformCommandIo, token: string): string {
  const port = (io.env ?? process.env).PORT || '8080';
  return `http://localhost:${port}/#token=${token}`;
}

/** `assay users add|list|tokens|token|revoke|rotate`. */
export async function usersCommand(
  argv: readonly string[],
  io: PlatformCommandIo,
): Promise<number> {
  const [what, ...rest] = argv;
  if (what === undefined || what === '-h' || what === '--help') {
    io.stdout(`${USERS_USAGE}\n`);
    return what === undefined ? EXIT.usage : 0;
  }
  const parsed = getopt(rest, USERS_OPTIONS);
  if (parsed.has('help')) {
    io.stdout(`${USERS_USAGE}\n`);
    return 0;
  }
  const { positionals } = parsed;
  const values = {
    role: parsed.option('role') as 'annotator' | 'admin' | undefined,
    label: parsed.option('label'),
    token: parsed.option('token'),
  };
  const role = values.role ?? 'annotator';
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
  const command = what === 'token-add' ? 'token' : what;
  if (!['add', 'token', 'tokens', 'revoke', 'rotate'].includes(command))
    throw new UsageError(
      `unknown users command '${what}' (add, list, tokens, token, revoke, rotate)`,
    );
  if (values.label !== undefined && command !== 'token')
    throw new UsageError(`--label belongs to 'users token'`);
  if (values.role !== undefined && command !== 'add')
    throw new UsageError(`--role belongs to 'users add'`);
  if (values.token !== undefined && command !== 'revoke' && command !== 'rotate')
    throw new UsageError(`--token belongs to 'users revoke' and 'users rotate'`);
  if (command === 'revoke' || command === 'rotate') {
    if (values.token !== undefined) {
      if (positionals.length > 0)
        throw new UsageError(`'users ${command} --token ID' takes no NAME`);
      const tokenId = Number(values.token);
      if (command === 'revoke') {
        const { user } = await withDatabase(io, async (db) =>
          revokeUserToken(db, (await findTokenOwner(db, tokenId)).id, tokenId),
        );
        io.stdout(`revoked token ${tokenId} of ${user.name}\n`);
        return 0;
      }
      const rotated = await withDatabase(io, async (db) =>
        rotateUserToken(db, (await findTokenOwner(db, tokenId)).id, tokenId),
      );
      io.stdout(
        `revoked token ${rotated.revokedTokenId}; new token ${rotated.apiToken.id} for ${rotated.role} ${rotated.name}, ` +
          `shown only once:\n\n  ${rotated.token}\n\nsign-in link: ${signInLink(io, rotated.token)}\n`,
      );
      return 0;
    }
    if (command === 'rotate') throw new UsageError(`'users rotate' needs --token ID`);
  }
  if (positionals.length !== 1) throw new UsageError(`'users ${what}' takes one NAME`);
  const name = positionals[0]!;
  if (command === 'tokens') {
    const { tokens } = await withDatabase(io, (db) => listUserTokens(db, name));
    for (const t of tokens) {
      const used = t.lastUsedAt ? t.lastUsedAt.toISOString() : 'never';
      const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'live';
      io.stdout(
        `${t.id}\t${t.label ?? ''}\tcreated ${t.createdAt.toISOString()}\tlast used ${used}\t${state}\n`,
      );
    }
    return 0;
  }
  if (command === 'revoke') {
    const { user, revoked } = await withDatabase(io, (db) => revokeUserTokens(db, name));
    io.stdout(`revoked ${revoked} token(s) of ${user.name}\n`);
    return 0;
  }
  const label = values.label;
  const created = await withDatabase(io, (db) =>
    command === 'add'
      ? addUser(db, { name, role })
      : issueUserToken(db, name, label === undefined ? {} : { label }),
  );
  io.stdout(
    `${command === 'add' ? 'created' : 'new token for'} ${created.role} ${created.name} (id ${created.id}); ` +
      `this token is shown only once:\n\n  ${created.token}\n\nsign-in link: ${signInLink(io, created.token)}\n`,
  );
  return 0;
}
