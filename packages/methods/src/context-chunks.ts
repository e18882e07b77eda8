/** One chunk of a text: its words `[start, end)` and the text they span. */
export interface TextChunk {
  /** Index of the first word. */
  start: number;
  /** Index one past the last word. */
  end: number;
  /** The words with the whitespace between them as in the text, trimmed. */
  text: string;
}

/**
 * Splits a text into three chunks of words (runs of non-whitespace) that overlap by about
 * 10% of a chunk, as LLMForum-RAG splits its context among three agents. With W words:
 * chunk size s = ⌈10·W / 28⌉ (so that 3s − 2·0.1s ≥ W), overlap o = round(s / 10),
 * chunk i starts at i·(s − o); chunks 1 and 2 are s words long and chunk 3 runs to the
 * end. Texts of fewer than three words leave the later chunks empty.
 */
export function splitIntoChunks(text: string): [TextChunk, TextChunk, TextChunk] {
  // Each word keeps the whitespace after it, so a chunk reads as the text did.
  const words = text.trimStart().match(/\S+\s*/g) ?? [];
  const w = words.length;
  const size = Math.ceil((10 * w) / 28);
  const overlap = Math.round(size / 10);
  const stride = size - overlap;
  const chunk = (start: number, end: number): TextChunk => {
    const s = Math.min(start, w);
    const e = Math.max(s, Math.min(end, w));
    return { start: s, end: e, text: words.slice(s, e).join('').trimEnd() };
  };
  return [chunk(0, size), chunk(stride, stride + size), chunk(2 * stride, w)];
}
