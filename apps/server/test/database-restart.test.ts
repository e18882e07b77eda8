// `assay serve` over a PostgreSQL cluster this test starts itself (initdb and pg_ctl on a
// free port, as the postgres OS user when run as root; never the machine's shared server),
// restarted while annotators save labels and the server's worker judges a job with the
// OpenAI-compatible TEST DOUBLE (never a judge). The server stays up, answers 503 while the
// database is down, recovers, and keeps every acknowledged save and every answered call.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, queryRows } from '@assay/platform/testing';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { ensureCliBundle, freePort, killStartedAssays, startAssay } from './assay-process.js';

const run = promisify(execFile);
const ADMIN = 'assay_restart-test-admin-token';

/** The newest PostgreSQL server binaries on this machine, if any. */
function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0]!, 'bin') : undefined;
}

const bin = postgresBinDir();
/** initdb refuses root: as root the cluster belongs to the postgres OS user. */
const asRoot = process.getuid?.() === 0;

/** A PostgreSQL cluster of this test's own. */
class Cluster {
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private ctl(...args: string[]) {
    const command = join(bin!, 'pg_ctl');
    const full = ['-D', join(this.dir, 'data'), ...args];
    return asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...full]) : run(command, full);
  }

  static async create(): Promise<Cluster> {
    const dir = mkdtempSync(join(tmpdir(), 'assay-pg-restart-'));
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(dir, uid, gid);
    }
    const initdb = join(bin!, 'initdb');
    const args = ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'];
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', initdb, ...args]);
    else await run(initdb, args);
    const cluster = new Cluster(dir, await freePort());
    await cluster.start();
    return cluster;
  }

  start() {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    return this.ctl('-w', '-t', '120', '-o', options, '-l', join(this.dir, 'log'), 'start');
  }

  /** Stops the server: `fast` ends sessions cleanly, `immediate` drops them at once. */
  stop(mode: 'fast' | 'immediate') {
    return this.ctl('-w', '-t', '120', '-m', mode, 'stop');
  }

  async remove(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe.skipIf(!bin)('assay serve through PostgreSQL restarts', () => {
  let cluster: Cluster | undefined;
  let llm: TestServer | undefined;
  const dirs: string[] = [];

  beforeAll(ensureCliBundle);
  afterEach(async () => {
    killStartedAssays();
    await llm?.close();
    llm = undefined;
  });
  afterAll(async () => {
    await cluster?.remove();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('stays up, answers 503 while the database is down, recovers, and keeps every acknowledged save and answered call; SIGTERM puts unfinished items back', async () => {
    cluster = await Cluster.create();
    // Each "passage N" answers grade N mod 4 after a short delay, so the job is in progress
    // when the database goes down; "passage 0" (judged last) never answers in time.
    llm = await startOpenAITestServer((body) => {
      const prompt = (body.messages as Array<{ content: string }>).at(-1)!.content;
      const n = Number(/passage (\d+)/.exec(prompt)![1]);
      const reply = JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: n % 4 });
      return n === 0 ? { delayMs: 600_000, then: { reply } } : { delayMs: 150, then: { reply } };
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'assay-restart-data-'));
    dirs.push(dataDir);
    const port = await freePort();
    const assay = await startAssay({
      DATABASE_URL: cluster.url,
      ASSAY_DATA_DIR: dataDir,
      ASSAY_ADMIN_TOKEN: ADMIN,
      PORT: String(port),
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-restart-test',
    });
    const call = async (method: string, path: string, body?: unknown, token = ADMIN) => {
      const init: RequestInit = { method, headers: { authorization: `Bearer ${token}` } };
      if (typeof body === 'string') init.body = body;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        init.headers = { ...init.headers, 'content-type': 'application/json' };
      }
      const response = await fetch(`${assay.url}${path}`, init);
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };

    // A collection of 60 passages over 3 topics, an annotator's campaign over 12 of them.
    const docs = Array.from({ length: 60 }, (_, k) => `d${k}\tpassage ${k}`).join('\n');
    expect((await call('POST', '/collections?name=restart&format=tsv', `${docs}\n`)).status).toBe(
      201,
    );
    const topics = '1\tfirst query\n2\tsecond query\n3\tthird query\n';
    expect((await call('POST', '/collections/restart/topics', topics)).status).toBe(201);
    const user = await call('POST', '/users', { name: 'ada', role: 'annotator' });
    expect(user.status).toBe(201);
    const ada = user.json.token as string;
    const campaign = await call('POST', '/collections/restart/campaigns', {
      name: 'restart-campaign',
      judge: 'graded-0-3',
      annotators: ['ada'],
      items: Array.from({ length: 12 }, (_, k) => ({ topic: String(1 + (k % 3)), docno: `d${k}` })),
    });
    expect(campaign.status).toBe(201);
    const campaignId = campaign.json.id as number;
    const itemIds: number[] = [];
    for (let k = 0; k < 12; k++) {
      const next = await call('GET', `/campaigns/${campaignId}/next`, undefined, ada);
      const id = (next.json.item as { id: number }).id;
      itemIds.push(id);
      expect((await call('POST', `/campaigns/${campaignId}/skip`, { item: id }, ada)).status).toBe(
        200,
      );
    }

    // The annotator saves grade after grade, all through the restarts; every 201 is an
    // acknowledged save, anything else is not. Each visit to an item gives it another grade
    // than the visit before. A save of the grade the item already has writes no revision
    // (it is taken as one sent again), and a save answered 503 may or may not have been
    // stored; so a save is surely a new revision when it is acknowledged and the visit
    // before it (if any) was acknowledged with another grade.
    let saving = true;
    const saves = { acknowledged: 0, unavailable: 0, other: 0, surelyNew: 0 };
    const lastVisit = new Map<number, { grade: number; acknowledged: boolean }>();
    const statuses = new Set<number>();
    const annotator = (async () => {
      for (let i = 0; saving; i++) {
        try {
          const r = await call(
            'POST',
            `/campaigns/${campaignId}/labels`,
            {
              item: itemIds[i % itemIds.length],
              grade: ((i % itemIds.length) + Math.floor(i / itemIds.length)) % 4,
              seconds: 1,
            },
            ada,
          );
          statuses.add(r.status);
          const item = itemIds[i % itemIds.length]!;
          const grade = ((i % itemIds.length) + Math.floor(i / itemIds.length)) % 4;
          const before = lastVisit.get(item);
          lastVisit.set(item, { grade, acknowledged: r.status === 201 });
          if (r.status === 201 && (!before || (before.acknowledged && before.grade !== grade)))
            saves.surelyNew++;
          if (r.status === 201) saves.acknowledged++;
          else if (r.status === 503) saves.unavailable++;
          else saves.other++;
        } catch {
          saves.other++;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    // A judge job over 48 items, judged by the server's own worker.
    const items = Array.from({ length: 48 }, (_, k) => ({
      topicId: String(1 + (k % 3)),
      docId: `d${k + 12}`,
    }));
    const created = await call('POST', '/collections/restart/judge-jobs', {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'test-model' },
      items,
    });
    expect(created.status).toBe(201);
    const jobId = created.json.id as number;
    const waitFor = async (what: string, done: () => Promise<boolean>) => {
      const deadline = Date.now() + 180_000;
      while (!(await done())) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}:\n${assay.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await waitFor('the job to start', async () => llm!.delivered.length >= 5);

    // Restart 1: a fast restart in the middle of the job and the saves.
    await cluster.stop('fast');
    const downAnswer = await call('GET', '/collections');
    expect(downAnswer.status).toBe(503);
    expect(downAnswer.json).toMatchObject({ error: { code: 'unavailable' } });
    await cluster.start();
    await waitFor(
      'the database to answer',
      async () => (await call('GET', '/collections')).status === 200,
    );

    // Restart 2: sessions dropped at once, the database down for a while.
    await waitFor('more answers', async () => llm!.delivered.length >= 20);
    await cluster.stop('immediate');
    const whileDown: number[] = [];
    for (let i = 0; i < 10; i++) {
      whileDown.push((await call('GET', '/collections')).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(whileDown.every((status) => status === 503)).toBe(true);
    expect(assay.child.exitCode).toBeNull();
    await cluster.start();

    const progressOf = async () =>
      (await call('GET', `/judge-jobs/${jobId}`)).json.progress as Record<string, number>;
    await waitFor('the job to finish', async () => {
      const r = await call('GET', `/judge-jobs/${jobId}`);
      return r.status === 200 && (r.json.progress as { labelled: number }).labelled === 48;
    });
    saving = false;
    await annotator;
    expect(assay.child.exitCode).toBeNull();
    expect(await progressOf()).toMatchObject({ total: 48, labelled: 48, failed: 0, running: 0 });
    // Saves were answered 201, or 503 while the database was down; nothing else.
    expect([...statuses].sort()).toEqual([201, 503]);
    expect(saves.other).toBe(0);
    expect(saves.unavailable).toBeGreaterThan(0);

    const db = await openTestDatabase({ databaseUrl: cluster.url, migrate: false });
    try {
      // Every acknowledged save is stored. A save whose connection dropped while its commit
      // was on the way may have been stored without its 201 reaching the client: stored
      // revisions are at least the saves that surely made one and at most the ones sent.
      const [{ n: stored }] = (await queryRows<{ n: number }>(
        db.db,
        `select count(*)::int as n from label_revisions r join users u on u.id = r.user_id where u.name = 'ada' and r.grade is not null`,
      )) as [{ n: number }];
      expect(saves.surelyNew).toBeGreaterThan(saves.acknowledged / 2);
      expect(stored).toBeGreaterThanOrEqual(saves.surelyNew);
      expect(stored).toBeLessThanOrEqual(saves.acknowledged + saves.unavailable);
      // Every answered LLM call is stored, once; no item's call was answered twice.
      const answered = await queryRows<{ hash: string }>(
        db.db,
        'select hash from llm_calls where response is not null',
      );
      expect(answered).toHaveLength(llm.delivered.length);
      expect(llm.delivered).toHaveLength(48);
      expect(new Set(answered.map((c) => c.hash)).size).toBe(48);
      console.log(
        `restart test: saves acknowledged ${saves.acknowledged}, stored ${stored}, answered 503 ${saves.unavailable}; ` +
          `LLM calls answered ${llm.delivered.length}, stored ${answered.length}; labels 48 of 48`,
      );

      // SIGTERM while a call is in flight: the server stops without waiting for it (5 s of
      // grace), puts the item back to pending with no lease, and exits 0.
      const more = await call('POST', '/collections/restart/judge-jobs', {
        labelSet: 'llm',
        judge: 'graded-0-3',
        settings: { model: 'test-model' },
        items: [{ topicId: '1', docId: 'd0' }],
      });
      expect(more.status).toBe(200);
      await waitFor('the hanging call', async () =>
        llm!.requests.some((r) =>
          /passage 0(?!\d)/.test((r.body.messages as Array<{ content: string }>).at(-1)!.content),
        ),
      );
      const before = llm.requests.length;
      expect(await assay.stop('SIGTERM')).toBe(0);
      expect(llm.requests).toHaveLength(before);
      const [task] = await queryRows<{ status: string; lease_owner: string | null }>(
        db.db,
        `select status, lease_owner from judge_tasks where job_id = ${jobId} and doc_id = 'd0'`,
      );
      expect(task).toEqual({ status: 'pending', lease_owner: null });
    } finally {
      await db.close();
    }
  }, 400_000);
});
