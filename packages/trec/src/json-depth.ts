// JSON read from uploaded lines is stored as JSON and walked by code that recurses: anything
// nested deeper than a document plausibly needs, or holding a NUL character (`\u0000`, which
// no database text or JSON column takes), is refused at parse time.

/** How deep a JSONL line's objects and arrays may nest. */
export const MAX_JSON_DEPTH = 100;

/**
 * Why a parsed JSONL line (`what`: "document", "topic") cannot be stored, or undefined:
 * nested deeper than {@link MAX_JSON_DEPTH}, or a string or key holding a NUL character.
 * Walked without recursion.
 */
export function unstorableJson(value: unknown, what: string): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) return `the ${what} contains a NUL character (\\u0000)`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH)
      return `the ${what} is nested more than ${MAX_JSON_DEPTH} levels deep`;
    for (const [key, child] of Object.entries(v)) {
      if (key.includes('\0')) return `the ${what} contains a NUL character (\\u0000)`;
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}
