// The TREC RAG 2026 development nugget bank (public data assay does not ship): imported,
// then answers of two systems on five of its topics assigned by the test double and
// scored; the scores must equal a recomputation from the stored assignments.
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { sharedData, SHARED_DATA_SKIP } from '@assay/test-support/shared-data';
import { assay } from './run-cli.js';
import { describeOnEngines } from './cli-fixtures.js';
import { seededRandom } from '@assay/test-support/seeded';

const BANK = sharedData('trec_rag_2026_dev/rag25-dev-nuggets/rag25-dev-nuggets.jsonl');
const TOPICS = sharedData('trec_rag_2026_dev/topics/rag25-topics-dev.tsv');

const half = (text: string) => {
  const words = text.split(' ');
  return words.slice(0, Math.max(1, Math.floor(words.length / 2))).join(' ');
};

function numbered(block: string): string[] {
  return [...block.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2]!);
}

type Nugget = { text: string; importance: string; assignment: string };

function byHand(nuggets: Nugget[]) {
  const credit = (a: string, strict: boolean) =>
    a === 'support' ? 1 : a === 'partial_support' && !strict ? 0.5 : 0;
  const vital = nuggets.filter((n) => n.importance === 'vital');
  const sum = (xs: Nugget[], strict: boolean) =>
    xs.reduce((s, n) => s + credit(n.assignment, strict), 0);
  const w = (n: Nugget) => (n.importance === 'vital' ? 1 : 0.5);
  return {
    strict_vital: vital.length ? sum(vital, true) / vital.length : 0,
    vital: vital.length ? sum(vital, false) / vital.length : 0,
    strict_all: sum(nuggets, true) / nuggets.length,
    all: sum(nuggets, false) / nuggets.length,
    weighted:
      nuggets.reduce((s, n) => s + w(n) * credit(n.assignment, false), 0) /
      nuggets.reduce((s, n) => s + w(n), 0),
  };
}

describeOnEngines(
  'the RAG 2026 development nugget bank',
  { prefix: 'assay-rag26-', timeout: 600_000 },
  (ws) => {
    it.skipIf(!BANK || !TOPICS)(
      `imports it, assigns two systems' answers on five topics and scores them as a recomputation does (${BANK ? 'present' : SHARED_DATA_SKIP})`,
      async () => {
        const imported = await assay(
          ws.env,
          'nuggets',
          'import',
          BANK!,
          '--collection',
          'rag25',
          '--bank',
          'nist',
          '--create-collection',
        );
        expect(imported.code).toBe(0);
        expect(imported.stdout).toBe(
          'stored nugget bank "nist" version 1: 22 topics, 1255 nuggets (925 vital, 330 okay)\n',
        );
        expect(
          (await assay(ws.env, 'import', 'topics', '--collection', 'rag25', TOPICS!)).code,
        ).toBe(0);

        // Five topics and two systems' answers drawn with a seed: each nugget stated, half
        // stated (marked), or left out, at different rates for the two systems.
        const bank = readFileSync(BANK!, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { qid: string; nuggets: Array<{ text: string }> });
        const random = seededRandom(2026);
        const chosen = [...bank].sort(() => random() - 0.5).slice(0, 5);
        const plan = new Map<string, string>();
        const answers = chosen.flatMap((topic) =>
          (
            [
              ['alpha', 0.55, 0.2],
              ['beta', 0.3, 0.25],
            ] as const
          ).map(([system, support, partial]) => {
            const sentences = topic.nuggets.flatMap((n) => {
              const r = random();
              const label =
                r < support ? 'support' : r < support + partial ? 'partial_support' : 'not_support';
              plan.set(JSON.stringify([topic.qid, system, n.text]), label);
              if (label === 'support') return [`${n.text}.`];
              if (label === 'partial_support') return [`PARTLY ${half(n.text)}.`];
              return [];
            });
            return JSON.stringify({
              topic: topic.qid,
              system,
              answer: sentences.join(' ') || 'No answer.',
            });
          }),
        );
        writeFileSync(ws.path('answers.jsonl'), `${answers.join('\n')}\n`);

        const server = await ws.double.start((body) => {
          const user = (body.messages as Array<{ content: string }>)[1]!.content;
          const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
          const nuggets = numbered(user.split('Nuggets, numbered:\n')[1]!.split('\n\n')[0]!);
          const label = (n: string) =>
            answer.includes(n)
              ? 'support'
              : answer.includes(`PARTLY ${half(n)}`)
                ? 'partial_support'
                : 'not_support';
          return {
            reply: JSON.stringify(
              Object.fromEntries(nuggets.map((n, i) => [String(i + 1), label(n)])),
            ),
          };
        });
        const env = { ...ws.env, OPENAI_BASE_URL: server.baseURL };
        const assigned = await assay(
          env,
          'nuggets',
          'assign',
          '--collection',
          'rag25',
          '--bank',
          'nist',
          '--responses',
          ws.path('answers.jsonl'),
          '--name',
          'llm',
          '--model',
          'm',
          '--out',
          ws.path('assign.jsonl'),
        );
        expect(assigned.code).toBe(0);
        const nuggetCount = chosen.reduce((s, t) => s + t.nuggets.length, 0);
        expect(assigned.stdout).toContain(`${2 * nuggetCount} items judged, 0 failed`);
        // Ten nuggets per call.
        expect(server.requests).toHaveLength(
          chosen.reduce((s, t) => s + 2 * Math.ceil(t.nuggets.length / 10), 0),
        );

        const stored = readFileSync(ws.path('assign.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { qid: string; system: string; nuggets: Nugget[] });
        expect(stored).toHaveLength(10);
        // The double followed the plan, but for nuggets whose text (or half of it) another holds.
        const labels = stored.flatMap((r) =>
          r.nuggets.map((n) => [plan.get(JSON.stringify([r.qid, r.system, n.text])), n.assignment]),
        );
        expect(labels.filter(([p, a]) => p === a).length / labels.length).toBeGreaterThan(0.9);

        const scored = await assay(
          ws.env,
          'nuggets',
          'score',
          '--collection',
          'rag25',
          '--set',
          'llm',
          '--format',
          'json',
          '--per-answer',
          ws.path('per.jsonl'),
        );
        expect(scored.code).toBe(0);
        const per = readFileSync(ws.path('per.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, number | string>);
        for (const r of stored) {
          const got = per.find((a) => a.qid === r.qid && a.system === r.system)!;
          for (const [m, v] of Object.entries(byHand(r.nuggets))) expect(got[m]).toBeCloseTo(v, 12);
        }
        const json = JSON.parse(scored.stdout);
        expect(json.topics).toBe(5);
        for (const system of ['alpha', 'beta']) {
          const row = json.runs.find((x: { run: string }) => x.run === system);
          for (const m of ['strict_vital', 'vital', 'strict_all', 'all', 'weighted'] as const) {
            const mine = stored.filter((r) => r.system === system);
            expect(mine).toHaveLength(5);
            expect(row.means[m]).toBeCloseTo(
              mine.reduce((s, r) => s + byHand(r.nuggets)[m], 0) / 5,
              12,
            );
          }
        }
        // alpha states more of every topic's nuggets than beta.
        expect(json.runs[0].run).toBe('alpha');
        // The file scores the same as the stored set.
        const file = await assay(
          ws.env,
          'nuggets',
          'score',
          ws.path('assign.jsonl'),
          '--format',
          'json',
        );
        expect(JSON.parse(file.stdout).runs).toEqual(json.runs);
      },
    );
  },
);
