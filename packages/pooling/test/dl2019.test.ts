import { readFileSync, readdirSync } from 'node:fs';
import { SHARED_DATA, missingSharedFile } from '@assay/test-support/shared-data';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDepthPool, poolStats } from '../src/index.js';
import { parseRun } from './trec-text.js';

const dir = `${SHARED_DATA.replace(/\/$/, '')}/syndl/TREC-DLs-files/TREC-DL-2019/passages-runs`;
const present = !missingSharedFile(dir);
const note = present ? '' : ` (skipped: ${dir} is absent)`;

describe('TREC DL 2019 passage runs', () => {
  it.skipIf(!present)(`depth-10 pool equals the union of each run’s top 10${note}`, () => {
    const runs = readdirSync(dir)
      .sort()
      .map((file) => parseRun(readFileSync(join(dir, file), 'utf8')));
    expect(runs).toHaveLength(3);

    // The simplest union: per run per topic, sort by score desc then docno desc, take 10.
    const union = new Set<string>();
    for (const run of runs) {
      for (const [topic, entries] of run.topics) {
        const sorted = [...entries].sort((a, b) =>
          a.score !== b.score ? b.score - a.score : a.docno < b.docno ? 1 : -1,
        );
        for (const e of sorted.slice(0, 10)) union.add(`${topic}\t${e.docno}`);
      }
    }

    const pool = buildDepthPool(runs, { depth: 10 });
    const pooled = pool.items.map((i) => `${i.topic}\t${i.docno}`);
    expect(new Set(pooled).size).toBe(pooled.length);
    expect(new Set(pooled)).toEqual(union);
    expect(pool.topics).toHaveLength(200);
    expect(poolStats(pool, runs).total).toBe(union.size);
  });
});
