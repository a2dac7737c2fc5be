import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TOOLKIT = { group: ['@actions/core'], message: 'Only main.ts and post.ts use the toolkit.' };
const GITHUB = { group: ['@actions/github'], message: 'Only src/github/ uses @actions/github.' };
const HTTP = {
  group: ['@actions/http-client', 'node:http', 'node:https', 'http', 'https'],
  message: 'Only src/api/http.ts speaks HTTP.',
};

/** Files that may not import the given modules. */
function layer(files, ignores, patterns) {
  return { files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

export default tseslint.config(
  { ignores: ['dist/', 'lib/', 'node_modules/', 'coverage/', 'test/promptfoo/.install/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // The layering rules: only main.ts and post.ts touch the runner's toolkit; only src/github/
  // (called from them) uses @actions/github; only src/api/http.ts speaks HTTP.
  layer(
    ['src/**/*.ts'],
    ['src/action/main.ts', 'src/action/post.ts', 'src/github/**', 'src/api/http.ts', 'src/**/*.test.ts'],
    [TOOLKIT, GITHUB, HTTP],
  ),
  // The bin is plain CommonJS any Node.js can parse, so it can say which Node it needs.
  { files: ['bin/**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  layer(['src/action/main.ts', 'src/action/post.ts'], [], [GITHUB, HTTP]),
  layer(['src/github/**/*.ts'], [], [TOOLKIT, HTTP]),
  layer(['src/api/http.ts'], [], [TOOLKIT, GITHUB]),
);
