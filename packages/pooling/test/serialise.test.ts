import { describe, expect, it } from 'vitest';
import { buildDepthPool, formatPool, poolFromJson, poolToJson } from '../src/index.js';
import { runs } from './fixtures.js';

describe('pool serialisation', () => {
  it('writes topic<TAB>docno lines in judging order', () => {
    expect(formatPool(buildDepthPool(runs, { depth: 1 }))).toBe(
      '1\td1\n2\te1\n1\td5\n2\te3\n1\td9\n2\te4\n',
    );
    expect(formatPool(buildDepthPool(runs, { depth: 1, perTopicCap: 0 }))).toBe('');
  });

  it('round-trips through JSON', () => {
    const pool = buildDepthPool(runs, { depth: 3, order: 'rrf', perTopicCap: 5 });
    const json = poolToJson(pool);
    expect(json).toEqual(pool);
    expect(json.items[0]).not.toBe(pool.items[0]);
    expect(poolFromJson(JSON.parse(JSON.stringify(json)))).toEqual(pool);
    expect(poolFromJson(JSON.parse(JSON.stringify(pool)))).toEqual(pool);
  });

  it('rejects malformed pool JSON with the offending path', () => {
    const good = JSON.parse(JSON.stringify(buildDepthPool(runs, { depth: 2 })));
    expect(() => poolFromJson(null)).toThrow('pool JSON: pool must be an object');
    expect(() => poolFromJson({ ...good, parameters: { ...good.parameters, order: 'x' } })).toThrow(
      'parameters.order',
    );
    const swapped = structuredClone(good);
    swapped.items[1].priority = 0;
    expect(() => poolFromJson(swapped)).toThrow('items[1].priority must be 1');
    const unknownTopic = structuredClone(good);
    unknownTopic.items[0].topic = '9';
    expect(() => poolFromJson(unknownTopic)).toThrow('items[0].topic must be one of topics');
    const short = structuredClone(good);
    short.items[0].ranks = [];
    expect(() => poolFromJson(short)).toThrow('items[0].ranks must be as long as contributingRuns');
  });
});
