import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/dist.next-*/**',
      'test/fixtures/**',
      '.assay/**',
      'apps/web/build/**',
      'apps/web/.svelte-kit/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Layering: the apps (their tests too) call platform use-cases; only the platform talks
    // to the database. Tests open and inspect databases through @assay/platform/testing.
    files: ['apps/*/src/**/*.ts', 'apps/*/test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@assay/db', message: 'apps call @assay/platform use-cases instead' },
            { name: 'kysely', message: 'apps call @assay/platform use-cases instead' },
            {
              name: '@assay/test-support/database',
              message: "apps' tests open databases through @assay/platform/testing",
            },
          ],
          patterns: [
            {
              group: ['@assay/db/*', 'kysely/*', '**/packages/db/**'],
              message: 'apps call @assay/platform (or @assay/platform/testing in tests) instead',
            },
          ],
        },
      ],
    },
  },
);
