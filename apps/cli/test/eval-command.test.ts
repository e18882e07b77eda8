import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';
import { scratchDir } from './cli-fixtures.js';

const { dir, file } = scratchDir('assay-eval-');

const qrels = file('qrels', '1 0 a 1\n1 0 b 0\n2 0 c 2\n');
const runA = file('runA', '1 Q0 a 1 2.0 alpha\n1 Q0 b 2 1.0 alpha\n2 Q0 c 1 1.0 alpha\n');
const runB = file('runB', '1 Q0 b 1 2.0 beta\n1 Q0 a 2 1.0 beta\n2 Q0 x 1 1.0 beta\n');

describe('assay eval', () => {
  it('prints one trec_eval block per run, in argument order', async () => {
    const { code, stdout } = await cli('eval', '-m', 'map', '-m', 'P.1', qrels, runA, runB);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'map                   \tall\t1.0000',
        'P_1                   \tall\t1.0000',
        'map                   \tall\t0.2500', // topic 1: a at rank 2 → 1/2; topic 2: 0
        'P_1                   \tall\t0.0000',
        '',
      ].join('\n'),
    );
  });

  it('gives full-precision rows as JSON and CSV', async () => {
    const json = await cli('eval', '-q', '-m', 'P.3', '--format', 'json', qrels, runA);
    const rows = JSON.parse(json.stdout);
    expect(rows).toContainEqual({ run: 'alpha', measure: 'P_3', qid: '1', value: 1 / 3 });
    expect(rows).toContainEqual({ run: 'alpha', measure: 'P_3', qid: 'all', value: 1 / 3 });
    const csv = await cli('eval', '-m', 'P.3', '--format', 'csv', qrels, runB);
    expect(csv.stdout).toBe(`run,measure,qid,value\nbeta,P_3,all,${(1 / 3 + 0) / 2}\n`);
  });

  it('writes run tags a spreadsheet would run as formulas as text in CSV', async () => {
    const formula = file('formula-run', '1 Q0 a 1 2.0 =HYPERLINK("http://x")\n');
    const minus = file('minus-run', '1 Q0 a 1 2.0 -1+cmd\n');
    const csv = await cli('eval', '-c', '-m', 'P.1', '--format', 'csv', qrels, formula, minus);
    expect(csv.code).toBe(0);
    // Topic 1: a (relevant) at rank 1; topic 2 not retrieved scores 0 (-c): P_1 = 0.5.
    expect(csv.stdout).toBe(
      `run,measure,qid,value\n"'=HYPERLINK(""http://x"")",P_1,all,0.5\n'-1+cmd,P_1,all,0.5\n`,
    );
  });

  it('names file and line of a malformed run and prints no partial table', async () => {
    const bad = file('bad-run', '1 Q0 a 1 2.0 r\n1 Q0 b 2 notanumber r\n');
    const { code, stdout, stderr } = await cli('eval', qrels, runA, bad);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${bad}:2:`);
  });

  it('names file and line of a malformed qrels', async () => {
    const bad = file('bad-qrels', '1 0 a 1\n1 0 b\n');
    const { code, stderr } = await cli('eval', bad, runA);
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}:2:`);
  });

  it('reports a topic missing from the run unless -c is given', async () => {
    const partial = file('partial', '1 Q0 a 1 2.0 p\n');
    const without = await cli('eval', qrels, partial);
    expect(without.code).toBe(4);
    expect(without.stdout).toBe('');
    expect(without.stderr).toMatch(/topic 2 .*-c/);
    const withC = await cli('eval', '-c', '-m', 'map', qrels, partial);
    expect(withC.code).toBe(0);
    expect(withC.stdout).toBe('map                   \tall\t0.5000\n');
  });

  it('rejects unknown measures, options and missing files clearly', async () => {
    expect((await cli('eval', '-m', 'nosuch', qrels, runA)).stderr).toMatch(/unknown measure/);
    const opt = await cli('eval', '-x', qrels, runA);
    expect(opt.code).toBe(1);
    expect(opt.stderr).toMatch(/unknown option -x/);
    const missing = await cli('eval', qrels, join(dir, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope: cannot read file/);
    expect((await cli('eval', qrels)).code).toBe(1);
  });

  it('reads preferences with -R prefs and qrels as preferences with -R qrels_prefs', async () => {
    // Topic 1: a > b; the run ranks a first, so the one preference is fulfilled.
    const prefs = file('prefs', '1 u1 s1 a 2\n1 u1 s1 b 1\n');
    const byPrefs = await cli('eval', '-R', 'prefs', prefs, runA);
    expect(byPrefs.code).toBe(0);
    // Without -m, the prefs nickname (trec_eval's official preference measures).
    expect(byPrefs.stdout.split('\n').map((l) => l.split('\t')[0]!.trim())).toEqual([
      'runid',
      'num_q',
      'prefs_num_prefs_poss',
      'prefs_num_prefs_ful',
      'prefs_num_prefs_ful_ret',
      'prefs_simp',
      'prefs_pair',
      'prefs_avgjg',
      '',
    ]);
    expect(byPrefs.stdout).toContain('prefs_simp            \tall\t1.0000');
    // As preferences, the qrels say a > b (topic 1) and nothing for topic 2 (one document).
    const byQrels = await cli('eval', '-R', 'qrels_prefs', '-m', 'prefs_simp', '-q', qrels, runB);
    expect(byQrels.stdout).toBe(
      [
        'prefs_simp            \t1\t0.0000', // beta ranks b above a
        'prefs_simp            \t2\t0.0000',
        'prefs_simp            \tall\t0.0000',
        '',
      ].join('\n'),
    );
  });

  it('reads judgment groups with -R qrels_jg', async () => {
    // Two assessors for topic 1: one finds a relevant, the other b.
    const jg = file('qrels-jg', '1 x a 1\n1 x b 0\n1 y a 0\n1 y b 1\n');
    const { code, stdout } = await cli('eval', '-R', 'qrels_jg', '-m', 'map_avgjg', jg, runA);
    expect(code).toBe(0);
    expect(stdout).toBe('map_avgjg             \tall\t0.7500\n'); // (1 + 1/2) / 2
  });

  it('rejects measures the relevance format cannot give and unknown formats', async () => {
    const prefs = file('prefs2', '1 u1 s1 a 2\n1 u1 s1 b 1\n');
    const wrong = await cli('eval', '-R', 'prefs', '-m', 'map', prefs, runA);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/measure 'map': needs TREC qrels/);
    const jgOnQrels = await cli('eval', '-m', 'P_avgjg.5', qrels, runA);
    expect(jgOnQrels.code).toBe(1);
    expect(jgOnQrels.stderr).toMatch(/needs qrels with judgment groups \(-R qrels_jg\)/);
    const unknown = await cli('eval', '-R', 'trec_prefs', qrels, runA);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/relevance format 'trec_prefs' is not supported/);
  });

  it('names file and line of a malformed preference file, and reports conflicts', async () => {
    const bad = file('bad-prefs', '1 u1 s1 a 2\n1 u1 s1 b high\n');
    const malformed = await cli('eval', '-R', 'prefs', bad, runA);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`${bad}:2: relevance "high" is not a number`);
    // Sub-groups s1 and s2 say a > b and b > a within one judgment group.
    const cyclic = file('cyclic-prefs', '1 u s1 a 2\n1 u s1 b 1\n1 u s2 b 2\n1 u s2 a 1\n');
    const conflict = await cli('eval', '-R', 'prefs', cyclic, runA);
    expect(conflict.code).toBe(2);
    expect(conflict.stdout).toBe('');
    expect(conflict.stderr).toMatch(/inconsistent preferences: topic 1: .*preferred to each other/);
  });

  it('accepts grouped and attached short options like trec_eval', async () => {
    const grouped = await cli('eval', '-qc', '-mP.1', qrels, runB);
    const spread = await cli('eval', '-q', '-c', '-m', 'P.1', qrels, runB);
    expect(grouped.stdout).toBe(spread.stdout);
    expect(grouped.stdout).toContain('P_1                   \t1\t0.0000');
  });
});
