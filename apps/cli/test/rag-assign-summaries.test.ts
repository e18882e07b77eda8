import { expect, it } from 'vitest';
import { assay } from './run-cli.js';
import { describeOnEngines } from './cli-fixtures.js';

// What the assign commands store and say: a dry run keeps nothing it read (a response set,
// a rubric set, a collection it made), and the account of a support run names the
// citations that could not be assessed and how to give them their passages.

const BANK = [
  { qid: 't1', nuggets: [{ text: 'solar power', importance: 'vital' }] },
  { qid: 't2', nuggets: [{ text: 'iron oxide', importance: 'vital' }] },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

/** Answers in assay's form: S1 and S2 cite passages, S3 answers in plain text. */
const ANSWERS = [
  {
    topic: 't1',
    system: 'S1',
    query: 'energy?',
    answer: [{ text: 'Solar power.', citations: ['d1'] }],
  },
  {
    topic: 't2',
    system: 'S1',
    query: 'rust?',
    answer: [{ text: 'Iron oxide.', citations: ['d2'] }],
  },
  {
    topic: 't1',
    system: 'S2',
    query: 'energy?',
    answer: [{ text: 'Wind.', citations: ['d1', 'gone'] }],
  },
  { topic: 't2', system: 'S2', query: 'rust?', answer: [{ text: 'Red.', citations: ['d2'] }] },
  { topic: 't1', system: 'S3', query: 'energy?', answer: 'Solar power, I think.' },
  { topic: 't2', system: 'S3', query: 'rust?', answer: 'Iron oxide.' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

const RUBRICS = JSON.stringify({
  qid: 't1',
  rubrics: [{ criterion: 'names solar power', weight: 2, axis: 'Explicit' }],
});

describeOnEngines(
  'assay nuggets|support|rubrics assign: what is stored and said',
  {
    prefix: 'assay-rag-summaries-',
    timeout: 240_000,
    files: {
      'docs.jsonl': [
        { id: 'd1', text: 'Solar power turns sunlight into electricity.' },
        { id: 'd2', text: 'Rust is iron oxide.' },
      ]
        .map((d) => JSON.stringify(d))
        .join('\n'),
      'bank.jsonl': BANK,
      'answers.jsonl': ANSWERS,
      'rubrics.jsonl': RUBRICS,
    },
  },
  (ws) => {
    it('stores nothing in a dry run: not the response set, the rubric set or the collection', async () => {
      const server = await ws.double.start(() => ({ reply: '{}' }));
      const env = { ...ws.env, OPENAI_BASE_URL: server.baseURL };
      expect(
        (await assay(env, 'import', 'collection', '--name', 'rag', ws.path('docs.jsonl'))).code,
      ).toBe(0);
      expect(
        (
          await assay(
            env,
            'nuggets',
            'import',
            ws.path('bank.jsonl'),
            '--collection',
            'rag',
            '--bank',
            'nist',
          )
        ).code,
      ).toBe(0);
      const dry = await assay(
        env,
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'nist',
        '--responses',
        ws.path('answers.jsonl'),
        '--model',
        'm',
        '--dry-run',
      );
      expect(dry.code, dry.stderr).toBe(0);
      // Six answers (three systems, two topics), one nugget each: six calls.
      expect(dry.stdout).toContain('calls to send: 6 (0 prompts answered by stored calls)');
      expect(dry.stdout).toContain('nothing was sent or stored');
      expect(dry.stderr).toContain(
        'read response set "answers" (6 answers, 3 systems, 2 topics); a dry run does not store it',
      );
      expect(server.requests).toHaveLength(0);
      // The response set the dry run read is not there afterwards.
      const named = await assay(
        env,
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'nist',
        '--response-set',
        'answers',
        '--model',
        'm',
        '--dry-run',
      );
      expect(named.code).toBe(3);
      expect(named.stderr).toContain('no response set "answers"');

      // Rubrics from a file into a collection made for them: neither is kept.
      const rubrics = await assay(
        env,
        'rubrics',
        'assign',
        '--collection',
        'fresh',
        '--create-collection',
        '--rubrics',
        ws.path('rubrics.jsonl'),
        '--responses',
        ws.path('answers.jsonl'),
        '--model',
        'm',
        '--dry-run',
      );
      expect(rubrics.code, rubrics.stderr).toBe(0);
      expect(rubrics.stderr).toContain(
        'read rubric set "rubrics" (1 topics, 1 criteria); a dry run does not store it',
      );
      const gone = await assay(env, 'collections', 'delete', 'fresh');
      expect(gone.code).toBe(3);
      expect(server.requests).toHaveLength(0);
    });

    it('counts the citations it cannot assess, refuses when it can assess none, and scores a system without citations 0', async () => {
      // The double: the sentences naming solar power or iron oxide are fully supported.
      const server = await ws.double.start((body) => {
        const user = (body.messages as Array<{ content: string }>)[1]!.content;
        const passages = user.split('Cited passages, numbered:\n')[1]!.split('\n\n')[0]!;
        const n = passages.split('\n').filter((l) => /^\[\d+\]/.test(l)).length;
        const label = /The sentence: (Solar power|Iron oxide)\./.test(user) ? 'full' : 'none';
        return {
          reply: JSON.stringify(
            Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i + 1), label])),
          ),
        };
      });
      const env = { ...ws.env, OPENAI_BASE_URL: server.baseURL };
      // The README's way to a collection: made by the nugget import, without documents.
      const made = await assay(
        env,
        'nuggets',
        'import',
        ws.path('bank.jsonl'),
        '--collection',
        'bare',
        '--bank',
        'nist',
        '--create-collection',
      );
      expect(made.code, made.stderr).toBe(0);
      const support = (collection: string, ...more: string[]) =>
        assay(
          env,
          'support',
          'assign',
          '--collection',
          collection,
          '--responses',
          ws.path('answers.jsonl'),
          '--model',
          'm',
          ...more,
        );
      const refused = await support('bare');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'none of the 3 passages the answers cite is in collection "bare", so none of their 5 citations ' +
          'can be assessed (every system would score 0): add the documents with ' +
          '`assay import documents --collection bare FILE` or POST /api/collections/bare/documents, then run again',
      );
      expect(server.requests).toHaveLength(0);

      const ran = await support('rag', '--name', 'sup', '--out', ws.path('sup.jsonl'));
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(
        /^stored support assessment set "sup" \(id \d+\): 5 items judged \(1 cannot be assessed: its passage is not in collection "rag"; add the documents with 'assay import documents --collection rag FILE' and run again\), 0 failed$/m,
      );
      expect(ran.stderr).toContain('2 answers cite no passage: nothing to judge, and they score 0');
      // Four sentences cite a passage the collection holds: four calls.
      expect(server.requests).toHaveLength(4);

      const scored = await assay(
        env,
        'support',
        'score',
        ws.path('sup.jsonl'),
        '--format',
        'json',
        '--per-answer',
        ws.path('per.jsonl'),
      );
      expect(scored.code, scored.stderr).toBe(0);
      expect(scored.stderr).toContain(
        '1 of 5 citations are "cannot assess" and count in neither precision nor recall',
      );
      // S1: every citation full (1); S2: none (0, "gone" counts in neither); S3 cites nothing: 0.
      const runs = (
        JSON.parse(scored.stdout) as { runs: Array<{ run: string; means: Record<string, number> }> }
      ).runs;
      expect(runs.map((r) => [r.run, r.means.support_precision, r.means.support_recall])).toEqual([
        ['S1', 1, 1],
        ['S2', 0, 0],
        ['S3', 0, 0],
      ]);
      const stored = await assay(
        env,
        'support',
        'score',
        '--collection',
        'rag',
        '--set',
        'sup',
        '--format',
        'json',
      );
      expect(stored.stderr).toContain(
        '1 of 5 citations are "cannot assess" and count in neither precision nor recall',
      );
      expect((JSON.parse(stored.stdout) as { runs: unknown }).runs).toEqual(runs);

      // Given its documents, the bare collection's citations are assessed.
      expect(
        (await assay(env, 'import', 'documents', '--collection', 'bare', ws.path('docs.jsonl')))
          .code,
      ).toBe(0);
      const after = await support('bare', '--name', 'sup');
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toContain('5 items judged (1 cannot be assessed');
    });
  },
);
