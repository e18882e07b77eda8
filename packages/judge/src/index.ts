// @assay/judge: LLM judging — templates, rendering, answer parsing and judging one item
// (over the prompt files, the ask loop and the call store of @assay/llm).

/** Judge templates: prompt files with a kind, a scale and an answer schema (rendered by `renderPrompt` of @assay/llm). */
export {
  JUDGE_KINDS,
  loadJudgeTemplates,
  parseTemplate,
  type JudgeKind,
  type JudgeTemplate,
  type TemplateValues,
} from './template.js';
/** Reading a judge's raw answer (JSON with schema check, labelled-grade fallback). */
export { parseJudgeOutput, type ParseResult, type ParsedJudgment } from './parse-output.js';
/** Judging one item end to end. */
export {
  buildJudgeRequest,
  gradeDistribution,
  judgeItem,
  type JudgeDeps,
  type JudgeOutcome,
  type JudgeSettings,
} from './judge.js';
/** Chat fine-tuning JSONL from judged pairs: a yes/no judge's prompts and its answers. */
export {
  checkBinaryTemplate,
  finetuneExample,
  formatFinetuneJsonl,
  selectFinetunePairs,
  type FinetuneExample,
  type FinetuneOptions,
  type FinetunePair,
} from './finetune-export.js';
