// @ts-check
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Code under these globs runs inside Temporal's deterministic workflow sandbox.
// The bench's workflow files, and bench/scenario.ts that its floor workflow imports, are bundled for the sandbox too.
const sandboxed = [
  'src/workflow/**/*.ts',
  'src/workflows/**/*.ts',
  'src/shared/**/*.ts',
  'bench/**/*-workflow.ts',
  'bench/scenario.ts',
];
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'bench/langgraph/**',
      'bench/.build/**',
      'docs/api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Activities must return promises even when they do not await; the rule fights that contract.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: sandboxed,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Node modules are not available in the workflow sandbox.',
            })),
            { name: 'openai', message: 'Model calls belong in an activity (src/worker/activities).' },
            { name: '@temporalio/activity', message: 'Activity APIs cannot run in the workflow sandbox.' },
            { name: '@temporalio/worker', message: 'Worker APIs cannot run in the workflow sandbox.' },
            { name: '@temporalio/client', message: 'Client APIs cannot run in the workflow sandbox.' },
          ],
          patterns: [
            {
              group: [
                '**/activities',
                '**/activities/**',
                '**/worker',
                '**/worker/**',
                '**/client',
                '**/client/**',
                '**/common/**',
                '**/cli/**',
                '**/dev/**',
                '**/inbox',
                '**/inbox/**',
                '**/testing',
                '**/testing/**',
              ],
              allowTypeImports: true,
              message:
                'The workflow sandbox may import Node-side modules (worker, client, common, cli, dev, inbox, testing) as types only (import type).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CommonJS, for what the SDK loads with require() by path (a test worker's failure converter).
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', exports: 'writable', module: 'writable' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);
