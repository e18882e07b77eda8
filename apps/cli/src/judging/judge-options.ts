import type { JudgeTemplate } from '@assay/judge';
import {
  hasJudgeEndpoint,
  loadJudgeTemplate,
  PlatformError,
  type AssayConfig,
  type JudgeEndpointOptions,
} from '@assay/platform';
import { EXIT } from '../shell/exit-codes.js';
import {
  FILE,
  integer,
  mustBe,
  number,
  TEXT,
  UsageError,
  type OptionSpec,
  type ParsedArgs,
} from '../shell/getopt.js';
import { CliError } from '../shell/io.js';

/** Options shared by `assay judge` and `assay worker` for the endpoint and its pacing. */
export type EndpointOptions = JudgeEndpointOptions;

/** `--model`, as every command that asks a judge's model declares it. */
export const MODEL_OPTION: OptionSpec = {
  long: 'model',
  key: 'model',
  kind: TEXT,
  arg: 'M',
  help: "model name (default ASSAY_JUDGE_MODEL, then the judge's own)",
};

/** `--temperature`, as the answer and RAG steps declare it. */
export const TEMPERATURE_OPTION: OptionSpec = {
  long: 'temperature',
  key: 'temperature',
  kind: number({ min: 0, max: 2 }),
  arg: 'T',
  help: "sampling temperature (default the judge's, 0)",
};

/** `--judges DIR`: judge templates read from DIR instead of the shipped ones. */
export const JUDGES_OPTION: OptionSpec = {
  long: 'judges',
  key: 'judges',
  kind: FILE,
  arg: 'DIR',
  help: 'read judge templates from DIR instead of the shipped judges/',
};

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
  {
    long: 'rpm',
    key: 'rpm',
    kind: integer({ min: 1 }),
    help: 'at most N requests per minute',
  },
  { long: 'tpm', key: 'tpm', kind: integer({ min: 1 }), help: 'at most N tokens per minute' },
  {
    long: 'timeout',
    key: 'timeout',
    kind: number({ above: 0 }),
    arg: 'SECONDS',
    help: 'per-request timeout (default 120)',
  },
];

/** Reads --base-url, --rpm, --tpm and --timeout. */
export function endpointOptions(parsed: ParsedArgs): EndpointOptions {
  const endpoint: EndpointOptions = {};
  const baseUrl = parsed.option('baseUrl');
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl))
      throw new UsageError(mustBe('--base-url', 'an http(s) URL', baseUrl));
    endpoint.baseUrl = baseUrl;
  }
  const rpm = parsed.number('rpm');
  if (rpm !== undefined) endpoint.rpm = rpm;
  const tpm = parsed.number('tpm');
  if (tpm !== undefined) endpoint.tpm = tpm;
  const seconds = parsed.number('timeout');
  if (seconds !== undefined) endpoint.timeoutMs = seconds * 1000;
  return endpoint;
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
