// Parsing a large upload in one go holds the event loop for seconds, and with it every other
// request (health checks included). Fed to a streaming parser in slices, with a turn of the
// event loop between slices, other requests are served while a million-line run is read.

/** Characters per slice: about a millisecond or two of parsing. */
const SLICE_CHARS = 256 * 1024;

/** `text` in slices, letting the event loop run other work before each one after the first. */
export async function* slicesYielding(text: string): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += SLICE_CHARS) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    yield text.slice(start, start + SLICE_CHARS);
  }
}
