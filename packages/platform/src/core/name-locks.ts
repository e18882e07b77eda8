/**
 * The advisory-lock names under which writers of one named row take turns (see lockName
 * in @assay/db): every use-case that creates or replaces such a row locks the same name.
 */

/** The lock name of a collection name. */
export function collectionLockName(name: string): string {
  return `collection:${name}`;
}

/** The lock name of a run name within a collection. */
export function runLockName(collectionId: number, name: string): string {
  return `run:${collectionId}:${name}`;
}

/**
 * The lock under which revocations of admins' tokens take turns: the last-admin guard reads
 * every admin's live tokens, so two admins revoking each other at once must not both pass
 * it (each seeing the other's token still live).
 */
export const ADMIN_TOKENS_LOCK = 'admin-tokens';

/** The lock name of a label set name within a collection. */
export function labelSetLockName(collectionId: number, name: string): string {
  return `label-set:${collectionId}:${name}`;
}

/**
 * The lock under which campaigns of a collection are created one at a time: the check that
 * no annotator is in a blind and a non-blind campaign over the same pairs reads the others.
 */
export function campaignsLockName(collectionId: number): string {
  return `campaigns:${collectionId}`;
}
