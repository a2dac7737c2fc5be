// Every input of the action, gathered from the rows each feature keeps (input-row.ts): the core's
// own inputs are here, the others in deploy/inputs.ts, health/inputs.ts, checks/inputs.ts,
// manifest/inputs.ts and preview/inputs.ts. action.yml's `inputs:`, docs/reference.md's table and
// --help are generated from this list (`npm run generate`), and the Settings types and the reader
// come from it, so they cannot drift apart. Each input is a long flag of the command line (`--claw-id`).
import type { InputRow } from '../shared/input-row.js';
import { parsePositiveDuration, parseWord } from '../shared/parse.js';
import { CHECKS_INPUTS } from '../checks/inputs.js';
import { DEPLOY_INPUTS } from '../deploy/inputs.js';
import { HEALTH_INPUTS } from '../health/inputs.js';
import { MANIFEST_INPUTS } from '../manifest/inputs.js';
import { PREVIEW_INPUTS } from '../preview/inputs.js';

export type { InputRow } from '../shared/input-row.js';
/** One input (the name the tests and --help have always used). */
export type InputSpec = InputRow;

/** The groups, in the order action.yml, docs/reference.md and --help list them. */
export const GROUPS = [
  'The command',
  'Which Claw',
  'Which deployment',
  'Claws as code',
  'Applying',
  'Drift',
  'The deployment',
  'Waiting',
  'Rolling back',
  'A fleet (several Claws)',
  'Conversation checks',
  'Comparing (before and after)',
  'Health',
  'Previews',
  'The service',
  'GitHub',
  'Health over time',
] as const;

/** The inputs every command reads, and those of the service and GitHub that several share. */
const CORE_INPUTS = [
  {
    name: 'command',
    description:
      "What to do: deploy, wait, rollback, health, check (a checks file against Claws, no deployment), compare (the checks on a baseline and a candidate, compared), deployments (a Claw's recent deployments); or, for Claws as code, plan, apply, drift or preview (preview Claws on pull requests).",
    reference:
      '`deploy`, `wait`, `rollback`, `health`, `check`, `compare`, `deployments`; for Claws as code, `plan`, `apply`, `drift` or `preview` (see [Commands](#commands))',
    default: 'deploy',
    emptyMeansDefault: true,
    group: 'The command',
    readBy: 'every',
    fills: 'command',
  },
  {
    name: 'api-key',
    description:
      "The service's API key. Pass it from a secret; it is masked at once, never printed, and sent only to base-url.",
    reference: "The service's API key, from a secret. Masked at once, never printed, sent only to `base-url`",
    required: true,
    group: 'The service',
    readBy: 'every',
    fills: 'apiKey',
  },
  {
    name: 'base-url',
    description:
      "The service's base address, with or without its /v1. https only, except loopback hosts (localhost, 127.0.0.0/8, [::1]).",
    reference:
      "The service's address, with or without `/v1`. https only; http only for `localhost`, `127.0.0.0/8`, `[::1]`",
    required: true,
    group: 'The service',
    readBy: 'every',
    fills: 'baseUrl',
  },
  {
    name: 'claw-id',
    description:
      'The Claw to deploy or roll back. For deploy and health: one or more ids (comma or newline separated), or * for every Claw in the workspace; several Claws make deploy a fleet rollout.',
    reference:
      'The Claw to deploy or roll back. For `deploy` and `health`: ids separated by commas or newlines, or `*` for every Claw; several make `deploy` a fleet rollout',
    default: '',
    group: 'Which Claw',
    readBy: ['deploy', 'rollback', 'health', 'check', 'compare', 'deployments'],
    help: {
      compare:
        'The candidate Claw: the checks run on it now and are compared with the baseline (--baseline or --baseline-file).',
      check: 'The Claws to check: one or more ids (comma or newline separated), or * for every Claw in the workspace.',
      health: 'The Claws to check: one or more ids (comma or newline separated), or * for every Claw in the workspace.',
      rollback: 'The Claw to roll back (its current deployment), when --deployment-id is not given.',
    },
    fills: ['clawId', 'targets', 'fleet'],
  },
  {
    name: 'request-timeout',
    description: 'Limit for one HTTP request.',
    reference: 'Limit for one HTTP request',
    default: '30s',
    group: 'The service',
    readBy: 'every',
    fills: 'requestTimeoutMs',
    parse: parsePositiveDuration,
  },
  {
    name: 'auth-scheme',
    description: 'Scheme before the key in the Authorization header. Empty sends the bare key.',
    reference: 'Scheme before the key in `Authorization`; empty sends the bare key',
    default: 'Bearer',
    group: 'The service',
    readBy: 'every',
    fills: 'authScheme',
    parse: parseWord(/^[\w.-]*$/, 'a single word such as Bearer, or empty'),
  },
  {
    name: 'timeout',
    description:
      "Deadline for the whole wait: 90s, 15m, 1h30m, 500ms, or bare seconds. A rollback's wait gets the same again.",
    reference:
      "Deadline for the whole wait: `90s`, `15m`, `1h30m`, `500ms`, or bare seconds. A rollback's wait gets the same again",
    default: '30m',
    group: 'The service',
    helpGroup: (reads) => (reads('poll-interval') ? 'Waiting' : 'The service'),
    readBy: 'every',
    fills: 'timeoutMs',
    parse: parsePositiveDuration,
  },
  {
    name: 'github-token',
    description:
      'Token for the GitHub API: Deployments with environment (needs permissions: deployments: write), the plan comment with comment: true (needs pull-requests: write).',
    reference:
      'Token for the GitHub API: Deployments with `environment` (needs `deployments: write`), the plan comment with `comment: true` (needs `pull-requests: write`). Masked',
    default: '${{ github.token }}',
    group: 'GitHub',
    readBy: ['deploy', 'rollback', 'health', 'plan', 'preview', 'deployments'],
    actionOnly:
      'is the token for what only the action does on GitHub (Deployments, the plan comment, previews, health over time)',
    fills: 'githubToken',
  },
  {
    name: 'state-secret',
    description:
      'health and preview: a secret (at least 16 characters, stored as a secret) that seals the state this action keeps in incident issues and preview comments. Set it before rotating the API key: the state then survives the rotation. Empty: sealed under the API key.',
    reference:
      '`health` and `preview`: a secret (16+ characters) sealing the state kept in issues and comments; set it before rotating the API key ([health](health.md#key-rotation))',
    default: '',
    group: 'GitHub',
    readBy: ['deploy', 'rollback', 'health', 'preview', 'deployments'],
    actionOnly:
      'seals the state health and previews keep on GitHub (incident issues, preview comments), which only the action reads and writes',
    fills: 'stateSecret',
  },
] as const satisfies readonly InputRow[];

