import { parsePrefs, parseQrelsPrefs } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import {
  PreferenceConflictError,
  evaluateRun,
  formPreferenceCounts,
  preparePreferences,
  resolveMeasures,
  type RunEvaluation,
} from '../src/index.js';
import { runOf } from './helpers.js';

function valueOf(result: RunEvaluation, name: string, qid = 'all'): number | string {
  const col = result.columns.findIndex((c) => c.name === name);
  if (col < 0) throw new Error(`no column ${name}`);
  if (qid === 'all') return result.summary[col]!;
  return result.topics.find((t) => t.qid === qid)!.values[col]!;
}

function evaluate(prefs: string, run: string) {
  return evaluateRun(
    preparePreferences(parsePrefs(prefs)),
    runOf(run),
    resolveMeasures(['all_prefs']),
  );
}

describe('preference measures, one judgment group with one sub-group', () => {
  // Levels a 2 > b 1 > c, d, e 0. The run retrieves c, a, x (unjudged), b. Documents are
  // numbered c 0, a 1, b 2 (retrieved, in rank order), then d 3, e 4 (by docno).
  // Preferences: a>b fulfilled, both retrieved; a>c and b>c not fulfilled, both retrieved;
  // a>d, a>e, b>d, b>e fulfilled, implied (one retrieved). 7 in all.
  const r = evaluate(
    'q u s a 2\nq u s b 1\nq u s c 0\nq u s d 0\nq u s e 0',
    'q c 4\nq a 3\nq x 2\nq b 1',
  );

  it('counts preferences', () => {
    expect(valueOf(r, 'prefs_num_prefs_poss')).toBe(7);
    expect(valueOf(r, 'prefs_num_prefs_ful')).toBe(5);
    expect(valueOf(r, 'prefs_num_prefs_ful_ret')).toBe(1);
  });

  it('simple, pair and group ratios', () => {
    expect(valueOf(r, 'prefs_simp')).toBeCloseTo(5 / 7, 12);
    expect(valueOf(r, 'prefs_simp_ret')).toBeCloseTo(1 / 3, 12);
    expect(valueOf(r, 'prefs_simp_imp')).toBeCloseTo(5 / 7, 12);
    // One preference per pair, so pair = simp.
    expect(valueOf(r, 'prefs_pair')).toBeCloseTo(5 / 7, 12);
    expect(valueOf(r, 'prefs_pair_ret')).toBeCloseTo(1 / 3, 12);
    expect(valueOf(r, 'prefs_avgjg')).toBeCloseTo(5 / 7, 12);
    expect(valueOf(r, 'prefs_avgjg_imp')).toBeCloseTo(5 / 7, 12);
  });

  it('Rnonrel: R = 2 < N = 3 keeps the first two non-relevant documents (c, d)', () => {
    // Recount as trec_eval does: a>b fulfilled; a, b each against kept c (not fulfilled)
    // and d (fulfilled); the lowest class c, d, e against the kept c, d too: only c<d counts
    // as fulfilled (c retrieved), the other five pairs as not. 4 of 4 + 7.
    expect(valueOf(r, 'prefs_avgjg_Rnonrel')).toBeCloseTo(4 / 11, 12);
  });

  it('Rnonrel_ret: R = 2 retrieved relevant ≥ N = 1 retrieved non-relevant pads by R − N', () => {
    // (fulfilled_ret 1 + relret 2 · 1) / (possible_ret 3 + rel 2 · 1)
    expect(valueOf(r, 'prefs_avgjg_Rnonrel_ret')).toBeCloseTo(3 / 5, 12);
  });
});

