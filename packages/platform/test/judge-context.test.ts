import { listJudgeTasks } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { createCollectionJudgeJob, importCollection, importTopics } from '../src/index.js';

forEachDatabase('a judge job over stored conversational topics', (t) => {
  it("fills graded-0-4's background, history and reference answer from the stored topic", async () => {
    await importCollection(t.db, {
      name: 'ikat',
      format: 'jsonl',
      text: '{"id":"d1","text":"E-bikes suit daily commutes."}\n',
      file: 'docs.jsonl',
    });
    await importTopics(t.db, {
      collection: 'ikat',
      file: 'topics.jsonl',
      text:
        JSON.stringify({
          id: '1',
          text: 'Which of them suits me?',
          context: {
            previous_turns: ['Which bikes are good for commuting?'],
            user_background: 'I cycle 10 km to work.',
            reference_answer: 'An e-bike.',
          },
        }) + '\n',
    });
    const job = await createCollectionJudgeJob(t.db, {
      collection: 'ikat',
      labelSet: 'gpt-0-4',
      judge: 'graded-0-4',
      settings: { model: 'm' },
      items: [{ topicId: '1', docId: 'd1' }],
    });
    const [task] = await listJudgeTasks(t.db, job.job.id);
    expect(task!.values).toEqual({
      query: 'Which of them suits me?',
      background: '1. I cycle 10 km to work.',
      history: 'user: Which bikes are good for commuting?',
      reference_answer: 'An e-bike.',
      passage: 'E-bikes suit daily commutes.',
    });
  });
});
