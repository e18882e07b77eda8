import { z } from 'zod';
import { loadPromptFiles, parsePromptFile, type PromptFile } from './prompt-file.js';

/** One step's prompt of an LLM retrieval method, read from `methods/<id>.md`. */
export interface MethodPrompt extends PromptFile {
  /** The method it belongs to (e.g. `amd`). */
  method: string;
  /** The step within the method (e.g. `sub-questions`). */
  step: string;
}

/** The front-matter fields of a method prompt besides those of every prompt file. */
const MethodFields = z.object({
  method: z.string().min(1),
  step: z.string().min(1),
});

/** Parses a method prompt file: a prompt file (see {@link parsePromptFile}) with `method` and `step`. */
export function parseMethodPrompt(text: string, file = '<prompt>'): MethodPrompt {
  const { prompt, fields } = parsePromptFile(text, file, MethodFields);
  return { ...prompt, method: fields.method, step: fields.step };
}

/** Loads every `<id>.md` method prompt in a folder; the file name must match the id. */
export function loadMethodPrompts(dir: string): Map<string, MethodPrompt> {
  return loadPromptFiles(dir, parseMethodPrompt);
}
