import { describe, expect, it } from 'vitest';
import { checkSchema } from '../src/index.js';

describe('checkSchema', () => {
  const list = {
    type: 'object',
    required: ['nuggets'],
    properties: { nuggets: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 } },
  };

  it('checks lists: their items, and how many there are', () => {
    expect(checkSchema({ nuggets: ['a', 'b'] }, list, '$')).toBeUndefined();
    expect(checkSchema({ nuggets: 'a' }, list, '$')).toBe('$.nuggets must be a list');
    expect(checkSchema({ nuggets: ['a', 3] }, list, '$')).toBe('$.nuggets[1] must be a string');
    expect(checkSchema({ nuggets: [] }, list, '$')).toBe('$.nuggets must have at least 1 items');
    expect(checkSchema({ nuggets: ['a', 'b', 'c'] }, list, '$')).toBe(
      '$.nuggets must have at most 2 items',
    );
  });

  it('checks an enum of labels under numbered keys', () => {
    const labels = {
      type: 'object',
      additionalProperties: false,
      required: ['1', '2'],
      properties: {
        1: { type: 'string', enum: ['support', 'not_support'] },
        2: { type: 'string', enum: ['support', 'not_support'] },
      },
    };
    expect(checkSchema({ 1: 'support', 2: 'not_support' }, labels, '$')).toBeUndefined();
    expect(checkSchema({ 1: 'support' }, labels, '$')).toBe('$.2 is missing');
    expect(checkSchema({ 1: 'yes', 2: 'support' }, labels, '$')).toBe(
      '$.1 must be one of ["support","not_support"]',
    );
    expect(checkSchema({ 1: 'support', 2: 'support', 3: 'support' }, labels, '$')).toBe(
      '$.3 is not expected',
    );
  });
});
