// The declaration travels with this file, so type checks that reach it from other workspaces see it too.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./stopword.d.ts" />
import { eng as englishStopwords } from 'stopword';
import { stemmer as porterStem } from 'stemmer';

/**
 * Bumped whenever tokenisation, lowercasing, stopwords or stemming change what a text
 * analyses to; a saved index made under another version refuses to load.
 */
export const ANALYZER_VERSION = 1;

/** How text becomes index terms; recorded in every index and run header. */
export interface AnalyzerConfig {
  /** `porter` (Porter 1980, from the `stemmer` package) or `none`. */
  stemmer: 'porter' | 'none';
  /** `english` (the `stopword` package's English list), `none`, or an explicit list. */
  stopwords: 'english' | 'none' | readonly string[];
}

/** The default analyzer: Unicode lowercasing, English stopwords, Porter stemming. */
export const DEFAULT_ANALYZER: AnalyzerConfig = { stemmer: 'porter', stopwords: 'english' };

/** Turns text into a list of index terms. */
export interface Analyzer {
  readonly config: AnalyzerConfig;
  readonly version: number;
  /** The terms of `text`, in order, repeats kept. */
  analyze(text: string): string[];
}

// Letters (with their combining marks) and digits; everything else separates tokens.
const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
// The same tokens for ASCII text, where NFKC changes nothing (a faster path).
const ASCII_TOKEN = /[a-z0-9]+/g;
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Builds an analyzer: NFKC normalisation, tokens are runs of letters and digits, Unicode
 * lowercasing, stopword removal (before stemming, on the lowercased token), then stemming.
 */
export function createAnalyzer(config: AnalyzerConfig = DEFAULT_ANALYZER): Analyzer {
  const stop = new Set<string>(
    config.stopwords === 'english'
      ? englishStopwords
      : config.stopwords === 'none'
        ? []
        : config.stopwords.map((w) => w.normalize('NFKC').toLowerCase()),
  );
  const stem = config.stemmer === 'porter' ? porterStem : (t: string) => t;
  // Stemming is the slow step; a collection repeats words a lot.
  const cache = new Map<string, string>();
  return {
    config,
    version: ANALYZER_VERSION,
    analyze(text: string): string[] {
      const out: string[] = [];
      const ascii = ASCII.test(text);
      const lower = (ascii ? text : text.normalize('NFKC')).toLowerCase();
      for (const match of lower.matchAll(ascii ? ASCII_TOKEN : TOKEN)) {
        const token = match[0];
        if (stop.has(token)) continue;
        let term = cache.get(token);
        if (term === undefined) {
          term = stem(token);
          if (cache.size < 1_000_000) cache.set(token, term);
        }
        out.push(term);
      }
      return out;
    },
  };
}

/** A short text naming the analyzer, for run headers: `porter+english-stopwords v1`. */
export function describeAnalyzer(config: AnalyzerConfig): string {
  const stop =
    typeof config.stopwords === 'string'
      ? `${config.stopwords}-stopwords`
      : `custom-stopwords(${config.stopwords.length})`;
  return `${config.stemmer}+${stop} v${ANALYZER_VERSION}`;
}

/** True when two analyzer configurations analyse text the same way. */
export function sameAnalyzer(a: AnalyzerConfig, b: AnalyzerConfig): boolean {
  if (a.stemmer !== b.stemmer) return false;
  if (typeof a.stopwords === 'string' || typeof b.stopwords === 'string')
    return a.stopwords === b.stopwords;
  const x = [...new Set(a.stopwords)].sort();
  const y = [...new Set(b.stopwords)].sort();
  return x.length === y.length && x.every((w, i) => w === y[i]);
}
