// A page's load sends its requests again after each change the page makes (invalidate).
// When such a reload fails, the page keeps showing what it showed, beside the message of
// why it could not be refreshed, rather than only the message.

/** A request of a page's load: its answer, or the message of why there is none. */
export interface Loaded<T> {
  /** The answer; after a failed reload of the same subject, the last answer received. */
  value: T | null;
  /** '' when the request succeeded (or was not sent). */
  error: string;
}

/** The last answer per subject (`keep`), a few subjects at most. */
const lastAnswers = new Map<string, unknown>();
const KEPT_SUBJECTS = 16;

/**
 * Sends a request (unless `send` is false) and keeps its answer or its error message.
 * `keep` names what the answer is of (a page and its collection, say): a failed request
 * of a subject answered before returns that earlier answer together with the error.
 */
export async function settle<T>(
  request: () => Promise<T>,
  send = true,
  keep?: string,
): Promise<Loaded<T>> {
  if (!send) return { value: null, error: '' };
  try {
    const value = await request();
    if (keep !== undefined) {
      lastAnswers.delete(keep);
      lastAnswers.set(keep, value);
      if (lastAnswers.size > KEPT_SUBJECTS) lastAnswers.delete(lastAnswers.keys().next().value!);
    }
    return { value, error: '' };
  } catch (e) {
    const kept = keep === undefined ? undefined : lastAnswers.get(keep);
    return { value: (kept as T | undefined) ?? null, error: (e as Error).message };
  }
}
