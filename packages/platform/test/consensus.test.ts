import { getLabelGrades, listLabels } from '@assay/db';
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { createConsensusLabelSet, importCollection, importQrels } from '../src/index.js';
import { countRows, rejection } from './helpers.js';

// By hand, over three judges:  item  A  B  C   majority  median
//                               1/a   0  1  1   1         1
//                               1/b   3  2  0   0 (tie)   2
//                               2/c   2  .  3   2 (tie)   2 (lower median)
const A = '1 0 a 0\n1 0 b 3\n2 0 c 2\n';
const B = '1 0 a 1\n1 0 b 2\n';
const C = '1 0 a 1\n1 0 b 0\n2 0 c 3\n';

forEachDatabase('createConsensusLabelSet', (t) => {
  beforeEach(async () => {
    await importCollection(t.db, { name: 'c', format: 'tsv', file: 'd', text: 'a\tx\n' });
    for (const [name, text] of [
      ['A', A],
      ['B', B],
      ['C', C],
    ] as const)
      await importQrels(t.db, { collection: 'c', labelSet: name, file: `${name}.qrels`, text });
  });

  it('stores the majority grade of each item as a consensus label set', async () => {
    const r = await createConsensusLabelSet(t.db, {
      collection: 'c',
      name: 'panel',
      labelSets: ['A', 'B', 'C'],
      method: 'majority',
    });
    expect(r).toMatchObject({
      name: 'panel',
      labels: 3,
      disputed: 3,
      tieBroken: 2,
      tooFewVotes: 0,
    });
    const grades = await getLabelGrades(t.db, r.labelSetId);
    expect([...grades].map(([q, d]) => [q, [...d]])).toEqual([
      [
        '1',
        [
          ['a', 1],
          ['b', 0],
        ],
      ],
      ['2', [['c', 2]]],
    ]);
    const labels = await listLabels(t.db, r.labelSetId);
    expect(labels.every((l) => l.producedBy === 'consensus:majority')).toBe(true);
    const row = await t.db
      .selectFrom('label_sets')
      .selectAll()
      .where('id', '=', r.labelSetId)
      .executeTakeFirstOrThrow();
    expect(row.kind).toBe('consensus');
    expect(row.config).toMatchObject({ method: 'majority', tie: 'low', minVotes: 1 });
    expect(
      (row.config as { labelSets: Array<{ name: string }> }).labelSets.map((s) => s.name),
    ).toEqual(['A', 'B', 'C']);
  });

  it('median with two votes required', async () => {
    const r = await createConsensusLabelSet(t.db, {
      collection: 'c',
      name: 'median',
      labelSets: ['A', 'B', 'C'],
      method: 'median',
      minVotes: 3,
    });
    expect(r.labels).toBe(2);
    expect(r.tooFewVotes).toBe(1);
    const grades = await getLabelGrades(t.db, r.labelSetId);
    expect(grades.get('1')?.get('b')).toBe(2);
    expect(grades.get('2')).toBeUndefined();
  });

  it('refuses a taken name, unknown sets and bad options, writing nothing', async () => {
    const before = await countRows(t.db, 'label_sets');
    const base = { collection: 'c', labelSets: ['A', 'B'], method: 'mean' as const };
    expect((await rejection(createConsensusLabelSet(t.db, { ...base, name: 'A' }))).code).toBe(
      'conflict',
    );
    expect(
      (
        await rejection(
          createConsensusLabelSet(t.db, { ...base, name: 'x', labelSets: ['A', 'Z'] }),
        )
      ).code,
    ).toBe('not_found');
    expect(
      (await rejection(createConsensusLabelSet(t.db, { ...base, name: 'x', labelSets: ['A'] })))
        .code,
    ).toBe('invalid_input');
    expect(
      (
        await rejection(
          createConsensusLabelSet(t.db, { ...base, name: 'x', labelSets: ['A', 'A'] }),
        )
      ).code,
    ).toBe('invalid_input');
    expect(
      (await rejection(createConsensusLabelSet(t.db, { ...base, name: 'x', minVotes: 3 }))).code,
    ).toBe('invalid_input');
    expect(await countRows(t.db, 'label_sets')).toBe(before);
  });
});
