// How to pool stored runs: the body of POST …/pools, and the `pool` a judge job and a
// campaign are made from, with the platform's pool spec made from it.
import { z } from '@hono/zod-openapi';
import { NameOrId, TopicId } from '../core/schemas.js';

/** How to pool stored runs (the body of POST …/pools and the `pool` of a judge job). */
export const PoolSpecSchema = z
  .object({
    runs: z
      .array(NameOrId)
      .min(1)
      .max(1000)
      .openapi({ description: 'stored runs of the collection', example: ['bm25', 'splade'] }),
    depth: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .openapi({ description: 'each run’s top k documents per topic', example: 10 }),
    topics: z
      .array(TopicId)
      .min(1)
      .max(100_000)
      .optional()
      .openapi({ description: 'only these topics, in this order (default: all, byte order)' }),
    order: z.enum(['best-rank', 'rrf', 'move-to-front', 'docno']).optional().openapi({
      description: 'judging order within a topic (default best-rank)',
    }),
    perTopicCap: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: 'keep at most this many documents per topic' }),
    excludeLabelSets: z.array(NameOrId).max(100).optional().openapi({
      description: 'leave out pairs these label sets already grade (≥ 0)',
    }),
  })
  .openapi('PoolSpec');

/** The platform's pool spec from a validated body (optional fields only when given). */
export function poolSpec(body: z.infer<typeof PoolSpecSchema>) {
  return {
    runs: body.runs,
    depth: body.depth,
    ...(body.topics === undefined ? {} : { topics: body.topics }),
    ...(body.order === undefined ? {} : { order: body.order }),
    ...(body.perTopicCap === undefined ? {} : { perTopicCap: body.perTopicCap }),
    ...(body.excludeLabelSets === undefined ? {} : { excludeLabelSets: body.excludeLabelSets }),
  };
}
