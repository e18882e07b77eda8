// `assay worker`'s summary counts what exists: items a dead worker on another machine still
// holds under its lease, and pending items of jobs this worker does not take, each named with
// why. Against the OpenAI-compatible TEST DOUBLE (never a judge), on both databases.
import { expect, it } from 'vitest';
import { queryRows } from '@assay/platform/testing';
import { describeOnEngines, withDatabase } from './cli-fixtures.js';
import { gradedAnswer, judgeArgs, POOL_SIZE, writeJudgeFixtures } from './judge-fixtures.js';
import { assay } from './run-cli.js';

describeOnEngines(
  'assay worker: what it leaves',
  { prefix: 'assay-worker-left-', timeout: 120_000 },
  (w) => {
    it('names the items other workers hold and the jobs it does not take, and exits 0', async () => {
      const files = writeJudgeFixtures(w.dir);
      const s = await w.double.start((body) => gradedAnswer(body));
      const here = `${s.baseURL}`;
      const elsewhere = 'http://127.0.0.1:9/v1';
      const enqueue = (out: string, baseUrl: string, ...extra: string[]) =>
        assay(
          w.env,
          'judge',
          ...judgeArgs(files, w.path(out)),
          '--enqueue',
          '--base-url',
          baseUrl,
          ...extra,
        );
      // Job 1 at this worker's endpoint, job 2 at another, job 3 kept by its `assay judge` run.
      expect((await enqueue('here.qrels', here)).code).toBe(0);
      expect((await enqueue('elsewhere.qrels', elsewhere)).code).toBe(0);
      await withDatabase(w.env, async (db) => {
        // A worker on another machine claimed two items of job 1 and died: its lease runs on.
        await queryRows(
          db,
          `update judge_tasks set status = 'running', lease_owner = 'other-host:4242:dead',
                lease_expires_at = now() + interval '10 minutes', attempts = 1
          where job_id = 1 and doc_id in ('D0', 'D1')`,
        );
      });
      // Job 3 as an `assay judge` run without --enqueue keeps it: for itself.
      expect((await enqueue('kept.qrels', here, '--model', 'gpt-4.1-nano')).code).toBe(0);
      await withDatabase(w.env, (db) =>
        queryRows(db, `update judge_jobs set open_to_workers = false where id = 3`),
      );

      const r = await assay(w.env, 'worker', '--base-url', here);
      expect(r.stdout).toContain(`labelled ${POOL_SIZE - 2}, failed 0`);
      expect(s.requests).toHaveLength(POOL_SIZE - 2);
      expect(r.stderr).toMatch(
        /assay worker: 2 items not judged yet: other workers hold them under their leases \(job 1\), the last lease ending in (\d+) s; a dead worker's items are taken over once its lease ends: run again then, or keep a worker running with --follow\n/,
      );
      const seconds = Number(/the last lease ending in (\d+) s/.exec(r.stderr)![1]);
      expect(seconds).toBeGreaterThan(500);
      expect(seconds).toBeLessThanOrEqual(600);
      expect(r.stderr).toContain(
        `assay worker: ${2 * POOL_SIZE} pending items this worker does not take: ` +
          `job 2 (${POOL_SIZE} items): judged at ${elsewhere}, and this worker calls ${here}; ` +
          `job 3 (${POOL_SIZE} items): kept by its 'assay judge' run (take it with --job 3)\n`,
      );
      // Nothing is left that this worker may claim (other workers hold the rest, and the
      // dead worker's items are claimed again once its lease ends, below): exit 0.
      expect(r.code).toBe(0);

      // Once the dead worker's lease has ended the next run takes its items over, and a
      // worker that takes nothing more and leaves nothing held exits 0, still naming the
      // jobs it does not take.
      await withDatabase(w.env, (db) =>
        queryRows(
          db,
          `update judge_tasks set lease_expires_at = now() - interval '1 second' where job_id = 1 and status = 'running'`,
        ),
      );
      const again = await assay(w.env, 'worker', '--base-url', here);
      expect(again.stdout).toContain('labelled 2, failed 0');
      expect(again.stderr).not.toContain('other workers hold');
      expect(again.stderr).toContain(`pending items this worker does not take`);
      expect(again.code).toBe(0);
    });
  },
);
