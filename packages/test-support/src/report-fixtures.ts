// The small collection the report tests (platform and API) share: human and LLM labels of
// seven pairs and three runs, written once as files for the `assay` command to read.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Human qrels: topic 1 a 2, b 0, c 1; topic 2 d 1, e 1; topic 3 f 1, g 0. */
export const HUMAN = '1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 1\n3 0 f 1\n3 0 g 0\n';
/** LLM labels of the same seven pairs: 1 1 1 / 0 1 / 1 1 (c, e and f agree with the humans). */
export const LLM = '1 0 a 1\n1 0 b 1\n1 0 c 1\n2 0 d 0\n2 0 e 1\n3 0 f 1\n3 0 g 1\n';
/** Rankings: A  t1 a x c, t2 e d, t3 f g;  B  t1 b a, t2 d, t3 g f;  C  t1 c a b, t2 x e, t3 z f. */
export const RUNS: Record<string, string> = {
  A: '1 Q0 a 1 3 A\n1 Q0 x 2 2 A\n1 Q0 c 3 1 A\n2 Q0 e 1 2 A\n2 Q0 d 2 1 A\n3 Q0 f 1 2 A\n3 Q0 g 2 1 A\n',
  B: '1 Q0 b 1 2 B\n1 Q0 a 2 1 B\n2 Q0 d 1 1 B\n3 Q0 g 1 2 B\n3 Q0 f 2 1 B\n',
  C: '1 Q0 c 1 3 C\n1 Q0 a 2 2 C\n1 Q0 b 3 1 C\n2 Q0 x 1 2 C\n2 Q0 e 2 1 C\n3 Q0 z 1 2 C\n3 Q0 f 2 1 C\n',
};

/** HUMAN, LLM and the runs as files (`human`, `llm`, `A`, `B`, `C`) in a fresh folder. */
export function writeReportFiles(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-reports-'));
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries({ human: HUMAN, llm: LLM, ...RUNS })) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], text);
  }
  return paths;
}

/** What the built `assay` command prints: an independent path through files, not the database. */
export function assay(...args: string[]): string {
  return execFileSync(process.execPath, ['apps/cli/bin/assay.js', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
}
