import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDataDir, loadConfig } from '../src/index.js';

describe('findDataDir', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'assay-find-')));
  const project = join(root, 'project');
  const deep = join(project, 'runs', '2024', 'dl');
  mkdirSync(join(project, '.assay'), { recursive: true });
  mkdirSync(deep, { recursive: true });

  it('uses ./.assay when the working directory has one', () => {
    expect(findDataDir(project)).toBe('./.assay');
  });

  it("finds the nearest ancestor's .assay from a subfolder, as git finds .git", () => {
    expect(findDataDir(deep)).toBe(join(project, '.assay'));
    mkdirSync(join(project, 'runs', '.assay'));
    expect(findDataDir(deep)).toBe(join(project, 'runs', '.assay'));
  });

  it('falls back to ./.assay when no folder up the tree has one, ignoring a file named .assay', () => {
    const lonely = join(root, 'elsewhere', 'sub');
    mkdirSync(lonely, { recursive: true });
    writeFileSync(join(root, 'elsewhere', '.assay'), 'not a folder');
    expect(findDataDir(lonely)).toBe('./.assay');
  });

  it('is what loadConfig uses unless ASSAY_DATA_DIR is set', () => {
    expect(loadConfig({}, deep).dataDir).toBe(join(project, 'runs', '.assay'));
    expect(loadConfig({ ASSAY_DATA_DIR: '/srv/assay' }, deep).dataDir).toBe('/srv/assay');
  });
});
