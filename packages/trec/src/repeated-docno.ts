// Finding the first repeated docno among entries stored as UTF-8 bytes back to back (the
// columns of runs and qrels read from bytes), with a hash table over the bytes.

/** FNV-1a hash of `bytes[start..end)`, for hash tables keyed by docno bytes. */
export function hashDocno(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}

/**
 * Indexes [earlier, later] of the first entry, in storage order, whose docno repeats an
 * earlier one; entry i's docno is `docBytes[docEnds[i - 1] .. docEnds[i])`.
 */
export function firstRepeatedDocno(
  docBytes: Uint8Array,
  docEnds: Uint32Array,
  length: number,
): [number, number] | undefined {
  let size = 16;
  while (size < length * 2) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size).fill(-1);
  const hashes = new Int32Array(length);
  for (let i = 0; i < length; i++) {
    const aStart = i === 0 ? 0 : docEnds[i - 1]!;
    const h = hashDocno(docBytes, aStart, docEnds[i]!);
    hashes[i] = h;
    let slot = h & mask;
    for (;;) {
      const j = table[slot]!;
      if (j === -1) break;
      if (hashes[j] === h) {
        const bStart = j === 0 ? 0 : docEnds[j - 1]!;
        const len = docEnds[i]! - aStart;
        if (docEnds[j]! - bStart === len) {
          let k = 0;
          while (k < len && docBytes[aStart + k] === docBytes[bStart + k]) k++;
          if (k === len) return [j, i];
        }
      }
      slot = (slot + 1) & mask;
    }
    table[slot] = i;
  }
  return undefined;
}
