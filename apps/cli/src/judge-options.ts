import type { JudgeTemplate } from '@assay/judge';
import {
  hasJudgeEndpoint,
  loadJudgeTemplate,
  PlatformError,
  type AssayConfig,
  type JudgeEndpointOptions,
} from '@assay/platform';
import { EXIT } from './exit-codes.js';
import { type OptionSpec, TEXT, UsageError } from './getopt.js';
import { CliError } from './io.js';

/** Options shared by `assay judge` and `assay worker` for the endpoint and its pacing. */
export type EndpointOptions = JudgeEndpointOptions;

/** The endpoint options `assay judge` and `assay worker` share, declared once. */
export const ENDPOINT_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'base-url',
    key: 'baseUrl',
    kind: TEXT,
    arg: 'URL',
    help: `an OpenAI-compatible endpoint (default OPENAI_BASE_URL, else OpenAI);
the key comes from OPENAI_API_KEY`,
  },
  { long: 'rpm', key: 'rpm', kind: TEXT, arg: 'N', help: 'at most N requests per minute' },
  { long: 'tpm', key: 'tpm', kind: TEXT, arg: 'N', help: 'at most N tokens per minute' },
  {
    long: 'timeout',
    key: 'timeout',
    kind: TEXT,
    arg: 'SECONDS',
    help: 'per-request timeout (default 120)',
  },
];

/** Reads --base-url, --rpm, --tpm and --timeout. */
export function endpointOptions(option: (key: string) => string | undefined): EndpointOptions {
  const endpoint: EndpointOptions = {};
  const baseUrl = option('baseUrl');
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl))
      throw new UsageError(`--base-url must be an http(s) URL, not '${baseUrl}'`);
    endpoint.baseUrl = baseUrl;
  }
  const rpm = option('rpm');
  if (rpm !== undefined) endpoint.rpm = positiveInteger('--rpm', rpm);
  const tpm = option('tpm');
  if (tpm !== undefined) endpoint.tpm = positiveInteger('--tpm', tpm);
  const timeout = option('timeout');
  if (timeout !== undefined) {
    const seconds = nonNegativeNumber('--timeout', timeout);
    if (seconds <= 0) throw new UsageError('--timeout must be above 0');
    endpoint.timeoutMs = seconds * 1000;
  }
  return endpoint;
}

/** A `--flag N` value that must be a positive integer. */
export function positiveInteger(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new UsageError(`${name} needs a positive integer, not '${text}'`);
  return Number(text);
}

/** A `--flag X` value that must be a number >= 0. */
export function nonNegativeNumber(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new UsageError(`${name} needs a number >= 0, not '${text}'`);
  return value;
}

/** Refuses to judge without a model endpoint: OPENAI_API_KEY, OPENAI_BASE_URL or --base-url. */
export function requireEndpoint(config: AssayConfig, endpoint: EndpointOptions): void {
  if (!hasJudgeEndpoint(config, endpoint))
    throw new UsageError(
      'set OPENAI_API_KEY (and OPENAI_BASE_URL or --base-url for other endpoints)',
    );
}

/**
 * The judge `id` of `dir` (default: the shipped judges/), passed through `check`: an
 * unknown judge or one `check` refuses is a usage error, an unreadable folder bad input.
 */
export function loadCheckedTemplate(
  id: string,
  dir: string | undefined,
  check: (template: JudgeTemplate) => void,
): JudgeTemplate {
  let template: JudgeTemplate;
  try {
    template = loadJudgeTemplate(id, dir);
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    if (error.code === 'not_found') throw new UsageError(error.message);
    throw new CliError(error.message, EXIT.invalidInput);
  }
  try {
    check(template);
  } catch (error) {
    if (error instanceof PlatformError) throw new UsageError(error.message);
    throw error;
  }
  return template;
}
