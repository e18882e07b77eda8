// Types for the `stopword` package (it ships none): the per-language lists assay reads.
declare module 'stopword' {
  /** English stopwords. */
  export const eng: readonly string[];
}
