// The one table of the action's inputs: action.yml documents the same names, defaults and words
// (a test holds them equal), and the command line's --help is generated from it, so the two
// cannot drift apart. Each input is a long flag of the command line (`--claw-id`).

export interface InputSpec {
  name: string;
  description: string;
  /** Required inputs have no default. */
  required?: boolean;
  default?: string;
  /** An empty value (`comment: ''`) takes the default, as a left-out input does; else empty is a value. */
  emptyMeansDefault?: true;
}

export const INPUTS: readonly InputSpec[] = [
  {
    name: 'command',
    description:
      'What to do: deploy, wait, rollback, health, check (a checks file against Claws, no deployment); or, for Claws as code, plan, apply, drift or preview (preview Claws on pull requests).',
    default: 'deploy',
    emptyMeansDefault: true,
  },
  {
    name: 'api-key',
    description:
      "The service's API key. Pass it from a secret; it is masked at once, never printed, and sent only to base-url.",
    required: true,
  },
  {
    name: 'base-url',
    description:
      "The service's base address, with or without its /v1. https only, except loopback hosts (localhost, 127.0.0.0/8, [::1]).",
    required: true,
  },
  {
    name: 'claw-id',
    description:
      'The Claw to deploy or roll back. For deploy and health: one or more ids (comma or newline separated), or * for every Claw in the workspace; several Claws make deploy a fleet rollout.',
    default: '',
  },
  {
    name: 'strategy',
    description:
      'Deploy strategy: blue-green, rolling, batched, or another word the service accepts. Empty applies the team default and sends no strategy field.',
    default: '',
  },
  {
    name: 'payload',
    description: 'A JSON object merged into the POST /v1/deployments body, for fields the spec does not show.',
    default: '',
  },
  {
    name: 'deployment-id',
    description: "The deployment to wait on (wait) or roll back (rollback; when empty, the Claw's current deployment).",
    default: '',
  },
  {
    name: 'wait',
    description: 'deploy: wait for a final status. false returns right after the trigger with outcome triggered.',
    default: 'true',
  },
  {
    name: 'timeout',
    description:
      "Deadline for the whole wait: 90s, 15m, 1h30m, 500ms, or bare seconds. A rollback's wait gets the same again.",
    default: '30m',
  },
  {
    name: 'poll-interval',
    description:
      "First interval between polls; the team's rate-limit budget may stretch it. Sub-second values are allowed.",
    default: '5s',
  },
  { name: 'auto-rollback', description: 'Roll back when the outcome is one of rollback-on.', default: 'false' },
  {
    name: 'rollback-on',
    description: 'Outcomes that trigger the automatic rollback, comma separated: failed, timed-out, paused, cancelled.',
    default: 'failed,timed-out',
  },
  {
    name: 'success-statuses',
    description: 'Extra status words (comma separated) that mean success, added to the built-in list.',
    default: '',
  },
  {
    name: 'failure-statuses',
    description: 'Extra status words (comma separated) that mean failure, added to the built-in list.',
    default: '',
  },
  { name: 'request-timeout', description: 'Limit for one HTTP request.', default: '30s' },
  {
    name: 'auth-scheme',
    description: 'Scheme before the key in the Authorization header. Empty sends the bare key.',
    default: 'Bearer',
  },
  { name: 'probe-message', description: 'health: a chat message sent to each Claw.', default: '' },
  {
    name: 'probe-expect',
    description: "health: a regular expression (case-insensitive) the probe's reply must match.",
    default: '',
  },
  { name: 'fail-on-unhealthy', description: 'health: fail the step when any Claw is unhealthy.', default: 'true' },
  {
    name: 'waves',
    description:
      'Fleet rollout: cumulative wave sizes, each a count or a percentage of the Claws, e.g. 1, 25%, 100% (a canary, a quarter, then all). Empty: one wave of all. A last 100% is implied.',
    default: '',
  },
  {
    name: 'bake',
    description:
      "Fleet rollout: after a wave's deployments succeed, how long its Claws (and earlier waves') must stay healthy before the next wave starts.",
    default: '0s',
  },
  {
    name: 'max-failures',
    description: 'Fleet rollout: how many Claws (a count, or a percentage) may fail before the rollout halts.',
    default: '0',
  },
  {
    name: 'environment',
    description:
      'A GitHub environment to mirror the deployment into as a GitHub Deployment with statuses. Empty: no mirroring.',
    default: '',
  },
  {
    name: 'on-conflict',
    description:
      'The Claw already has a deployment in progress (the trigger is refused with 409): wait for that deployment to finish, then trigger (wait, within timeout), or fail at once with outcome error (fail).',
    default: 'wait',
    emptyMeansDefault: true,
  },
  {
    name: 'checks',
    description:
      'A YAML file of conversation checks, relative to the workspace (e.g. .github/claw-checks.yml). deploy: a gate after the deployment succeeds (and after each fleet wave): a check that does not pass makes the outcome failed, so the rollback rules apply. health: a Claw that does not pass is unhealthy.',
    default: '',
  },
  {
    name: 'checks-junit',
    description:
      "A file to write the checks' results to as JUnit XML (one testsuite per Claw, one testcase per check), relative to the workspace; missing folders are created.",
    default: '',
  },
  {
    name: 'judge-cache',
    description:
      'A file of judge verdicts (llm-rubric, factuality) keyed by a SHA-256 of everything the judge was asked, relative to the workspace; read before the checks and written after. Keep it between runs with actions/cache. Empty: no cache.',
    default: '',
  },
  {
    name: 'manifest',
    description:
      'plan, apply, drift: a YAML manifest of Claws (config, skills) and team members, relative to the workspace (e.g. claws.yml).',
    default: '',
  },
  {
    name: 'plan-id',
    description:
      "apply: the reviewed plan's plan-id output. apply refuses, writing nothing, when the plan it computes now is another (the service changed since the review).",
    default: '',
  },
  {
    name: 'deploy-changed',
    description:
      'apply: deploy the Claws it created or whose config or skills changed (through the fleet path: waves, bake, max-failures, checks and the rollback rules apply).',
    default: 'true',
    emptyMeansDefault: true,
  },
  {
    name: 'rewrite-secrets',
    description:
      'apply: send write-only secrets ({ env: NAME } values) even to Claws with no other change, to rotate them.',
    default: 'false',
    emptyMeansDefault: true,
  },
  {
    name: 'fail-on-drift',
    description: 'drift: fail the step when the service differs from the manifest.',
    default: 'true',
    emptyMeansDefault: true,
  },
  {
    name: 'comment',
    description:
      'plan on a pull_request event: keep the plan in one comment on the pull request (needs permissions: pull-requests: write). Skipped on other events.',
    default: 'false',
    emptyMeansDefault: true,
  },
  {
    name: 'github-token',
    description:
      'Token for the GitHub API: Deployments with environment (needs permissions: deployments: write), the plan comment with comment: true (needs pull-requests: write).',
    default: '${{ github.token }}',
  },
  {
    name: 'preview-claws',
    description:
      "preview: which of the manifest's Claws get a preview on a pull request: changed (those whose plan against production has operations) or all.",
    default: 'changed',
    emptyMeansDefault: true,
  },
  {
    name: 'preview-ttl',
    description:
      'preview: on a schedule, the sweep removes the previews of pull requests not updated for this long (7d, 48h, …), and those of closed ones.',
    default: '7d',
    emptyMeansDefault: true,
  },
  {
    name: 'max-previews',
    description:
      'preview: the most preview Claws the workspace may hold, counted on every push; a Claw past the cap gets no preview, with a notice (never a failed CI).',
    default: '10',
    emptyMeansDefault: true,
  },
  {
    name: 'fail-on',
    description:
      'preview, and deploy with a baseline: what fails the step: regression (preview without a comparison: a check passes in production and not in the preview; with one: a metric is regressed), failure (any check fails), inconclusive (a metric is regressed or inconclusive), or never.',
    default: 'regression',
    emptyMeansDefault: true,
  },
  {
    name: 'baseline',
    description:
      "deploy: none (the checks' absolute gate) or before (the checks run on the live Claw before the trigger and on the deployment after it, and are compared; fail-on decides). compare: the baseline Claw's id.",
    default: 'none',
    emptyMeansDefault: true,
  },
  {
    name: 'baseline-file',
    description:
      'compare: a checks output saved earlier (checks-output of a compare or check run), the baseline instead of a Claw.',
    default: '',
  },
  {
    name: 'max-requests',
    description:
      'deploy with a baseline, and compare: the most messages the comparison may send, both sides together (0: no bound). A suite that could send more is asked fewer repeats, with the power left said before the first request; one that cannot fit a round of its questions is refused.',
    default: '0',
    emptyMeansDefault: true,
  },
  {
    name: 'auto-approve',
    description:
      'apply: apply without a reviewed plan-id (as terraform apply -auto-approve). Without it, apply with an empty plan-id is refused, writing nothing.',
    default: 'false',
    emptyMeansDefault: true,
  },
  {
    name: 'trusted-files',
    description:
      "The checks file, promptfoo config and manifest are the repository's own though the event is not one known to carry the repository's own commit (push, schedule, workflow_dispatch, release, merge_group, create, delete, a pull_request or workflow_run from this repository; any other, such as pull_request_target or check_suite, may carry a fork's): true lets them run code (javascript, transform) and choose where a secret goes (judge keys, headers, env values). Only for a workflow that checks out the base, never the pull request's head.",
    default: 'false',
    emptyMeansDefault: true,
  },
  {
    name: 'checks-output',
    description:
      "A file to write the checks' results to in promptfoo's output format (promptfoo import / promptfoo view open it), relative to the workspace. Empty: none.",
    default: '',
  },
  {
    name: 'incidents',
    description:
      'health: one GitHub issue per Claw incident, opened after confirm failing runs in a row and closed after recover healthy ones (needs permissions: issues: write, and history).',
    default: 'false',
    emptyMeansDefault: true,
  },
  {
    name: 'confirm',
    description:
      'health with incidents: failing runs in a row before an incident opens (a failed probe is retried once first).',
    default: '2',
    emptyMeansDefault: true,
  },
  {
    name: 'recover',
    description: 'health with incidents: healthy runs in a row before an incident closes.',
    default: '2',
    emptyMeansDefault: true,
  },
  {
    name: 'reopen-within',
    description:
      'health with incidents: a Claw failing again this soon after its incident closed reopens the same issue.',
    default: '1h',
    emptyMeansDefault: true,
  },
  {
    name: 'assignees',
    description: 'health with incidents: GitHub users to assign incident issues to (comma separated). Empty: none.',
    default: '',
  },
  {
    name: 'mention',
    description: 'health with incidents: text added to a new incident, such as @org/oncall. Empty: none.',
    default: '',
  },
  {
    name: 'max-new-incidents',
    description:
      'health with incidents: the most incident issues one run opens; the others open on the next runs (one line says how many were held back).',
    default: '20',
    emptyMeansDefault: true,
  },
  {
    name: 'state-secret',
    description:
      'health and preview: a secret (at least 16 characters, stored as a secret) that seals the state this action keeps in incident issues and preview comments. Set it before rotating the API key: the state then survives the rotation. Empty: sealed under the API key.',
    default: '',
  },
  {
    name: 'history',
    description:
      'health: a branch that keeps one record per Claw per run (NDJSON month files, needs permissions: contents: write); deploy and rollback: one sealed record per deployment on it. Empty: no history, unless incidents or status-page turn it on with claw-health.',
    default: '',
  },
  {
    name: 'status-page',
    description:
      'health: render a status page (index.html, status.json, SVG badges) into the history branch, for GitHub Pages.',
    default: 'false',
    emptyMeansDefault: true,
  },
];

/** The default an input takes when it is not given (the runner's rule, and the command line's). */
export function inputDefault(name: string): string {
  return INPUTS.find((i) => i.name === name)?.default ?? '';
}
