import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeOnEngines } from './cli-fixtures.js';
import { assay } from './run-cli.js';

/** The user message of a chat request the double received. */
const userOf = (body: Record<string, unknown>) =>
  (body.messages as Array<{ content: string }>)[1]!.content;

// Generate-then-retrieve's judging protocol: the 0-4 judge sees the user's background,
// the conversation so far and a reference answer, as the topics give them.
describeOnEngines(
  'assay judge with conversational topics',
  {
    prefix: 'assay-judge-context-',
    // The first command creates the database: slow on a busy machine.
    timeout: 120_000,
    files: {
      'topics.jsonl':
        JSON.stringify({
          id: '1',
          text: 'Which of them suits me?',
          previous_turns: [
            'Which bikes are good for commuting?',
            { role: 'assistant', text: 'E-bikes and hybrids.' },
          ],
          user_background: ['I cycle 10 km to work.', 'I live in Utrecht.'],
          reference_answer: 'An e-bike with a 50 km range.',
        }) +
        '\n' +
        JSON.stringify({ id: '2', text: 'boiling point of water' }) +
        '\n',
      'docs.jsonl':
        '{"id":"d1","text":"E-bikes suit daily commutes."}\n{"id":"d2","text":"Water boils at 100 C."}\n',
      'pool.txt': '1\td1\n2\td2\n',
    },
  },
  (ws) => {
    const judge = (judgeId: string, out: string, ...extra: string[]) =>
      assay(
        { ...ws.env, ...(ws.double.server ? { OPENAI_BASE_URL: ws.double.server.baseURL } : {}) },
        'judge',
        ...['--judge', judgeId, '--model', 'm', '--topics', ws.path('topics.jsonl')],
        ...['--docs', ws.path('docs.jsonl'), '--pool', ws.path('pool.txt')],
        ...['--out', ws.path(out), ...extra],
      );

    it('the dry run says which slots the topics fill and which stay empty', async () => {
      const dry = await judge('graded-0-4', 'dry.qrels', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(
        '  template slots (what the items fill in):\n' +
          '    {{query}}: 2 of 2 items\n' +
          '    {{passage}}: 2 of 2 items\n' +
          '    {{background}} (optional): 1 of 2 items; empty for topic 2\n' +
          '    {{history}} (optional): 1 of 2 items; empty for topic 2\n' +
          '    {{reference_answer}} (optional): 1 of 2 items; empty for topic 2\n',
      );
    });

    it("fills the judge's background, history and reference answer from the topic", async () => {
      const server = await ws.double.start(() => ({ reply: '{"grade": 3}' }));
      const result = await judge('graded-0-4', 'ctx.qrels');
      expect(result.code).toBe(0);
      const prompts = server.requests.map((r) => userOf(r.body));
      const withContext = prompts.find((p) => p.includes('Which of them suits me?'))!;
      expect(withContext).toBe(
        'What we know about the user:\n' +
          '1. I cycle 10 km to work.\n2. I live in Utrecht.\n\n' +
          'Conversation so far:\n' +
          'user: Which bikes are good for commuting?\nassistant: E-bikes and hybrids.\n\n' +
          "The user's current request: Which of them suits me?\n" +
          'A good answer to this request would say, for example:\n' +
          'An e-bike with a 50 km range.\n\n' +
          'Grade the passage below on this scale:\n' +
          '4 = highly relevant: it could answer the request on its own;\n' +
          '3 = relevant: it covers an important part of a good answer;\n' +
          '2 = partly relevant: it is useful for some part of the answer;\n' +
          '1 = related to the topic but not useful for the answer;\n' +
          '0 = not relevant.\n\n' +
          'Example. Request: "Which of these is better for my commute, given I cycle 10 km?" Passage:\n' +
          '"E-bikes with a 50 km range suit daily commutes of 10 to 20 km." Grade: {"grade": 3}\n\n' +
          'Passage:\nE-bikes suit daily commutes.\n\n' +
          'Answer with JSON only: {"grade": <0-4>}',
      );
      // A topic without context leaves the optional blocks out.
      const plain = prompts.find((p) => p.includes('boiling point'))!;
      expect(plain.startsWith("The user's current request: boiling point of water\n\n")).toBe(true);
    });

    it('refuses a template whose required slot a topic leaves empty, naming the topics', async () => {
      const judges = ws.path('judges');
      mkdirSync(judges, { recursive: true });
      writeFileSync(
        join(judges, 'needs-answer.md'),
        [
          '---',
          'id: needs-answer',
          'kind: relevance',
          'description: Grades a passage against a reference answer it always shows',
          'scale: { min: 0, max: 1 }',
          'output:',
          '  grade_field: grade',
          '  schema: { type: object, required: [grade], properties: { grade: { type: integer } } }',
          'source: A test template.',
          'system: You grade passages.',
          '---',
          'Request: {{query}}',
          'Reference answer: {{reference_answer}}',
          'Passage: {{passage}}',
          '',
        ].join('\n'),
      );
      const server = await ws.double.start(() => ({ reply: '{"grade": 1}' }));
      const result = await judge('needs-answer', 'refused.qrels', '--judges', judges);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'judge needs-answer needs {{reference_answer}} for every item, and 1 topic gives none (2): give "reference_answer" in the topics',
      );
      expect(server.requests).toHaveLength(0);
    });
  },
);
