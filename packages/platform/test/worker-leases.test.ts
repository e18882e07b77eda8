// A rerun releases the leases of this machine's workers whose process is gone, a worker
// killed while its parent does not reap it (a zombie) included; live workers and workers of
// other machines keep theirs.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  claimJudgeTasks,
  createCollection,
  createJudgeJob,
  createLabelSet,
  insertJudgeTasks,
  listJudgeLeaseOwners,
} from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { killToZombie, startUnreapedChild } from '@assay/test-support/processes';
import { releaseDeadLocalLeases } from '../src/index.js';

forEachDatabase('releaseDeadLocalLeases', (t) => {
  it.skipIf(!existsSync('/proc/self/stat'))(
    'releases a killed worker’s leases while its parent has not reaped it',
    async () => {
      const collection = await createCollection(t.db, { name: 'c' });
      const labelSet = await createLabelSet(t.db, {
        collectionId: collection.id,
        name: 'llm',
        kind: 'llm_judge',
        scaleMin: 0,
        scaleMax: 3,
      });
      const job = await createJudgeJob(t.db, {
        labelSetId: labelSet.id,
        judgeId: 'graded-0-3',
        template: { id: 'graded-0-3' },
        templateHash: 'a'.repeat(64),
        settings: { model: 'm' },
      });
      await insertJudgeTasks(
        t.db,
        job.id,
        ['d1', 'd2', 'd3'].map((docId, position) => ({
          topicId: '1',
          docId,
          position,
          values: { query: 'q', passage: docId },
        })),
      );
      const worker = await startUnreapedChild([
        '-e',
        "process.stdout.write('up\\n'); setInterval(() => {}, 60_000)",
      ]);
      try {
        const killed = `${hostname()}:${worker.pid}:dead`;
        // The test's own parent runs; another machine's worker cannot be checked.
        const live = `${hostname()}:${process.ppid}:live`;
        const remote = 'elsewhere.example:12345:away';
        for (const owner of [killed, live, remote])
          await claimJudgeTasks(t.db, { owner, leaseMs: 600_000, limit: 1 });
        await killToZombie(worker.pid);
        expect(await releaseDeadLocalLeases(t.db)).toBe(1);
        const left = (await listJudgeLeaseOwners(t.db)).map((o) => `${o.owner} ${o.tasks}`);
        expect(left.sort()).toEqual([`${live} 1`, `${remote} 1`].sort());
      } finally {
        await worker.reap();
      }
    },
  );
});
