// The RAG evaluation pages' client: the app's one typed client (api.ts), so every request
// and answer has the type its route declares; `ok` turns `{ error: { code, message } }` into
// the app's ApiError.
export { client, enc, ok } from './api';

/** Kinds of assessment, and what each calls its labels on the keyboard. */
export const KEYS: Record<'nuggets' | 'support' | 'rubric', Record<string, string>> = {
  nuggets: { '2': 'support', '1': 'partial_support', '0': 'not_support' },
  support: { '2': 'full', '1': 'partial', '0': 'none', x: 'cannot_assess' },
  rubric: { '2': 'met', '1': 'partly_met', '0': 'not_met' },
};
