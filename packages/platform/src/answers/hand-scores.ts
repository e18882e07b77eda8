// Scores people give answers by hand, one criterion at a time, stored as each is given:
// a person scores a response set with the criteria and scale of an answer judge template
// (no machine score set needed); what is stored is what the page shows.
import {
  listHandScores,
  listResponses,
  saveHandScore,
  type HandScore,
  type Queryable,
} from '@assay/db';
import type { JudgeTemplate } from '@assay/judge';
import { PlatformError, writing } from '../core/errors.js';
import type { Actor } from '../reports/reports.js';
import { answerJudgeTemplate, resolveResponseSet, type ResponseSetRef } from './answer-sets.js';

export type { HandScore };

/** The rubric a person scores with: a judge template's criteria, scale and instructions. */
export interface HandRubric {
  judgeId: string;
  description: string;
  criteria: string[];
  scale: { min: number; max: number };
  /** The template's instructions without the parts that hold the answer (its variables). */
  instructions: string;
}

/** A person's stored hand scores of a response set under one judge template. */
export interface HandScores {
  responseSet: { id: number; name: string };
  rubric: HandRubric;
  scores: HandScore[];
}

/** One grade to store. */
export interface HandScoreInput {
  topic: string;
  system: string;
  criterion: string;
  grade: number;
}

/**
 * A judge template's prompt as instructions for a person: the optional blocks
 * (`{{#x}}…{{/x}}`) and the lines with a variable left out, blank runs collapsed.
 */
function rubricInstructions(prompt: string): string {
  const withoutBlocks = prompt.replace(/\{\{#(\w+)\}\}[\s\S]*?\{\{\/\1\}\}/g, '');
  return withoutBlocks
    .split('\n')
    .filter((line) => !/\{\{[^}]*\}\}/.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function rubricOf(template: JudgeTemplate): HandRubric {
  return {
    judgeId: template.id,
    description: template.description,
    criteria: [...(template.criteria ?? [])],
    scale: { min: template.scale.min, max: template.scale.max },
    instructions: rubricInstructions(template.prompt),
  };
}

/**
 * The grades `user` gave the answers of a response set under judge template `judge`
 * (optionally one topic's): not_found for an unknown set or judge, invalid_input for a
 * judge that does not grade answers.
 */
export async function getHandScores(
  db: Queryable,
  ref: ResponseSetRef,
  judge: string,
  user: Actor,
  options: { topic?: string } = {},
): Promise<HandScores> {
  const set = await resolveResponseSet(db, ref);
  const template = answerJudgeTemplate(judge);
  const scores = await listHandScores(
    db,
    { responseSetId: set.id, userId: user.id, judgeId: template.id },
    options.topic === undefined ? {} : { topicId: options.topic },
  );
  return { responseSet: { id: set.id, name: set.name }, rubric: rubricOf(template), scores };
}

/**
 * Stores one grade `user` gave a criterion of an answer (a newer grade of the same
 * criterion replaces it) and returns it as stored. not_found for an unknown set, judge or
 * answer; invalid_input for a criterion the judge does not have or a grade off its scale.
 */
export async function giveHandScore(
  db: Queryable,
  ref: ResponseSetRef,
  judge: string,
  user: Actor,
  input: HandScoreInput,
): Promise<HandScore> {
  const set = await resolveResponseSet(db, ref);
  const template = answerJudgeTemplate(judge);
  const criteria = template.criteria ?? [];
  if (!criteria.includes(input.criterion))
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} has no criterion ${JSON.stringify(input.criterion)} (it has ${criteria.join(', ')})`,
    );
  const { min, max } = template.scale;
  if (!Number.isInteger(input.grade) || input.grade < min || input.grade > max)
    throw new PlatformError(
      'invalid_input',
      `grade ${input.grade} is not on judge ${template.id}'s scale (whole numbers ${min} to ${max})`,
    );
  const answers = await listResponses(db, set.id, { topicId: input.topic });
  if (!answers.some((a) => a.system === input.system))
    throw new PlatformError(
      'not_found',
      `response set ${set.name} has no answer of system ${JSON.stringify(input.system)} to topic ${JSON.stringify(input.topic)}`,
    );
  return writing(
    () =>
      saveHandScore(
        db,
        { responseSetId: set.id, userId: user.id, judgeId: template.id },
        {
          topicId: input.topic,
          system: input.system,
          criterion: input.criterion,
          grade: input.grade,
        },
      ),
    'the hand score changed at the same moment: send it again',
  );
}
