// JSON read from uploaded lines is stored as JSON and walked by code that recurses: anything
// nested deeper than a document plausibly needs, or holding a NUL character (`\u0000`, which
// no database text or JSON column takes), is refused at parse time. So is an escape of half
// a UTF-16 surrogate pair (`\ud800` alone): no character, it would be stored as U+FFFD.

/** How deep a JSONL line's objects and arrays may nest. */
export const MAX_JSON_DEPTH = 100;

/** A surrogate not in a pair (with the `u` flag, a whole pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why string `s` of a `what` cannot be stored, or undefined. */
function unstorableString(s: string, what: string): string | undefined {
  if (s.includes('\0')) return `the ${what} contains a NUL character (\\u0000)`;
  const half = LONE_SURROGATE.exec(s);
  if (half)
    return `the ${what} holds the escape \\u${half[0].charCodeAt(0).toString(16)}, half of a UTF-16 surrogate pair without the other half (no character)`;
  return undefined;
}

/**
 * Why a parsed JSONL line (`what`: "document", "topic") cannot be stored, or undefined:
 * nested deeper than {@link MAX_JSON_DEPTH}, or a string or key holding a NUL character or
 * half a surrogate pair. Walked without recursion.
 */
export function unstorableJson(value: unknown, what: string): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = unstorableString(v, what);
      if (problem !== undefined) return problem;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH)
      return `the ${what} is nested more than ${MAX_JSON_DEPTH} levels deep`;
    for (const [key, child] of Object.entries(v)) {
      const problem = unstorableString(key, what);
      if (problem !== undefined) return problem;
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}
