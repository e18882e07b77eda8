import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One Vitest project per workspace that has a test/ folder, so `npm test` runs them all
// and `npx vitest --project trec` runs one.
const workspaces = ['packages', 'apps'].flatMap((group) =>
  readdirSync(group)
    .filter((name) => existsSync(`${group}/${name}/test`))
    .map((name) => ({ name, dir: `${group}/${name}` })),
);

export default defineConfig({
  resolve: { conditions: ['source'] },
  test: {
    // The CLI bundle is built once here; tests that start `assay` run it.
    globalSetup: ['./test/global-setup.ts'],
    projects: workspaces.map(({ name, dir }) => ({
      extends: true,
      test: {
        name,
        include: [`${dir}/test/**/*.test.ts`],
        testTimeout: 30_000,
      },
    })),
  },
});
