import { describe, expect, it } from 'vitest';
import { TrecFormatError } from '@assay/trec';
import { refuseNulYielding, slicesYielding } from '../src/core/text-slices.js';

async function collect(slices: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const slice of slices) all.push(slice);
  return all;
}

const SLICE = 256 * 1024;

describe('slicesYielding', () => {
  it('cuts a long text into 256K-character slices that join back to it', async () => {
    const text = 'x'.repeat(SLICE * 2 + 5);
    const slices = await collect(slicesYielding(text));
    expect(slices.map((s) => s.length)).toEqual([SLICE, SLICE, 5]);
    expect(slices.join('')).toBe(text);
  });

  it('gathers short parts and cuts long ones, keeping their order', async () => {
    const small = 'a'.repeat(100_000);
    const parts = [small, small, small, 'b'.repeat(SLICE + 1), 'c', ''];
    const slices = await collect(slicesYielding(parts));
    // 300,000 characters of a reach a slice; the long part is cut; the tail ends it.
    expect(slices.map((s) => s.length)).toEqual([300_000, SLICE, 1, 1]);
    expect(slices.join('')).toBe(parts.join(''));
  });

  it('lets a timer run between two slices', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    for await (const slice of slicesYielding(['x'.repeat(SLICE), 'y'.repeat(SLICE)]))
      order.push(slice[0]!);
    expect(order).toEqual(['x', 'other work', 'y']);
  });
});

describe('refuseNulYielding', () => {
  it('names the line of the first NUL, counting the lines of earlier parts', async () => {
    const parts = ['1 a\n2 b\n3', ' c\n4 d', '\n5 e\0\n6 \0'];
    const error = await refuseNulYielding(parts, 'f').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrecFormatError);
    expect((error as TrecFormatError).message).toBe(
      'f:5: the line contains a NUL character (byte 0)',
    );
    await expect(refuseNulYielding('a\nb\0', 'g')).rejects.toThrow('g:2:');
    await expect(refuseNulYielding(['a\n', 'b\n'], 'g')).resolves.toBeUndefined();
  });
});
