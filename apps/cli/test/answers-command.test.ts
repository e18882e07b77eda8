import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assay } from './run-cli.js';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { describeOnEngines } from './cli-fixtures.js';

const CRITERIA = ['informativeness', 'completeness', 'novelty', 'actionability'] as const;
const SYSTEMS = ['srsa', 'simple', 'react'];
const TOPICS = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];

/** The grade the double gives system s on topic t for criterion c in trial 1 (0–5). */
function grade(s: number, t: number, c: number): number {
  return (s * 2 + t * 3 + c * 5 + ((s * t) % 4)) % 6;
}

/** The answer text of system s on topic t; it names both, so the double can grade it. */
function answerText(s: number, t: number): string {
  return `Answer of ${SYSTEMS[s]} to ${TOPICS[t]} <s${s} t${t}>`;
}

function who(body: Record<string, unknown>): { s: number; t: number } {
  const user = (body.messages as Array<{ content: string }>)[1]!.content;
  const m = /<s(\d) t(\d)>/.exec(user)!;
  return { s: Number(m[1]), t: Number(m[2]) };
}

describe('assay answers agree', () => {
  it('measures per-criterion agreement of two score files on the answers both graded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-answers-agree-'));
    try {
      const line = (topic: string, system: string, x: number) =>
        JSON.stringify({ topic, system, trial: 1, scores: { x }, justification: '' });
      // Pairs (judge, person): (0,0), (1,2), (2,2), (2,1) on 0–2; q3 only in the judge file.
      const judge = [
        line('q1', 's', 0),
        line('q2', 's', 1),
        line('q1', 't', 2),
        line('q2', 't', 2),
        line('q3', 't', 2),
      ];
      const person = [
        line('q1', 's', 0),
        line('q2', 's', 2),
        line('q1', 't', 2),
        line('q2', 't', 1),
      ];
      writeFileSync(join(dir, 'judge.jsonl'), judge.join('\n'));
      writeFileSync(join(dir, 'person.jsonl'), person.join('\n'));
      const r = await assay(
        {},
        'answers',
        'agree',
        join(dir, 'judge.jsonl'),
        join(dir, 'person.jsonl'),
        '--scale',
        '0..2',
        '--format',
        'json',
      );
      expect(r.code).toBe(0);
      const [x] = JSON.parse(r.stdout);
      // By hand (see the stats test): exact 2/4, linear kappa 3/7, quadratic 7/11, interval alpha 15/22.
      expect(x).toMatchObject({ criterion: 'x', n: 4, exact: 0.5 });
      expect(x.kappaLinear).toBeCloseTo(3 / 7, 12);
      expect(x.kappaQuadratic).toBeCloseTo(7 / 11, 12);
      expect(x.alphaInterval).toBeCloseTo(15 / 22, 12);
      const table = await assay(
        {},
        'answers',
        'agree',
        join(dir, 'judge.jsonl'),
        join(dir, 'person.jsonl'),
      );
      expect(table.stdout.split('\n')[1]).toMatch(/^x\s+4\s+0\.5000\s+/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('assay answers: arguments', () => {
  it('prints the one help for the command and each subcommand, exit 0', async () => {
    const outs = [];
    for (const argv of [
      ['--help'],
      ['score', '--help'],
      ['report', '-h'],
      ['agree', 'a', '--help'],
    ]) {
      const r = await assay({}, 'answers', ...argv);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      outs.push(r.stdout);
    }
    expect(new Set(outs).size).toBe(1);
    expect(outs[0]).toMatch(/^Usage: assay answers score /);
    expect(outs[0]).toContain('\nreport options:\n');
    expect(outs[0]).toMatch(/\n {2}--alpha A {2,}significance level \(default 0\.05\)\n/);
  });

  it('names the problem and exits 1 on bad usage, 2 on a bad responses line', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent' };
    const r = await assay(env, 'answers', 'score', '--judge', 'answer-quality');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--responses is required');
    const relevance = await assay(
      env,
      'answers',
      'score',
      '--judge',
      'graded-0-3',
      '--responses',
      'x',
      '--out',
      'y',
    );
    expect(relevance.stderr).toContain('grades relevance, not answers');
    const dir = mkdtempSync(join(tmpdir(), 'assay-answers-args-'));
    try {
      const file = join(dir, 'r.jsonl');
      writeFileSync(
        file,
        '{"topic":"q1","system":"a","answer":"x","query":"q"}\n{"topic":"q1","system":"a"\n',
      );
      const bad = await assay(
        env,
        'answers',
        'score',
        '--judge',
        'answer-quality',
        '--responses',
        file,
        '--out',
        join(dir, 'o'),
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`${file}:2: not valid JSON`);
      const report = await assay(env, 'answers', 'report', file, '--format', 'pdf');
      expect(report.code).toBe(1);
      expect(report.stderr).toContain('--format must be one of table, json, csv, latex, html');
      // Numbers are checked by the option layer, in its words, before any file is read.
      const alpha = await assay(env, 'answers', 'report', 'missing.jsonl', '--alpha', '1.5');
      expect(alpha.code).toBe(1);
      expect(alpha.stderr).toContain(
        '--alpha must be a number strictly between 0 and 1, got "1.5"',
      );
      const trials = await assay(
        env,
        'answers',
        'score',
        '--judge',
        'answer-quality',
        '--trials',
        '0',
      );
      expect(trials.code).toBe(1);
      expect(trials.stderr).toContain('--trials must be an integer >= 1, got "0"');
      const poll = await assay(
        env,
        ...['answers', 'score', '--judge', 'answer-quality', '--batch', '--batch-poll', '0'],
      );
      expect(poll.code).toBe(1);
      expect(poll.stderr).toContain('--batch-poll must be a number > 0, got "0"');
      // A scale in any of the forms assay takes everywhere; MIN = MAX is refused.
      const scale = await assay(env, 'answers', 'agree', file, file, '--scale', '0..5x');
      expect(scale.code).toBe(1);
      expect(scale.stderr).toContain('--scale must be a grade scale MIN..MAX');
      const flat = await assay(env, 'answers', 'agree', file, file, '--scale', '3:3');
      expect(flat.code).toBe(1);
      expect(flat.stderr).toContain('--scale 3:3: the lowest grade must be below the highest');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Student t two-sided p-value by Simpson integration of the density (integer df). */
function tPValue(t: number, df: number): number {
  // Γ at halves and integers by recursion from Γ(1) = 1 and Γ(1/2) = √π.
  const gamma = (x: number): number =>
    x === 1 ? 1 : x === 0.5 ? Math.sqrt(Math.PI) : (x - 1) * gamma(x - 1);
  const c = gamma((df + 1) / 2) / (Math.sqrt(df * Math.PI) * gamma(df / 2));
  const f = (x: number) => c * (1 + (x * x) / df) ** (-(df + 1) / 2);
  const a = Math.abs(t);
  const steps = 20000;
  const h = a / steps;
  let sum = f(0) + f(a);
  for (let i = 1; i < steps; i++) sum += (i % 2 ? 4 : 2) * f(i * h);
  return 1 - 2 * ((sum * h) / 3);
}

describeOnEngines(
  'assay answers',
  {
    prefix: 'assay-answers-cli-',
    files: {
      'responses.jsonl': `${TOPICS.flatMap((topic, t) =>
        SYSTEMS.map((system, s) => JSON.stringify({ topic, system, answer: answerText(s, t) })),
      ).join('\n')}\n`,
      'topics.tsv': TOPICS.map((t) => `${t}\trequest ${t}\n`).join(''),
    },
  },
  (ws) => {
    it('scores three systems through injected faults, and the report equals a recomputation', async () => {
      const attempts = new Map<string, number>();
      const server = await ws.double.start((body) => {
        const { s, t } = who(body);
        const trial = body.seed !== undefined && Number(body.seed) >= 2000 ? 2 : 1;
        const key = `${s}/${t}/${trial}`;
        const n = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, n);
        // Faults on the first attempt of some answers; each is retried and then succeeds.
        const faults: Record<string, Behaviour> = {
          '0/0/1': { status: 429, retryAfter: '0' },
          '1/1/1': { status: 500, retryAfterMs: '0' },
          '2/2/1': { malformedBody: true },
          '0/3/2': { drop: true },
          '1/4/1': { reply: '{"informativeness": 3, "completeness": 2}' },
        };
        if (n === 1 && faults[key]) return faults[key]!;
        // Never readable: a grade off the scale every time.
        if (key === '2/5/1')
          return {
            reply:
              '{"informativeness": 9, "completeness": 1, "novelty": 1, "actionability": 1, "justification": "x"}',
          };
        // Refused outright (not retryable).
        if (key === '1/5/2') return { status: 400, message: 'context length exceeded' };
        const scores = Object.fromEntries(
          CRITERIA.map((c, ci) => [c, Math.max(0, grade(s, t, ci) - (trial - 1))]),
        );
        return { reply: JSON.stringify({ ...scores, justification: `graded ${s}/${t}` }) };
      });
      const out = ws.path('scores.jsonl');
      const failuresFile = ws.path('failed.jsonl');
      const args = [
        'answers',
        'score',
        '--judge',
        'answer-quality',
        '--model',
        'judge-model',
        '--responses',
        ws.path('responses.jsonl'),
        '--topics',
        ws.path('topics.tsv'),
        '--trials',
        '2',
        '--temperature',
        '0.7',
        '--out',
        out,
        '--failures',
        failuresFile,
        '--base-url',
        server.baseURL,
        '--concurrency',
        '4',
      ];
      const run = await assay(ws.env, ...args);
      expect(run.code).toBe(5);
      // 6 topics × 3 systems × 2 trials = 36 evaluations: 34 scored, 2 failed with reason.
      const lines = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(34);
      const failed = readFileSync(failuresFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(failed).toHaveLength(2);
      expect(failed[0]).toMatchObject({ topic: 'q6', system: 'react', trial: 1 });
      expect(failed[0].reason).toMatch(/unreadable answer after 3 attempts.*must be <= 5/);
      expect(failed[0].raw).toContain('"informativeness": 9');
      expect(failed[1]).toMatchObject({ topic: 'q6', system: 'simple', trial: 2 });
      expect(failed[1].reason).toContain('context length exceeded');
      expect(run.stderr).toContain('failed: topic q6, system react, trial 1');
      expect(run.stderr).toContain('raw answer:');
      // judge-model has no price: its cost is unknown, never $0.0000.
      expect(run.stderr).toContain('calls paid (cost unknown: the model has no price)');
      expect(run.stderr).not.toContain('$0.0000');
      // Every scored line carries the scripted grades.
      for (const l of lines) {
        const s = SYSTEMS.indexOf(l.system);
        const t = TOPICS.indexOf(l.topic);
        expect(Object.keys(l)).toEqual(['topic', 'system', 'trial', 'scores', 'justification']);
        CRITERIA.forEach((c, ci) =>
          expect(l.scores[c]).toBe(Math.max(0, grade(s, t, ci) - (l.trial - 1))),
        );
      }

      // A rerun pays only for the refused call (nothing stored answered it).
      const before = server.requests.length;
      const again = await assay(ws.env, ...args);
      expect(again.code).toBe(5);
      expect(server.requests.length - before).toBe(1);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(34);

      const report = await assay(ws.env, 'answers', 'report', out, '--format', 'json');
      expect(report.code).toBe(0);
      const json = JSON.parse(report.stdout);

      // Independent recomputation from the score file.
      const perTopic = new Map<string, Map<string, Record<string, number[]>>>();
      for (const l of lines) {
        let bySystem = perTopic.get(l.system);
        if (!bySystem) perTopic.set(l.system, (bySystem = new Map()));
        const cell = bySystem.get(l.topic) ?? {};
        for (const c of CRITERIA) (cell[c] ??= []).push(l.scores[c]);
        bySystem.set(l.topic, cell);
      }
      const value = (system: string, topic: string, c: string) => {
        const v = perTopic.get(system)!.get(topic)?.[c];
        return v ? v.reduce((a, b) => a + b, 0) / v.length : undefined;
      };
      const sorted = [...SYSTEMS].sort();
      expect(json.systems.map((s: { system: string }) => s.system)).toEqual(sorted);
      const complete = TOPICS.filter((t) =>
        sorted.every((s) => value(s, t, 'novelty') !== undefined),
      );
      for (const c of CRITERIA) {
        const wins = new Map(sorted.map((s) => [s, 0]));
        for (const t of complete) {
          const top = Math.max(...sorted.map((s) => value(s, t, c)!));
          for (const s of sorted) if (value(s, t, c) === top) wins.set(s, wins.get(s)! + 1);
        }
        const rates = sorted.map((s) => wins.get(s)! / complete.length);
        const total = rates.reduce((a, b) => a + b, 0);
        sorted.forEach((s, i) => {
          const got = json.systems[i];
          const values = TOPICS.map((t) => value(s, t, c)).filter(
            (v) => v !== undefined,
          ) as number[];
          expect(got.n).toBe(values.length);
          expect(got.means[c]).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 10);
          expect(got.ci[c][0]).toBeLessThanOrEqual(got.means[c]);
          expect(got.ci[c][1]).toBeGreaterThanOrEqual(got.means[c]);
          expect(got.winRate[c]).toBeCloseTo(rates[i]!, 10);
          expect(got.winRateNormalised[c]).toBeCloseTo(rates[i]! / total, 10);
        });
        // Paired t over shared topics, p by numerical integration, Holm over the 3 pairs.
        const tests = json.tests.filter((x: { criterion: string }) => x.criterion === c);
        const ps: number[] = [];
        const pairs = [
          [0, 1],
          [0, 2],
          [1, 2],
        ] as const;
        pairs.forEach(([i, j], k) => {
          const [a, b] = [sorted[i]!, sorted[j]!];
          const d = TOPICS.filter(
            (t) => value(a, t, c) !== undefined && value(b, t, c) !== undefined,
          ).map((t) => value(a, t, c)! - value(b, t, c)!);
          const mean = d.reduce((x, y) => x + y, 0) / d.length;
          const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1));
          const tStat = mean / (sd / Math.sqrt(d.length));
          expect(tests[k]).toMatchObject({ a, b, criterion: c, test: 'paired' });
          if (!Number.isFinite(tStat)) {
            // No variance in the differences: nothing to compare with a finite number.
            ps.push(Number.NaN);
            return;
          }
          expect(tests[k].statistic).toBeCloseTo(tStat, 9);
          const p = tPValue(tStat, d.length - 1);
          expect(tests[k].p).toBeCloseTo(p, 6);
          ps.push(tests[k].p);
        });
        expect(ps.filter((p) => Number.isFinite(p)).length).toBeGreaterThanOrEqual(2);
        const order = ps
          .map((p, i) => [p, i] as const)
          .filter(([p]) => !Number.isNaN(p))
          .sort((x, y) => x[0] - y[0]);
        let running = 0;
        order.forEach(([p, i], r) => {
          running = Math.max(running, Math.min(1, (order.length - r) * p));
          expect(tests[i].pAdjusted).toBeCloseTo(running, 9);
          expect(tests[i].significant).toBe(running < 0.05);
        });
      }
      for (const format of ['table', 'csv', 'latex', 'html']) {
        const r = await assay(
          ws.env,
          'answers',
          'report',
          out,
          '--format',
          format,
          '--test',
          'welch',
        );
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('srsa');
        if (format === 'table' || format === 'html') expect(r.stdout).toContain('Trial spread');
      }
    });
  },
);
