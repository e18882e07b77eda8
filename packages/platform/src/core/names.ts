import { MAX_NAME_CHARS } from '@assay/trec';
import { PlatformError } from './errors.js';

/** The rule every new name obeys, as error messages and the docs state it. */
export const NAME_RULE =
  'a name may not be all digits (a number in a path or argument means an id)';

/**
 * A new name for a collection, run, label set, campaign, response set, score set or user:
 * trimmed, not empty, at most 200 characters, without NUL, and not all digits, so that an id
 * and a name can never be confused.
 * invalid_input otherwise, naming the field (`field`, e.g. "run name") and the rule.
 */
export function checkNewName(value: string, field: string): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '')
    throw new PlatformError('invalid_input', `the ${field} must not be empty`, {
      field,
      rule: 'not_empty',
    });
  if (name.length > MAX_NAME_CHARS)
    throw new PlatformError(
      'invalid_input',
      `the ${field} is longer than ${MAX_NAME_CHARS} characters`,
      { field, rule: 'max_length' },
    );
  if (name.includes('\0'))
    throw new PlatformError('invalid_input', `the ${field} contains a NUL character`, {
      field,
      rule: 'no_nul',
    });
  if (/^[0-9]+$/.test(name))
    throw new PlatformError('invalid_input', `${field} ${JSON.stringify(name)}: ${NAME_RULE}`, {
      field,
      rule: 'not_all_digits',
    });
  return name;
}

/**
 * A run's default name, its tag (trimmed): a tag that is all digits cannot name a run (it
 * would read as an id), so invalid_input asks the caller to choose a name.
 */
export function runNameFromTag(tag: string): string {
  if (/^\s*[0-9]+\s*$/.test(tag))
    throw new PlatformError(
      'invalid_input',
      `run tag ${JSON.stringify(tag.trim())} is all digits and cannot name the run (a number means an id); give the run a name`,
      { field: 'run name', rule: 'not_all_digits' },
    );
  return checkNewName(tag, 'run name');
}
