import { addUser } from '@assay/platform';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi } from './helpers.js';

const RESPONSES = [
  { topic: 'q1', system: 'a', query: 'first request', answer: 'A1' },
  { topic: 'q1', system: 'b', query: 'first request', answer: 'B1' },
  { topic: 'q2', system: 'a', query: 'second request', answer: 'A2' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

forEachDatabase('hand scores API', (t) => {
  it('stores each grade as given, per person, with no machine score set, and refuses what cannot be stored', async () => {
    const api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const created = await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: RESPONSES },
    });
    expect(created.status).toBe(201);

    // Nothing stored yet: the rubric comes from the judge template alone.
    const empty = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=answer-quality',
      admin,
    );
    expect(empty.status).toBe(200);
    const emptyBody = (await empty.json()) as {
      rubric: { criteria: string[]; scale: unknown; instructions: string };
      scores: unknown[];
    };
    expect(emptyBody.rubric.criteria).toEqual([
      'informativeness',
      'completeness',
      'novelty',
      'actionability',
    ]);
    expect(emptyBody.rubric.scale).toEqual({ min: 0, max: 5 });
    expect(emptyBody.rubric.instructions).toContain('Grade on a scale from 0 (absent) to 5');
    expect(emptyBody.rubric.instructions).not.toContain('{{');
    expect(emptyBody.scores).toEqual([]);

    const put = (json: Record<string, unknown>, token = api.admin) =>
      api.call('PUT', '/api/response-sets/rs/hand-scores', { token, json });
    const give = { judge: 'answer-quality', topic: 'q1', system: 'a' };
    expect((await put({ ...give, criterion: 'novelty', grade: 2 })).status).toBe(200);
    const again = await put({ ...give, criterion: 'novelty', grade: 4 });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      topicId: 'q1',
      system: 'a',
      criterion: 'novelty',
      grade: 4,
    });
    expect((await put({ ...give, system: 'b', criterion: 'completeness', grade: 0 })).status).toBe(
      200,
    );
    expect((await put({ ...give, topic: 'q2', criterion: 'actionability', grade: 5 })).status).toBe(
      200,
    );

    // A second admin's grades are their own.
    const { token: other } = await addUser(t.db, { name: 'other-admin', role: 'admin' });
    expect((await put({ ...give, criterion: 'novelty', grade: 1 }, other)).status).toBe(200);

    const q1 = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=answer-quality&topic=q1',
      admin,
    );
    const q1Scores = ((await q1.json()) as { scores: Array<Record<string, unknown>> }).scores;
    expect(
      q1Scores.map(({ topicId, system, criterion, grade }) => [topicId, system, criterion, grade]),
    ).toEqual([
      ['q1', 'a', 'novelty', 4],
      ['q1', 'b', 'completeness', 0],
    ]);
    const all = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=answer-quality',
      admin,
    );
    expect(((await all.json()) as { scores: unknown[] }).scores).toHaveLength(3);
    const theirs = await api.call('GET', '/api/response-sets/rs/hand-scores?judge=answer-quality', {
      token: other,
    });
    expect(
      ((await theirs.json()) as { scores: Array<{ grade: number }> }).scores.map((s) => s.grade),
    ).toEqual([1]);
    // Another template's criteria are scored apart.
    const ground = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=rag-groundedness',
      admin,
    );
    expect(((await ground.json()) as { scores: unknown[] }).scores).toEqual([]);

    expect(await errorOf(await put({ ...give, criterion: 'style', grade: 1 }))).toMatchObject({
      status: 422,
      message:
        'judge answer-quality has no criterion "style" (it has informativeness, completeness, novelty, actionability)',
    });
    expect(await errorOf(await put({ ...give, criterion: 'novelty', grade: 6 }))).toMatchObject({
      status: 422,
      message: "grade 6 is not on judge answer-quality's scale (whole numbers 0 to 5)",
    });
    expect(
      await errorOf(
        await put({ ...give, topic: 'q2', system: 'b', criterion: 'novelty', grade: 1 }),
      ),
    ).toMatchObject({
      status: 404,
      message: 'response set rs has no answer of system "b" to topic "q2"',
    });
    expect(
      (await errorOf(await put({ ...give, judge: 'graded-0-3', criterion: 'novelty', grade: 1 })))
        .status,
    ).toBe(422);
    expect(
      (
        await errorOf(
          await put({ ...give, judge: 'no-such-judge', criterion: 'novelty', grade: 1 }),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await api.call('PUT', '/api/response-sets/nope/hand-scores', {
          ...admin,
          json: { ...give, criterion: 'novelty', grade: 1 },
        })
      ).status,
    ).toBe(404);
    expect((await put({ ...give, criterion: 'novelty', grade: 1 }, api.annotator)).status).toBe(
      403,
    );
    expect(
      (await api.call('GET', '/api/response-sets/rs/hand-scores?judge=answer-quality', {})).status,
    ).toBe(401);

    // Refused writes left the stored grade alone.
    const after = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=answer-quality&topic=q1',
      admin,
    );
    expect(
      ((await after.json()) as { scores: Array<{ grade: number }> }).scores.map((s) => s.grade),
    ).toEqual([4, 0]);

    // Deleting the response set deletes its hand scores with it.
    expect((await api.call('DELETE', '/api/response-sets/rs', admin)).status).toBe(204);
    const recreated = await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: RESPONSES },
    });
    expect(recreated.status).toBe(201);
    const fresh = await api.call(
      'GET',
      '/api/response-sets/rs/hand-scores?judge=answer-quality',
      admin,
    );
    expect(((await fresh.json()) as { scores: unknown[] }).scores).toEqual([]);
  });
});
