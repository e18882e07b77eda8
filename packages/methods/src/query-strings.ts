/** The separator AMD and Query2doc put between parts of an expanded query. */
export const SEP = '[SEP]';

/**
 * Query2doc's sparse query (Wang et al., 2023): the query repeated five times, then the
 * pseudo-document, so the query's own terms keep their weight against the longer text.
 */
export function query2docSparseQuery(query: string, pseudoDocument: string): string {
  return [...Array<string>(5).fill(query), pseudoDocument].join(' ');
}

/** Query2doc's dense input: `query [SEP] pseudo-document`. */
export function query2docDenseText(query: string, pseudoDocument: string): string {
  return `${query} ${SEP} ${pseudoDocument}`;
}

/**
 * AMD's sparse aggregation: the query three times, then the refined answers, every part
 * separated by `[SEP]`.
 */
export function amdSparseQuery(query: string, answers: readonly string[]): string {
  return [query, query, query, ...answers].join(` ${SEP} `);
}