type Row =
  | (typeof CORE_INPUTS)[number]
  | (typeof DEPLOY_INPUTS)[number]
  | (typeof HEALTH_INPUTS)[number]
  | (typeof CHECKS_INPUTS)[number]
  | (typeof MANIFEST_INPUTS)[number]
  | (typeof PREVIEW_INPUTS)[number];

export type InputName = Row['name'];

/** The inputs the command `C` reads (beyond those every command reads). */
export type ReadBy<C extends string> = Row extends infer R
  ? R extends { name: infer N; readBy: readonly (infer X)[] }
    ? C extends X
      ? N
      : never
    : never
  : never;

/** The inputs every command reads. */
export type CommonInput = Extract<Row, { readBy: 'every' }>['name'];

/** The fields of Settings each input fills: a command sees only those of the inputs it reads. */
export type InputFields = {
  [R in Row as R['name']]: R['fills'] extends readonly (infer F)[] ? F : R['fills'];
};

/** The fields the rows' parsers fill, typed by what each parser returns. */
export type ParsedFields = {
  [R in Extract<Row, { parse: unknown }> as R['fills'] & string]: ReturnType<R['parse']>;
};

/** Every input, grouped in the order of GROUPS (within a group, as its feature lists them). */
export const INPUTS: readonly InputRow[] = [
  ...CORE_INPUTS,
  ...DEPLOY_INPUTS,
  ...CHECKS_INPUTS,
  ...HEALTH_INPUTS,
  ...MANIFEST_INPUTS,
  ...PREVIEW_INPUTS,
].sort((a, b) => GROUPS.indexOf(a.group as never) - GROUPS.indexOf(b.group as never));

/** The inputs the command `command` reads, as its definition lists them (beyond the common ones). */
export function inputsReadBy<C extends string>(command: C): ReadBy<C>[] {
  return INPUTS.filter((i) => i.readBy !== 'every' && i.readBy.includes(command)).map((i) => i.name as ReadBy<C>);
}

/** The inputs every command reads. */
export const COMMON_INPUTS: readonly string[] = INPUTS.filter((i) => i.readBy === 'every').map((i) => i.name);

/** The row of an input. */
export function inputRow(name: string): InputRow | undefined {
  return INPUTS.find((i) => i.name === name);
}

/** The default an input takes when it is not given (the runner's rule, and the command line's). */
export function inputDefault(name: string): string {
  return inputRow(name)?.default ?? '';
}
