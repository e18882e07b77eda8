import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listCollections } from '@assay/db';
import { describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/test-support/database';
import {
  ConfigError,
  loadConfig,
  migrateDatabase,
  openDatabase,
  pgliteDataDir,
} from '../src/index.js';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({ dataDir: './.assay', port: 8080 });
    expect(pgliteDataDir(loadConfig({}))).toBe(join('.assay', 'pglite'));
  });

  it('reads every variable, ignoring empty ones and others', () => {
    expect(
      loadConfig({
        DATABASE_URL: 'postgresql://u:p@db:5432/assay',
        ASSAY_DATA_DIR: '/var/lib/assay',
        PORT: '9000',
        ASSAY_ADMIN_TOKEN: 'a-long-enough-admin-token',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
        ASSAY_JUDGE_MODEL: 'gpt-4o-mini',
        HOME: '/root',
      }),
    ).toEqual({
      databaseUrl: 'postgresql://u:p@db:5432/assay',
      dataDir: '/var/lib/assay',
      port: 9000,
      adminToken: 'a-long-enough-admin-token',
      openaiApiKey: 'sk-test',
      openaiBaseUrl: 'http://localhost:11434/v1',
      judgeModel: 'gpt-4o-mini',
    });
    expect(loadConfig({ DATABASE_URL: '', PORT: ' ' })).toEqual({
      dataDir: './.assay',
      port: 8080,
    });
    // ASSAY_SERVER_WORKER: 1 or 0; absent leaves it to whether an endpoint is configured.
    expect(loadConfig({ ASSAY_SERVER_WORKER: '0' }).serverWorker).toBe(false);
    expect(loadConfig({ ASSAY_SERVER_WORKER: '1' }).serverWorker).toBe(true);
    expect(loadConfig({ ASSAY_SERVER_WORKER: '' }).serverWorker).toBeUndefined();
    // HOST: absent leaves the server on 127.0.0.1; anything but a host or address is refused.
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({}).host).toBeUndefined();
    expect(() => loadConfig({ HOST: 'a b' })).toThrow(/HOST must be a host name/);
  });

  it('names the bad variable and never echoes its value', () => {
    const bad: Array<[Record<string, string>, string, string]> = [
      [{ PORT: 'eighty' }, 'PORT', 'eighty'],
      [{ PORT: '0' }, 'PORT', '0'],
      [{ PORT: '65536' }, 'PORT', '65536'],
      [{ PORT: '80.5' }, 'PORT', '80.5'],
      [{ DATABASE_URL: 'mysql://root:hunter2@db/assay' }, 'DATABASE_URL', 'hunter2'],
      [{ ASSAY_ADMIN_TOKEN: 'short-secret' }, 'ASSAY_ADMIN_TOKEN', 'short-secret'],
      [{ OPENAI_BASE_URL: 'ftp://secret-host' }, 'OPENAI_BASE_URL', 'secret-host'],
      [{ ASSAY_SERVER_WORKER: 'yes-please' }, 'ASSAY_SERVER_WORKER', 'yes-please'],
    ];
    for (const [env, variable, value] of bad) {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as Error).message.startsWith(`${variable} `)).toBe(true);
      expect((error as Error).message).not.toContain(value);
    }
  });
});

describe('openDatabase and migrateDatabase', () => {
  it('put embedded PGlite under ASSAY_DATA_DIR and migrate it', async () => {
    const config = loadConfig({ ASSAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'assay-config-')) });
    const first = await migrateDatabase(config);
    expect(first.kind).toBe('pglite');
    expect(first.applied[0]).toBe('0001_create_core_tables.sql');
    const again = await migrateDatabase(config);
    expect(again.applied).toEqual([]);
    expect(again.skipped).toEqual(first.applied);
    const opened = await openDatabase(config);
    try {
      expect(await listCollections(opened.db)).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);

  it.skipIf(!testDatabaseUrl())(
    'use PostgreSQL when DATABASE_URL is set',
    async () => {
      const schema = await createIsolatedSchema(testDatabaseUrl()!);
      try {
        const config = loadConfig({ DATABASE_URL: schema.url });
        const first = await migrateDatabase(config);
        expect(first.kind).toBe('postgres');
        expect(first.applied[0]).toBe('0001_create_core_tables.sql');
        expect((await migrateDatabase(config)).applied).toEqual([]);
      } finally {
        await schema.drop();
      }
    },
    120_000,
  );
});
