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

/** The lock name of a label set name within a collection. */
export function labelSetLockName(collectionId: number, name: string): string {
  return `label-set:${collectionId}:${name}`;
}
