// The database test helpers live in src/testing.ts (exported as @assay/db/testing).
export * from '../src/testing.js';
