/**
 * Routes name a collection in their path by the platform's one rule: a numeric segment
 * is the id when such a collection exists, else the name.
 */
export { resolveCollection as collectionFromPath } from '@assay/platform';
