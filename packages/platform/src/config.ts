import { createDb, type AssayDb } from '@assay/db';
import { z } from 'zod';

/** assay's configuration, read once from the environment. */
export interface AssayConfig {
  /** PostgreSQL URL; absent means embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  port: number;
  /** Token for the bootstrap admin (otherwise one is generated and printed once). */
  adminToken?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  judgeModel?: string;
}

/** A configuration value that cannot be used; names the variable, never echoes secrets. */
export class ConfigError extends Error {
  constructor(message: string) {
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
});

/** Parses assay's environment variables (DATABASE_URL, ASSAY_DATA_DIR, PORT, …). */
export function loadConfig(env: Record<string, string | undefined> = process.env): AssayConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])} ${issue.message}`);
  }
  const e = parsed.data;
  const config: AssayConfig = {
    dataDir: e.ASSAY_DATA_DIR ?? './.assay',
    port: e.PORT ? Number(e.PORT) : 8080,
  };
  if (e.DATABASE_URL) config.databaseUrl = e.DATABASE_URL;
  if (e.ASSAY_ADMIN_TOKEN) config.adminToken = e.ASSAY_ADMIN_TOKEN;
  if (e.OPENAI_API_KEY) config.openaiApiKey = e.OPENAI_API_KEY;
  if (e.OPENAI_BASE_URL) config.openaiBaseUrl = e.OPENAI_BASE_URL;
  if (e.ASSAY_JUDGE_MODEL) config.judgeModel = e.ASSAY_JUDGE_MODEL;
  return config;
}

/** Opens (and migrates) the configured database: Postgres when configured, else PGlite. */
export function openDatabase(config: AssayConfig): Promise<AssayDb> {
  return config.databaseUrl
    ? createDb({ databaseUrl: config.databaseUrl })
    : createDb({ dataDir: `${config.dataDir}/pglite` });
}
