// The workspaces the tests of a fork's files run in: a checkout's files beside the runner's event
// payload (`event.json`), as a pull request from a fork (or the repository itself) brings them.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onEvent, workspaceWith } from './harness.ts';

export const REPO_ID = 1001;
export const FORK_ID = 2002;
/** What a checkout's .git/config holds (its token): never read, never sent. */
export const CANARY = 'git-config-canary-5e1f';
/** The judge key in the step's environment. */
export const STEP_KEY = 'sk-step-openai-key-0123456789';

/** A pull request's payload whose head is a fork. */
export const forkPr = { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } };

/** A workspace with `files` and the runner's event payload (`event.json`); `prefix` names the folder. */
export const eventWorkspace = (
  files: Record<string, string>,
  payload: Record<string, unknown> = {},
  prefix = 'claw-event-',
): string =>
  workspaceWith(
    { ...files, 'event.json': JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...payload }) },
    prefix,
  );

/**
 * A workspace with `files` (folders made), a checkout's `.git/config` holding the canary, a nested
 * repository's `sub/.git/config`, a folder link `docs -> .git`, and the event payload.
 */
export function checkout(files: Record<string, string>, event: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-checkout-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'config'), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}\n`);
  writeFileSync(join(dir, '.git', 'notes.md'), `${CANARY}\n`);
  mkdirSync(join(dir, 'sub', '.git'), { recursive: true });
  writeFileSync(join(dir, 'sub', '.git', 'config'), `${CANARY}\n`);
  symlinkSync('.git', join(dir, 'docs'));
  writeFileSync(
    join(dir, 'event.json'),
    JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...event }),
  );
  return dir;
}

/** A run in the workspace `dir` under `event`, the judge's key in the step's environment. */
export const on = (dir: string, event: string, extra: Record<string, string> = {}) =>
  onEvent(dir, event, { OPENAI_API_KEY: STEP_KEY, ...extra });

/** Fork events in spellings the other tests do not use: a deleted fork, a review comment, no payload. */
export const FORK_EVENTS: [event: string, payload: Record<string, unknown>, named: string][] = [
  [
    'pull_request_review_comment',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } },
    'pull_request_review_comment from a fork',
  ],
  ['workflow_run', { workflow_run: { event: 'pull_request', head_repository: null } }, 'workflow_run from a fork'],
  [
    'pull_request',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: null } } },
    'pull_request from a fork',
  ],
  ['pull_request_target', {}, 'pull_request_target'],
  [
    'issue_comment',
    { issue: { number: 7, pull_request: { url: 'https://api.github.com/repos/octo/claws/pulls/7' } } },
    'issue_comment on a pull request',
  ],
];

/** A promptfoo config's one prompt. */
export const PROMPT = "prompts: ['Say {{q}}']\n";
/** A promptfoo config of one test whose assertions are `assert` (YAML), `extra` before the tests. */
export const withAssert = (assert: string, extra = '') =>
  `${PROMPT}${extra}tests:\n  - vars: {q: a}\n    assert: ${assert}\n`;
/** A promptfoo config whose tests are a CSV file with one row expecting `expected`. */
export const csv = (expected: string) => ({
  'c.yaml': `${PROMPT}tests:\n  - file://t.csv\n`,
  't.csv': `q,__expected\na,"${expected}"\n`,
});
/** A promptfoo config of one prompt, `prompt`, and one test asserting it contains 'a'. */
export const promptConfig = (prompt: string): string =>
  `prompts:\n  - ${JSON.stringify(prompt)}\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`;
