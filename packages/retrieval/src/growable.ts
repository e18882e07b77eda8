/** A typed array that grows as values are appended (used while building an index). */
export class GrowableUint32 {
  private data: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Adds `by` to the value at `index`, growing (with zeros) to reach it. */
  increment(index: number, by = 1): void {
    if (index >= this.data.length) this.grow(index + 1);
    if (index >= this.length) this.length = index + 1;
    this.data[index]! += by;
  }

  /** A copy of the values, exactly `length` long. */
  toArray(): Uint32Array {
    return this.data.slice(0, this.length);
  }

  private grow(minimum: number): void {
    let size = this.data.length * 2;
    while (size < minimum) size *= 2;
    const next = new Uint32Array(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}
