// Schemas and presenters the answers routes share: a score set as the API shows it, on
// its own routes and as what scoring a response set makes.
import type { ScoreSet } from '@assay/platform';
import { z } from '@hono/zod-openapi';

const Timestamp = z.string().openapi({ format: 'date-time' });

/** A score set as the API shows it. */
export const ScoreSetSchema = z
  .object({
    id: z.number().int(),
    responseSetId: z.number().int(),
    name: z.string(),
    judgeId: z.string(),
    mode: z.enum(['pointwise', 'comparative', 'imported']),
    criteria: z.array(z.string()),
    settings: z.record(z.string(), z.unknown()),
    scored: z.number().int(),
    failed: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('ScoreSet');

/** A score set as JSON. */
export function presentScoreSet(s: ScoreSet) {
  return {
    id: s.id,
    responseSetId: s.responseSetId,
    name: s.name,
    judgeId: s.judgeId,
    mode: s.mode,
    criteria: s.criteria,
    settings: s.settings as Record<string, unknown>,
    scored: s.scored,
    failed: s.failed,
    createdAt: s.createdAt.toISOString(),
  };
}
