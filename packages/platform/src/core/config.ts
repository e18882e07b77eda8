import { join } from 'node:path';
import { createDb, migrate, type AssayDb, type MigrateResult } from '@assay/db';
import { z } from 'zod';
import { findDataDir } from './data-dir.js';

/** assay's configuration, read once from the environment. */
export interface AssayConfig {
  /** DATABASE_URL: a PostgreSQL URL; absent means embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /**
   * ASSAY_DATA_DIR; by default the `.assay` of the working directory or its nearest
   * ancestor, else `./.assay`. PGlite keeps its data in `<dataDir>/pglite`.
   */
  dataDir: string;
  /** PORT the API listens on (default 8080). */
  port: number;
  /**
   * HOST: the interface the API listens on; absent means 127.0.0.1 (this machine only).
   * 0.0.0.0 or :: accepts connections from other machines.
   */
  host?: string;
  /** ASSAY_ADMIN_TOKEN: token for the bootstrap admin (otherwise one is generated and shown once). */
  adminToken?: string;
  /** OPENAI_API_KEY for LLM judges. */
  openaiApiKey?: string;
  /** OPENAI_BASE_URL: any OpenAI-compatible endpoint (vLLM, Ollama, Azure …). */
  openaiBaseUrl?: string;
  /** ASSAY_JUDGE_MODEL: the default judge model. */
  judgeModel?: string;
  /**
   * ASSAY_EMBEDDING_BASE_URL and ASSAY_EMBEDDING_API_KEY: an endpoint of its own for
   * `/v1/embeddings` (absent: the chat endpoint's, with its key).
   */
  embeddingBaseUrl?: string;
  embeddingApiKey?: string;
  /**
   * ASSAY_RERANK_BASE_URL and ASSAY_RERANK_API_KEY: an endpoint of its own for `/v1/rerank`
   * (absent: the chat endpoint's, with its key).
   */
  rerankBaseUrl?: string;
  rerankApiKey?: string;
  /**
   * ASSAY_SERVER_WORKER (`0` or `1`): whether `assay serve` judges jobs in its own process;
   * absent means yes when a model endpoint (OPENAI_BASE_URL or OPENAI_API_KEY) is set.
   */
  serverWorker?: boolean;
}

/** A configuration value that cannot be used; names the variable, never echoes its value. */
export class ConfigError extends Error {
  constructor(
    /** The environment variable at fault. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const Env = z.object({
  DATABASE_URL: optional.refine(
    (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
    'must be a postgres:// URL',
  ),
  ASSAY_DATA_DIR: optional,
  PORT: optional.refine(
    (v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535),
    'must be a port number (1-65535)',
  ),
  HOST: optional.refine(
    (v) => v === undefined || /^[A-Za-z0-9.:-]+$/.test(v),
    'must be a host name or an IP address, such as 127.0.0.1 or 0.0.0.0',
  ),
  ASSAY_ADMIN_TOKEN: optional.refine(
    (v) => v === undefined || v.length >= 16,
    'must be at least 16 characters',
  ),
  OPENAI_API_KEY: optional,
  OPENAI_BASE_URL: optional.refine(
    (v) => v === undefined || /^https?:\/\//.test(v),
    'must be an http(s) URL',
  ),
  ASSAY_JUDGE_MODEL: optional,
  ASSAY_EMBEDDING_BASE_URL: optional.refine(
    (v) => v === undefined || /^https?:\/\//.test(v),
    'must be an http(s) URL',
  ),
  ASSAY_EMBEDDING_API_KEY: optional,
  ASSAY_RERANK_BASE_URL: optional.refine(
    (v) => v === undefined || /^https?:\/\//.test(v),
    'must be an http(s) URL',
  ),
  ASSAY_RERANK_API_KEY: optional,
  ASSAY_SERVER_WORKER: optional.refine(
    (v) => v === undefined || v === '0' || v === '1',
    'must be 0 or 1',
  ),
});

/**
 * Parses assay's environment variables (DATABASE_URL, ASSAY_DATA_DIR, PORT, …); without
 * ASSAY_DATA_DIR the data directory is looked up from `cwd` (see {@link findDataDir}).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): AssayConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    throw new ConfigError(variable, `${variable} ${issue.message}`);
  }
  const e = parsed.data;
  const config: AssayConfig = {
    dataDir: e.ASSAY_DATA_DIR ?? findDataDir(cwd),
    port: e.PORT ? Number(e.PORT) : 8080,
  };
  if (e.DATABASE_URL) config.databaseUrl = e.DATABASE_URL;
  if (e.HOST) config.host = e.HOST;
  if (e.ASSAY_ADMIN_TOKEN) config.adminToken = e.ASSAY_ADMIN_TOKEN;
  if (e.OPENAI_API_KEY) config.openaiApiKey = e.OPENAI_API_KEY;
  if (e.OPENAI_BASE_URL) config.openaiBaseUrl = e.OPENAI_BASE_URL;
  if (e.ASSAY_JUDGE_MODEL) config.judgeModel = e.ASSAY_JUDGE_MODEL;
  if (e.ASSAY_EMBEDDING_BASE_URL) config.embeddingBaseUrl = e.ASSAY_EMBEDDING_BASE_URL;
  if (e.ASSAY_EMBEDDING_API_KEY) config.embeddingApiKey = e.ASSAY_EMBEDDING_API_KEY;
  if (e.ASSAY_RERANK_BASE_URL) config.rerankBaseUrl = e.ASSAY_RERANK_BASE_URL;
  if (e.ASSAY_RERANK_API_KEY) config.rerankApiKey = e.ASSAY_RERANK_API_KEY;
  if (e.ASSAY_SERVER_WORKER) config.serverWorker = e.ASSAY_SERVER_WORKER === '1';
  return config;
}

/** Where the embedded PGlite database of a configuration lives. */
export function pgliteDataDir(config: AssayConfig): string {
  return join(config.dataDir, 'pglite');
}

/**
 * Opens the configured database: PostgreSQL when DATABASE_URL is set, else embedded
 * PGlite in `<dataDir>/pglite` — through the process that holds it when that process
 * shares it (`assay serve`). Pending migrations are applied unless `migrate` is false.
 * `share` (the server's) opens the embedded database only as its holder, and shares it
 * with this user's other assay processes while it is open.
 */
export function openDatabase(
  config: AssayConfig,
  options: { migrate?: boolean; share?: boolean } = {},
): Promise<AssayDb> {
  const migrateNow = options.migrate ?? true;
  return config.databaseUrl
    ? createDb({ databaseUrl: config.databaseUrl, migrate: migrateNow })
    : createDb({
        dataDir: pgliteDataDir(config),
        migrate: migrateNow,
        ...(options.share ? { share: true } : {}),
      });
}

/** Applies pending migrations to the configured database and says which ran. */
export async function migrateDatabase(
  config: AssayConfig,
): Promise<MigrateResult & { kind: AssayDb['kind'] }> {
  const database = await openDatabase(config, { migrate: false });
  try {
    return { ...(await migrate(database.db)), kind: database.kind };
  } finally {
    await database.close();
  }
}
