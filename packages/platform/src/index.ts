// @assay/platform: use-cases over the database shared by the CLI and the API (no HTTP, no argv).

/** Configuration from the environment, and opening the configured database. */
export { ConfigError, loadConfig, openDatabase, type AssayConfig } from './config.js';
/** The use-case error with a stable code. */
export { PlatformError, type PlatformErrorCode } from './errors.js';
/** Resolving a collection by name or id. */
export { resolveCollection, type CollectionRef } from './resolve.js';
/** Imports: collection, topics, qrels (as a human label set), runs — parse fully, then one transaction. */
export {
  importCollection,
  importQrels,
  importRun,
  importTopics,
  type ImportCollectionInput,
  type ImportQrelsInput,
  type ImportRunInput,
  type ImportTopicsInput,
} from './imports.js';
/** Shipped datasets (Cranfield). */
export {
  defaultDatasetsDir,
  listDatasets,
  loadDataset,
  parseCranfieldQrels,
  parseCranfieldQueries,
  type DatasetManifest,
} from './datasets.js';
/** The bootstrap admin and token authentication. */
export { authenticate, ensureAdmin } from './auth.js';
/** Evaluating stored runs against a stored label set. */
export { evaluateRuns, type EvaluateRunsInput, type EvaluateRunsResult } from './evaluate.js';
