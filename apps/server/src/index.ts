// @assay/server: the assay HTTP API (createApp never listens) and the process that serves it.
/** Builds the API; its type feeds hono's typed client. */
export { createApp, DEFAULT_MAX_BODY_BYTES, type AppDeps, type AssayApp } from './app.js';
/** The API's one error type and its stable codes. */
export { ApiError, type ApiErrorCode, type ErrorBody } from './core/errors.js';
/** Opens the database, seeds the demo and the first admin, and serves the API. */
export { startServer, type RunningServer, type StartServerOptions } from './server.js';
