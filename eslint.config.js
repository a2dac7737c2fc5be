import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'lib/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The layering rule: only main.ts and post.ts touch the runner's toolkit; only the transport touches HTTP.
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts', 'src/post.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@actions/core', '@actions/github'], message: 'Only main.ts and post.ts use the toolkit.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts', 'src/post.ts', 'src/api/http.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@actions/core', '@actions/github'], message: 'Only main.ts and post.ts use the toolkit.' },
            {
              group: ['@actions/http-client', 'node:http', 'node:https', 'http', 'https'],
              message: 'Only src/api/http.ts speaks HTTP.',
            },
          ],
        },
      ],
    },
  },
);
