import { fileURLToPath } from 'node:url';
import { listCampaignItems } from '@assay/db';
import { loadJudgeTemplates } from '@assay/judge';
import { OpenAIChatClient } from '@assay/llm';
import { predictionPoweredMean } from '@assay/stats';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  addUser,
  authenticate,
  createCampaign,
  ensureJudgeJob,
  estimateLeaderboard,
  importCollection,
  importTopics,
  importQrels,
  importRun,
  judgeReport,
  judgeValues,
  reportOnJudges,
  saveAnnotationLabel,
  type PlatformError,
} from '../src/index.js';
import { runJudgeWorker } from '../src/judging/worker.js';

// Six topics; runs A and B list four documents each; P@4 = relevant among them / 4 (the
// example of apps/cli/test/ppi.test.ts). LLM labels: A relevant 4 3 2 4 1 2, B 2 2 1 3 1 0.
const LLM_A = [4, 3, 2, 4, 1, 2];
const LLM_B = [2, 2, 1, 3, 1, 0];
function labels(counts: Record<string, number[]>, topics = 6): string {
  const lines: string[] = [];
  Object.entries(counts).forEach(([run, ks]) =>
    ks.slice(0, topics).forEach((k, t) => {
      for (let i = 1; i <= 4; i++) lines.push(`${t + 1} 0 ${run}${i} ${i <= k ? 1 : 0}`);
    }),
  );
  return `${lines.join('\n')}\n`;
}
const run = (tag: string) =>
  `${[1, 2, 3, 4, 5, 6].flatMap((t) => [1, 2, 3, 4].map((i) => `${t} Q0 ${tag}${i} ${i} ${10 - i} ${tag}`)).join('\n')}\n`;
const p4 = (ks: number[]) => ks.map((k) => k / 4);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

