// The run parser's number fast path must agree with Number() bit for bit.
import { describe, expect, it } from 'vitest';
import { parseDecimal, parseDecimalRange, parseInteger } from '../src/lines.js';
import { seededRandom } from '@assay/test-support/seeded';

const inRange = (field: string): number => parseDecimalRange(`<${field}>`, 1, field.length + 1);

describe('parseDecimalRange', () => {
  it('equals Number() on 20,000 random decimals of every length', () => {
    const next = seededRandom(20240601);
    for (let i = 0; i < 20_000; i++) {
      const intDigits = Math.floor(next() * 12);
      const fracDigits = Math.floor(next() * 24);
      let field = next() < 0.3 ? '-' : next() < 0.1 ? '+' : '';
      for (let d = 0; d < intDigits; d++) field += Math.floor(next() * 10);
      if (fracDigits > 0 || intDigits === 0) field += '.';
      for (let d = 0; d < fracDigits; d++) field += Math.floor(next() * 10);
      if (intDigits === 0 && fracDigits === 0) field += '0';
      const expected = Number(field);
      const got = inRange(field);
      expect(Object.is(got, expected), `${field}: ${got} vs ${expected}`).toBe(true);
    }
  });

  it('equals Number() on the shortest forms of random doubles', () => {
    const next = seededRandom(7);
    for (let i = 0; i < 20_000; i++) {
      const value = (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
      const field = String(value);
      expect(inRange(field)).toBe(value);
    }
  });

  it.each([
    ['2.5', 2.5],
    ['-1e-3', -0.001],
    ['1E5', 100000],
    ['.5', 0.5],
    ['5.', 5],
    ['007', 7],
    ['0.1', 0.1],
    ['9007199254740993', 9007199254740992],
    ['0.0000000000000000000000001', 1e-25],
  ])('reads %s', (field, value) => {
    expect(inRange(field)).toBe(value);
  });

  it.each([
    'abc',
    'NaN',
    'Infinity',
    '-Infinity',
    '1abc',
    '0x1A',
    '0b1',
    '0o7',
    '.',
    '-',
    '+',
    '1.2.3',
    '1e',
    '1_000',
  ])('rejects %s', (field) => {
    expect(inRange(field)).toBeNaN();
    expect(parseDecimal(field)).toBeNaN();
  });

  it('rejects the empty string', () => {
    expect(parseDecimal('')).toBeNaN();
    expect(parseDecimalRange('x', 0, 0)).toBeNaN();
  });
});

describe('parseInteger', () => {
  it.each([
    ['0', 0],
    ['-1', -1],
    ['+2', 2],
    ['0042', 42],
    ['1000000', 1000000],
  ])('reads %s', (field, value) => {
    expect(parseInteger(field, 0, field.length)).toBe(value);
  });

  it.each(['', '-', '1.0', '1e3', 'x', '1x', ' 1', '0x10'])('rejects %j', (field) => {
    expect(parseInteger(field, 0, field.length)).toBeNaN();
  });
});
