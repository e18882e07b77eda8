/**
 * Routes name collections, runs and label sets in their paths by the platform's one rule:
 * a numeric segment is the id when such a row exists, else the name.
 */
export {
  resolveCollection as collectionFromPath,
  resolveLabelSet,
  resolveRun,
} from '@assay/platform';
