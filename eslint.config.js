import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node's built-in modules, bare and with the `node:` prefix: none of them belongs in deterministic workflow code. */
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  // evals/cases/ holds the suite's fixture repositories: projects of their own, with their own settings.
  { ignores: ['node_modules/', '.tools/', '.test-output/', 'bench/.out/', '.cache/', 'dist/', '**/*.mjs', 'evals/cases/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error, and in a workflow its ordering.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Prettier wraps code at 140; this catches what it cannot wrap (comments), and lets long messages stay whole.
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    // Workflow code is replayed: it may import types from activities, never their implementations, and no Node APIs.
    // What workflows import (the wire contract and the pure helpers) is held to the same rule.
    files: ['src/workflows/**/*.ts', 'src/shared/**/*.ts', 'src/text/**/*.ts', 'src/shell/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'workflow code is deterministic and runs in the workflow sandbox: do this in an activity',
          })),
          patterns: [
            {
              group: ['**/activities/**', '@temporalio/activity', '@temporalio/worker', '@temporalio/client'],
              allowTypeImports: true,
              message: 'workflow code may import activity types only; call activities through proxyActivities',
            },
          ],
        },
      ],
    },
  },
);
