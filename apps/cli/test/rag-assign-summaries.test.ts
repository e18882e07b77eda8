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
  },
);
