// @assay/platform: use-cases over the database shared by the CLI and the API (no HTTP, no argv).

/** Configuration from the environment; opening and migrating the configured database. */
export {
  ConfigError,
  loadConfig,
  migrateDatabase,
  openDatabase,
  pgliteDataDir,
  type AssayConfig,
} from './config.js';
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
  type ImportCollectionResult,
  type ImportQrelsInput,
  type ImportQrelsResult,
  type ImportRunInput,
  type ImportRunResult,
  type ImportTopicsInput,
  type ImportTopicsResult,
} from './imports.js';
/** Shipped datasets (Cranfield): list, load, and the Cranfield query and judgment parsers. */
export {
  defaultDatasetsDir,
  listDatasets,
  loadDataset,
  parseCranfieldQrels,
  parseCranfieldQueries,
  type CranfieldLabel,
  type CranfieldQuery,
  type DatasetManifest,
  type LoadDatasetResult,
} from './datasets.js';
/** The bootstrap admin and token authentication. */
export { authenticate, ensureAdmin, type EnsureAdminResult } from './auth.js';
/** Evaluating stored runs against a stored label set. */
export {
  evaluateRuns,
  type EvaluateRunsInput,
  type EvaluateRunsResult,
  type RunMeasures,
} from './evaluate.js';
