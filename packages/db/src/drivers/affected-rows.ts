/** Commands whose result reports affected rows, as Kysely expects `numAffectedRows`. */
const ROW_COUNTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** `numAffectedRows` for a statement's command tag and row count (undefined for reads). */
export function affectedRows(command: string | undefined, count: number | null | undefined) {
  return command !== undefined && ROW_COUNTING_COMMANDS.has(command.toUpperCase())
    ? BigInt(count ?? 0)
    : undefined;
}
