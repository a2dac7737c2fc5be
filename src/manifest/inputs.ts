// The inputs of Claws as code (plan, apply, drift): one row each (input-row.ts).
import type { InputRow } from '../shared/input-row.js';
import { ParseError, parseBoolean } from '../shared/parse.js';

export const MANIFEST_INPUTS = [
  {
    name: 'manifest',
    description:
      'plan, apply, drift: a YAML manifest of Claws (config, skills) and team members, relative to the workspace (e.g. claws.yml).',
    reference:
      '`plan`, `apply`, `drift`: a YAML manifest of Claws (config, skills) and team members, relative to the workspace (see [Claws as code](claws-as-code.md))',
    default: '',
    group: 'Claws as code',
    readBy: ['plan', 'apply', 'drift', 'preview'],
    fills: 'manifest',
  },
  {
    name: 'plan-id',
    description:
      "apply: the reviewed plan's plan-id output. apply refuses, writing nothing, when the plan it computes now is another (the service changed since the review).",
    reference:
      "`apply`: the reviewed plan's `plan-id`; apply refuses, writing nothing, when the plan it computes now is another",
    default: '',
    group: 'Applying',
    readBy: ['apply'],
    fills: 'planId',
    parse: (v, w): string => {
      const id = v.trim();
      if (id && !/^[0-9a-f]{16}$/.test(id))
        throw new ParseError(`the ${w.output('plan-id')} of the reviewed plan: 16 hexadecimal digits`, id);
      return id;
    },
    setWhen: (v: string) => v !== '',
  },
  {
    name: 'deploy-changed',
    description:
      'apply: deploy the Claws it created or whose config or skills changed (through the fleet path: waves, bake, max-failures, checks and the rollback rules apply).',
    reference: '`apply`: deploy the Claws it created or whose config or skills changed, through the fleet path',
    default: 'true',
    emptyMeansDefault: true,
    group: 'Applying',
    readBy: ['apply'],
    fills: 'deployChanged',
    parse: parseBoolean,
  },
  {
    name: 'rewrite-secrets',
    description:
      'apply: send write-only secrets ({ env: NAME } values) even to Claws with no other change, to rotate them.',
    reference: '`apply`: send write-only secrets (`{ env: NAME }`) even to Claws with no other change, to rotate them',
    default: 'false',
    emptyMeansDefault: true,
    group: 'Applying',
    readBy: ['apply'],
    fills: 'rewriteSecrets',
    parse: parseBoolean,
  },
  {
    name: 'fail-on-drift',
    description: 'drift: fail the step when the service differs from the manifest.',
    reference: '`drift`: fail the step when the service differs from the manifest',
    default: 'true',
    emptyMeansDefault: true,
    group: 'Drift',
    readBy: ['drift'],
    fills: 'failOnDrift',
    parse: parseBoolean,
  },
  {
    name: 'comment',
    description:
      'plan on a pull_request event: keep the plan in one comment on the pull request (needs permissions: pull-requests: write). Skipped on other events.',
    reference:
      '`plan` on a `pull_request` event: keep the plan in one comment on the pull request (needs `pull-requests: write`)',
    default: 'false',
    emptyMeansDefault: true,
    group: 'GitHub',
    readBy: ['plan'],
    actionOnly:
      "keeps the plan in a pull request's comment, which only the action (on a pull_request event) can find: the plan is printed here instead",
    fills: 'comment',
  },
  {
    name: 'auto-approve',
    description:
      'apply: apply without a reviewed plan-id (as terraform apply -auto-approve). Without it, apply with an empty plan-id is refused, writing nothing.',
    reference:
      '`apply`: apply without a reviewed `plan-id` (as `terraform apply -auto-approve`); without it an empty `plan-id` is refused, writing nothing',
    default: 'false',
    emptyMeansDefault: true,
    group: 'Applying',
    readBy: ['apply'],
    fills: 'autoApprove',
    parse: parseBoolean,
    setWhen: (v: boolean) => v,
  },
] as const satisfies readonly InputRow[];
