import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Long stateful functions are where bugs hide: in the platform, the server and the command
// no function (declaration, method, arrow or function expression) runs over MAX_LINES lines,
// and no platform file over MAX_FILE_LINES. A function that grows past it is split into
// named parts with their own tests.
const MAX_LINES = 120;
const MAX_FILE_LINES = 500;
const root = fileURLToPath(new URL('../', import.meta.url));
const FOLDERS = ['packages/platform/src', 'apps/server/src', 'apps/cli/src'];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

/** `file:line name (N lines)` of every function over the limit in `file`. */
function longFunctions(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node)
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_LINES) {
        const named = (node as { name?: ts.Node }).name;
        const parent = node.parent;
        const name =
          named?.getText(source) ??
          (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
            ? parent.name.getText(source)
            : '(anonymous)');
        found.push(`${file}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = FOLDERS.flatMap(sources);

describe('functions a reader can hold', () => {
  it(`has no function over ${MAX_LINES} lines in the platform, the server and the command`, () => {
    expect(files.length).toBeGreaterThan(150);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });

  it(`has no platform file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .filter((f) => f.startsWith('packages/platform/'))
      .map((f) => ({ f, lines: readFileSync(join(root, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${relative(root, join(root, f))} (${lines} lines)`);
    expect(long).toEqual([]);
  });
});
