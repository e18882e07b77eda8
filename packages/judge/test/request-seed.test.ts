import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requestHash } from '@assay/llm';
import { buildJudgeRequest, loadJudgeTemplates } from '../src/index.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const template = loadJudgeTemplates(JUDGES).get('answer-quality')!;
const values = { query: 'tortoise lifespan', answer: 'About a century.' };

describe('the seed of a judge request', () => {
  it('is absent on a first attempt, the attempt number on a re-ask', () => {
    expect(buildJudgeRequest(template, values, { model: 'm' }).seed).toBeUndefined();
    expect(buildJudgeRequest(template, values, { model: 'm' }, 3).seed).toBe(3);
  });

  it('is the settings seed, plus attempt − 1 on a re-ask, so trials are distinct requests', () => {
    const trial2 = buildJudgeRequest(template, values, { model: 'm', seed: 2000 });
    expect(trial2.seed).toBe(2000);
    expect(buildJudgeRequest(template, values, { model: 'm', seed: 2000 }, 2).seed).toBe(2001);
    const trial1 = buildJudgeRequest(template, values, { model: 'm' });
    const hash = (r: object) => requestHash({ endpoint: 'chat.completions', ...r });
    expect(hash(trial2)).not.toBe(hash(trial1));
  });
});
