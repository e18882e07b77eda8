import { describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi } from './helpers.js';

forEachDatabase('API edges', (t) => {
  describe('GET /api/judges', () => {
    it('lists the shipped judge templates by id with kind, scale and description', async () => {
      const api = await setUpApi(t.db);
      const response = await api.call('GET', '/api/judges', { token: api.admin });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Array<Record<string, unknown>>;
      // Read off the front matter of the files in judges/.
      expect(body.map((j) => [j.id, j.kind, j.scale])).toEqual([
        ['answer-quality', 'answer-quality', { min: 0, max: 5 }],
        ['binary-filter', 'relevance', { min: 0, max: 1 }],
        ['citation-support', 'citation-support', { min: 0, max: 2 }],
        ['graded-0-3', 'relevance', { min: 0, max: 3 }],
        ['graded-0-4', 'relevance', { min: 0, max: 4 }],
        ['nugget-assign', 'nugget-assignment', { min: 0, max: 2 }],
        ['nugget-create', 'nugget-creation', { min: 0, max: 1 }],
        ['nugget-importance', 'nugget-importance', { min: 0, max: 1 }],
        ['rag-groundedness', 'groundedness', { min: 0, max: 5 }],
        ['rubric-judge', 'rubric-judgment', { min: 0, max: 2 }],
      ]);
      expect(body.find((j) => j.id === 'binary-filter')).toEqual({
        id: 'binary-filter',
        kind: 'relevance',
        scale: { min: 0, max: 1 },
        description: 'Relevant or not relevant, for filtering candidates between retrieval stages',
      });
      expect((await api.call('GET', '/api/judges')).status).toBe(401);
    });
  });

  describe('label sets', () => {
    it('downloads a label set as TREC qrels and names ?replace=true on a 409', async () => {
      const api = await setUpApi(t.db);
      const admin = { token: api.admin };
      expect(
        (
          await api.call('POST', '/api/collections?name=demo&format=tsv', {
            ...admin,
            body: 'a\tx\n',
          })
        ).status,
      ).toBe(201);
      const upload = (query: string) =>
        api.call('POST', `/api/collections/demo/label-sets?${query}`, {
          ...admin,
          body: '2 0 b 1\n1 0 z 0\n1 0 a 2\n',
        });
      expect((await upload('name=my%20set')).status).toBe(201);
      const qrels = await api.call('GET', '/api/collections/demo/label-sets/my%20set/qrels', {
        token: api.admin,
      });
      expect(qrels.status).toBe(200);
      expect(qrels.headers.get('content-type')).toMatch(/^text\/plain; charset=utf-8$/i);
      expect(qrels.headers.get('content-disposition')).toBe('attachment; filename="my_set.qrels"');
      // Topics, then docnos, in byte order.
      expect(await qrels.text()).toBe('1 0 a 2\n1 0 z 0\n2 0 b 1\n');
      expect(
        await errorOf(await api.call('GET', '/api/collections/demo/label-sets/nope/qrels', admin)),
      ).toMatchObject({ status: 404, code: 'not_found' });
      expect(await errorOf(await upload('name=my%20set'))).toEqual({
        status: 409,
        code: 'conflict',
        message:
          'label set "my set" already exists in collection "demo"; add ?replace=true to overwrite it',
      });
      expect((await upload('name=my%20set&replace=true')).status).toBe(201);
    });

    it('stores an uploaded label set as an LLM label set with its judge and model', async () => {
      const api = await setUpApi(t.db);
      const admin = { token: api.admin };
      await api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin, body: 'a\tx\n' });
      const upload = (query: string) =>
        api.call('POST', `/api/collections/demo/label-sets?${query}`, {
          ...admin,
          body: '1 0 a 2\n1 0 b 0\n',
        });
      const created = await upload('name=gpt&kind=llm&judge=umbrela&model=gpt-4o');
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({
        name: 'gpt',
        kind: 'llm_judge',
        config: { judge: 'umbrela', model: 'gpt-4o' },
        labelCount: 2,
      });
      const human = (await (await upload('name=people')).json()) as {
        kind: string;
        config: Record<string, unknown>;
      };
      expect(human.kind).toBe('human_qrels');
      expect(human.config).not.toHaveProperty('model');
      // A model on a human label set is refused, and nothing is stored.
      expect(await errorOf(await upload('name=odd&model=gpt-4o'))).toMatchObject({
        status: 422,
        code: 'invalid_input',
        message: 'a judge or model belongs to an LLM label set only',
      });
      expect(await errorOf(await upload('name=odd&kind=robot'))).toMatchObject({ status: 400 });
      // An uploaded LLM label set can be replaced by another upload.
      const again = await upload('name=gpt&kind=llm&model=gpt-4.1&replace=true');
      expect(again.status).toBe(201);
      expect(await again.json()).toMatchObject({ kind: 'llm_judge', config: { model: 'gpt-4.1' } });
      const names = (
        (await (await api.call('GET', '/api/collections/demo/label-sets', admin)).json()) as Array<{
          name: string;
        }>
      ).map((l) => l.name);
      expect(names.sort()).toEqual(['gpt', 'people']);
    });
  });

  describe('evaluation-only collections, default runs and numeric topic ids', () => {
    it('evaluates and compares every run of a collection without documents', async () => {
      const api = await setUpApi(t.db);
      const admin = { token: api.admin };
      // No documents: runs and qrels alone.
      const created = await api.call('POST', '/api/collections?name=bare&format=tsv', {
        ...admin,
        body: '',
      });
      expect(created.status).toBe(201);
      expect(
        (
          await api.call('POST', '/api/collections/bare/label-sets?name=q', {
            ...admin,
            body: '1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n',
          })
        ).status,
      ).toBe(201);
      for (const run of [
        '1 Q0 d1 1 2.0 good\n1 Q0 d2 2 1.0 good\n2 Q0 d3 1 1.0 good\n',
        '1 Q0 d2 1 2.0 poor\n1 Q0 d1 2 1.0 poor\n2 Q0 d9 1 1.0 poor\n',
        '1 Q0 d2 1 2.0 half\n1 Q0 d1 2 1.0 half\n2 Q0 d3 1 1.0 half\n',
      ])
        expect(
          (await api.call('POST', '/api/collections/bare/runs', { ...admin, body: run })).status,
        ).toBe(201);
      // No `runs`: every run of the collection. P@1 by hand: good 1, 1 → 1; poor 0, 0 → 0;
      // half 0, 1 → 0.5.
      const evaluated = await api.call('POST', '/api/evaluations', {
        ...admin,
        json: { collection: 'bare', labelSet: 'q', measures: ['P.1'] },
      });
      expect(evaluated.status).toBe(200);
      const result = (await evaluated.json()) as {
        runs: Array<{ run: string; mean: Record<string, number> }>;
      };
      expect(
        Object.fromEntries(result.runs.map((r) => [r.run, r.mean['P_1'] ?? r.mean['P.1']])),
      ).toEqual({ good: 1, poor: 0, half: 0.5 });
      const compared = await api.call('POST', '/api/reports/comparisons', {
        ...admin,
        json: { collection: 'bare', labelSets: ['q'], measures: ['P.1'] },
      });
      expect(compared.status).toBe(201);
      const report = (await compared.json()) as { provenance: { runs: Array<{ name: string }> } };
      expect(report.provenance.runs.map((r) => r.name).sort()).toEqual(['good', 'half', 'poor']);

      // Topic ids as JSON numbers: topic 2 only. Depth 1: good d3, poor d9, half d3.
      const pool = await api.call('POST', '/api/collections/bare/pools', {
        ...admin,
        json: { runs: ['good', 'poor', 'half'], depth: 1, topics: [2] },
      });
      expect(pool.status).toBe(200);
      const pooled = (await pool.json()) as { items: Array<{ topicId: string; docId: string }> };
      expect(pooled.items.map((i) => `${i.topicId} ${i.docId}`).sort()).toEqual(['2 d3', '2 d9']);
      expect(
        await errorOf(
          await api.call('POST', '/api/collections/bare/pools', {
            ...admin,
            json: { runs: ['good'], depth: 1, topics: [1.5] },
          }),
        ),
      ).toMatchObject({ status: 400, code: 'invalid_input' });
    });
  });
});
