import { fileURLToPath } from 'node:url';
import { buildPromptRequest, chatRequestHash, loadMethodPrompts, requestHash } from '@assay/llm';
import { describe, expect, it } from 'vitest';
import { buildJudgeRequest, loadJudgeTemplates } from '../src/index.js';

const root = (dir: string) => fileURLToPath(new URL(`../../../${dir}/`, import.meta.url));

// The expected file was written by the loaders and request builders as they were before
// judges and methods shared one prompt-file format: a stored judge job resumes (same
// template hash) and every stored answer is found again (same request hash). Values with
// spaces and newlines at their ends check that values go in verbatim. A deliberate change
// to a prompt file changes its lines here: review them, then update with `vitest -u`.
describe('prompt files keep their hashes', () => {
  it('judge templates (stored with their jobs) and the requests of judges and methods', async () => {
    const lines: string[] = [];
    const templates = loadJudgeTemplates(root('judges'));
    for (const [id, template] of templates)
      lines.push(`${id} ${requestHash(template as unknown as Record<string, unknown>)}`);
    for (const [id, template] of templates) {
      const values: Record<string, string> = {};
      for (const v of template.requiredVariables) values[v] = `  value of ${v}\n`;
      lines.push(
        `req ${id} ${chatRequestHash(buildJudgeRequest(template, values, { model: 'm' }))}`,
      );
      for (const v of template.optionalVariables) values[v] = ` opt ${v} `;
      const settings = { model: 'm', seed: 5, logprobs: true };
      lines.push(`req+ ${id} ${chatRequestHash(buildJudgeRequest(template, values, settings, 2))}`);
    }
    for (const [id, prompt] of loadMethodPrompts(root('methods'))) {
      const values: Record<string, string> = {};
      for (const v of prompt.requiredVariables) values[v] = `  value of ${v}\n`;
      const plain = buildPromptRequest(prompt, values, { model: 'm' });
      lines.push(`method ${id} ${chatRequestHash(plain)}`);
      const reask = buildPromptRequest(prompt, values, { model: 'm', structuredOutput: false }, 3);
      lines.push(`method2 ${id} ${chatRequestHash(reask)}`);
    }
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('__snapshots__/prompt-hashes.txt');
  });
});