describe('preference measures, sub-groups and several judgment groups', () => {
  // Group u: sub-group s1 says a > b, s2 says b > c, so a > c too (transitivity).
  // Group v: c > a. The run retrieves a then c; b is not retrieved (numbers a 0, c 1, b 2).
  // u: a>c fulfilled (retrieved), a>b fulfilled (implied), b>c not (implied).
  // v: c>a not fulfilled (retrieved).
  const r = evaluate(
    'p u s1 a 2\np u s1 b 1\np u s2 b 2\np u s2 c 1\np v s c 1\np v s a 0',
    'p a 3\np c 2',
  );

  it('adds transitive preferences within a group', () => {
    expect(valueOf(r, 'prefs_num_prefs_poss')).toBe(4);
    expect(valueOf(r, 'prefs_num_prefs_ful')).toBe(2);
    expect(valueOf(r, 'prefs_num_prefs_ful_ret')).toBe(1);
    expect(valueOf(r, 'prefs_simp')).toBe(0.5);
    expect(valueOf(r, 'prefs_simp_ret')).toBe(0.5);
  });

  it('averages over groups, and over document pairs', () => {
    expect(valueOf(r, 'prefs_avgjg')).toBeCloseTo((2 / 3 + 0) / 2, 12);
    expect(valueOf(r, 'prefs_avgjg_ret')).toBe((1 + 0) / 2);
    // Pairs: a,c (u for, v against: 1/2), a,b (1), c,b (0).
    expect(valueOf(r, 'prefs_pair')).toBeCloseTo((0.5 + 1 + 0) / 3, 12);
    expect(valueOf(r, 'prefs_pair_ret')).toBe(0.5);
  });

  it('Rnonrel pads groups with fewer non-relevant than relevant documents', () => {
    // u: R = 3, N = 0: (2 + 2·3) / (3 + 3·3); v: R = N = 1: 0 / 1.
    expect(valueOf(r, 'prefs_avgjg_Rnonrel')).toBeCloseTo((8 / 12 + 0) / 2, 12);
    // u: R = 2 retrieved, N = 0: (1 + 2·2) / (1 + 3·2); v: 0 / 1.
    expect(valueOf(r, 'prefs_avgjg_Rnonrel_ret')).toBeCloseTo((5 / 7 + 0) / 2, 12);
  });
});

describe('preference counting details', () => {
  it('breaks score ties by docno ascending, unlike qrels evaluation', () => {
    const prefs = preparePreferences(parsePrefs('q u s b 1\nq u s a 0'));
    const counts = formPreferenceCounts(
      'q',
      runOf('q b 1\nq a 1').topics.get('q')!,
      prefs.judgments.get('q')!,
    );
    expect(counts.numJudgedRet).toBe(2);
    expect(counts.groups[0]!.fulfilledRet).toBe(0); // a is ranked above b
  });

  it('only counts the top -M documents as retrieved', () => {
    const prefs = preparePreferences(parsePrefs('q u s a 1\nq u s b 0'));
    const entries = runOf('q b 2\nq a 1').topics.get('q')!;
    expect(formPreferenceCounts('q', entries, prefs.judgments.get('q')!, 1).numJudgedRet).toBe(1);
  });

  it('reads qrels as one judgment group per iter value with a single sub-group', () => {
    const r = evaluateRun(
      preparePreferences(parseQrelsPrefs('q 0 a 1\nq 0 b 0\nq 0 c 0\n')),
      runOf('q b 3\nq a 2'),
      resolveMeasures(['prefs_simp', 'prefs_num_prefs_poss']),
    );
    expect(valueOf(r, 'prefs_num_prefs_poss')).toBe(2); // a>b, a>c
    expect(valueOf(r, 'prefs_simp')).toBe(0.5); // a>c fulfilled (implied), a>b not
  });

  it('rejects contradictory preferences within a group', () => {
    const run = runOf('q a 2\nq b 1');
    // a at two levels of one sub-group.
    expect(() => evaluate('q u s a 2\nq u s b 1\nq u s a 0', 'q a 2\nq b 1')).toThrow(
      PreferenceConflictError,
    );
    // b non-relevant in one sub-group, relevant in another.
    expect(() => evaluate('q u s1 a 1\nq u s1 b 0\nq u s2 b 1\nq u s2 c 0', 'q a 1')).toThrow(
      /both relevant and non-relevant/,
    );
    // a > b and b > a through sub-groups.
    const cyclic = preparePreferences(parsePrefs('q u s1 a 2\nq u s1 b 1\nq u s2 b 2\nq u s2 a 1'));
    expect(() => evaluateRun(cyclic, run, resolveMeasures(['prefs_simp']))).toThrow(
      /preferred to each other/,
    );
    // Different groups may disagree.
    expect(
      valueOf(evaluate('q u s a 2\nq u s b 1\nq v s b 2\nq v s a 1', 'q a 2\nq b 1'), 'prefs_simp'),
    ).toBe(0.5);
  });
});