forEachDatabase('prediction-powered estimates and judge reports of stored label sets', (t) => {
  async function collection(humanA: number[], humanB: number[]) {
    // The documents and topics the runs name, so a campaign over them holds every pair.
    const docs = ['A', 'B'].flatMap((r) => [1, 2, 3, 4].map((i) => `${r}${i}\tx\n`)).join('');
    await importCollection(t.db, { name: 'c', format: 'tsv', text: docs, file: 'docs.tsv' });
    const topics = [1, 2, 3, 4, 5, 6].map((n) => `${n}\ttopic ${n}\n`).join('');
    await importTopics(t.db, { collection: 'c', format: 'tsv', text: topics, file: 'topics.tsv' });
    await importQrels(t.db, {
      collection: 'c',
      labelSet: 'llm',
      text: labels({ A: LLM_A, B: LLM_B }),
      file: 'llm',
    });
    await importQrels(t.db, {
      collection: 'c',
      labelSet: 'people',
      text: labels({ A: humanA, B: humanB }, humanA.length),
      file: 'people',
    });
    for (const tag of ['A', 'B'])
      await importRun(t.db, { collection: 'c', text: run(tag), file: tag });
  }

  it('estimates stored runs as assay ppi does, and refuses what it cannot estimate', async () => {
    await collection([3, 3, 1], [2, 1, 1]);
    const r = await estimateLeaderboard(t.db, {
      collection: 'c',
      humanLabelSet: 'people',
      llmLabelSet: 'llm',
      measures: ['P@4'],
    });
    const a = r.rows.find((x) => x.run === 'A')!;
    const expected = predictionPoweredMean(p4([3, 3, 1]), p4(LLM_A.slice(0, 3)), p4(LLM_A));
    expect(a.estimate).toBeCloseTo(0.5, 12);
    expect(a.ci_upper).toBeCloseTo(expected.upper, 12);
    expect(a.lambda).toBe(1);
    expect([r.n, r.N]).toEqual([3, 6]);
    expect(r.humanLabelSet.name).toBe('people');
    expect(r.campaign).toBeUndefined();
    for (const bad of [
      { humanLabelSet: 'llm' },
      { measures: ['nope@3'] },
      { sampling: 'pairs' as const },
      { alpha: 2 },
    ]) {
      const error = (await estimateLeaderboard(t.db, {
        collection: 'c',
        humanLabelSet: 'people',
        llmLabelSet: 'llm',
        ...bad,
      }).catch((e: unknown) => e)) as PlatformError;
      expect(error.code, JSON.stringify(bad)).toBe('invalid_input');
    }
  });

  it("a campaign's label set counts the topics people finished, so intervals narrow as they label", async () => {
    await collection([3, 1], [2, 1]);
    const created = await addUser(t.db, { name: 'ann', role: 'annotator' });
    const user = await authenticate(t.db, created.token);
    const summary = await createCampaign(t.db, {
      collection: 'c',
      name: 'estimate',
      pool: undefined,
      items: [1, 2, 3].flatMap((topic) =>
        ['A', 'B'].flatMap((r) =>
          [1, 2, 3, 4].map((i) => ({ topic: String(topic), docno: `${r}${i}` })),
        ),
      ),
      scale: { min: 0, max: 1 },
      annotators: [created.id],
    });
    const items = await listCampaignItems(t.db, summary.id);
    // People's grades (relevant among the four: A 3 1 1, B 2 1 1), topics 1 and 2 in full
    // and on topic 3 only A's first document so far.
    const human: Record<string, number[]> = { A: [3, 1, 1], B: [2, 1, 1] };
    const label = async (topic: number) => {
      for (const item of items.filter((i) => i.topicId === String(topic))) {
        const [r, k] = [item.docId[0]!, Number(item.docId.slice(1))];
        await saveAnnotationLabel(t.db, summary.id, user, {
          item: item.id,
          grade: k <= human[r]![topic - 1]! ? 1 : 0,
        });
      }
    };
    await label(1);
    await label(2);
    await saveAnnotationLabel(t.db, summary.id, user, {
      item: items.find((i) => i.topicId === '3')!.id,
      grade: 1,
    });
    const early = await estimateLeaderboard(t.db, {
      collection: 'c',
      humanLabelSet: 'estimate',
      llmLabelSet: 'llm',
      measures: ['P@4'],
      targetHalfWidth: 0.05,
    });
    expect(early.campaign).toMatchObject({ name: 'estimate', topics: 3, finishedTopics: 2 });
    expect(early.n).toBe(2);
    const a2 = early.rows.find((x) => x.run === 'A')!;
    const expected = predictionPoweredMean(p4([3, 1]), p4(LLM_A.slice(0, 2)), p4(LLM_A));
    expect(a2.estimate).toBeCloseTo(expected.estimate, 12);
    expect(early.needed!.more).toBe(early.needed!.units - 2);
    await label(3);
    const later = await estimateLeaderboard(t.db, {
      collection: 'c',
      humanLabelSet: 'estimate',
      llmLabelSet: 'llm',
      measures: ['P@4'],
    });
    expect(later.campaign!.finishedTopics).toBe(3);
    const a3 = later.rows.find((x) => x.run === 'A')!;
    expect(a3.estimate).toBeCloseTo(
      predictionPoweredMean(p4([3, 1, 1]), p4(LLM_A.slice(0, 3)), p4(LLM_A)).estimate,
      12,
    );
    expect(a3.ci_upper - a3.ci_lower).toBeLessThan(a2.ci_upper - a2.ci_lower);
  });

  it('reports on stored judges with the cost and calls of their judge job', async () => {
    const template = loadJudgeTemplates(
      fileURLToPath(new URL('../../../judges/', import.meta.url)),
    ).get('graded-0-3')!;
    // The test double grades document k with k mod 4.
    server = await startOpenAITestServer((body) => {
      const messages = body.messages as Array<{ content: string }>;
      const k = Number(/doc-(\d+)/.exec(messages[1]!.content)![1]);
      return { reply: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: k % 4 }) };
    });
    const items = Array.from({ length: 8 }, (_, k) => ({
      topicId: `q${k % 2}`,
      docId: `doc-${k}`,
      values: judgeValues(template, { query: `query ${k % 2}` }, { text: `passage doc-${k}` }),
    }));
    await ensureJudgeJob(t.db, {
      collection: 'files',
      createCollection: true,
      labelSet: 'llm-judge',
      template,
      settings: { model: 'gpt-4o-mini' },
      items,
    });
    await runJudgeWorker(t.db, {
      deps: {
        client: new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k', timeoutMs: 2000 }),
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
        sleep: async () => {},
      },
    });
    // People: document k graded (k + 1) mod 4 for k < 4, k mod 4 after.
    const people = items.map(
      (it, k) => `${it.topicId} 0 ${it.docId} ${k < 4 ? (k + 1) % 4 : k % 4}`,
    );
    await importQrels(t.db, {
      collection: 'files',
      labelSet: 'people',
      text: `${people.join('\n')}\n`,
      file: 'people',
      scale: { min: 0, max: 3 },
    });
    const r = await reportOnJudges(t.db, {
      collection: 'files',
      human: 'people',
      judges: ['llm-judge'],
      samples: 0,
    });
    const j = r.judges[0]!;
    // 8 items, one call each; gpt-4o-mini list price on the double's 100 + 10 tokens.
    expect(j.cost).toMatchObject({ items: 8, calls: 8 });
    expect(j.cost!.costUsd).toBeCloseTo((8 * (100 * 0.15 + 10 * 0.6)) / 1e6, 15);
    expect(j.cost!.perThousandItems.calls).toBe(1000);
    // The same analysis as from the files.
    const grades = (list: string[]) => {
      const m = new Map<string, Map<string, number>>();
      for (const line of list) {
        const [q, , d, g] = line.split(' ');
        if (!m.has(q!)) m.set(q!, new Map());
        m.get(q!)!.set(d!, Number(g));
      }
      return m;
    };
    const direct = judgeReport({
      human: { name: 'people', grades: grades(people) },
      judges: [
        {
          name: 'llm-judge',
          grades: grades(items.map((it, k) => `${it.topicId} 0 ${it.docId} ${k % 4}`)),
        },
      ],
      scale: { min: 0, max: 3 },
      samples: 0,
    });
    expect(j.agreement).toEqual(direct.judges[0]!.agreement);
    expect(j.agreement.exactAgreement).toBe(0.5);
    const error = (await reportOnJudges(t.db, { collection: 'files', judges: ['llm-judge'] }).catch(
      (e: unknown) => e,
    )) as PlatformError;
    expect(error.code).toBe('invalid_input');
  });
});
