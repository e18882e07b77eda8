import {
  CompiledQuery,
  IdentifierNode,
  RawNode,
  createQueryId,
  type DatabaseConnection,
  type QueryCompiler,
  type TransactionSettings,
} from 'kysely';

/** Commands whose result reports affected rows, as Kysely expects `numAffectedRows`. */
const ROW_COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** `numAffectedRows` for a statement's command tag and row count (undefined for reads). */
export function affectedRows(command: string | undefined, count: number | null | undefined) {
  return command !== undefined && ROW_COUNTING_COMMANDS.has(command.toUpperCase())
    ? BigInt(count ?? 0)
    : undefined;
}

/** Starts a transaction honouring Kysely's isolation level and access mode settings. */
export async function beginTransaction(
  connection: DatabaseConnection,
  settings: TransactionSettings,
): Promise<void> {
  let statement = 'begin';
  if (settings.isolationLevel || settings.accessMode) {
    statement = 'start transaction';
    if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) statement += ` ${settings.accessMode}`;
  }
  await connection.executeQuery(CompiledQuery.raw(statement));
}

/** Runs `savepoint`, `rollback to` or `release` with a safely quoted savepoint name. */
export async function savepointCommand(
  connection: DatabaseConnection,
  command: 'savepoint' | 'rollback to' | 'release',
  savepointName: string,
  compileQuery: QueryCompiler['compileQuery'],
): Promise<void> {
  const node = RawNode.createWithChildren([
    RawNode.createWithSql(`${command} `),
    IdentifierNode.create(savepointName),
  ]);
  await connection.executeQuery(compileQuery(node, createQueryId()));
}
