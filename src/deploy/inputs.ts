// The deploy feature's inputs (wait, rollback, fleets, the trigger): one row each (input-row.ts).
import type { InputRow } from '../shared/input-row.js';
import {
  ParseError,
  parseBoolean,
  parseDuration,
  parseEnum,
  parseList,
  parsePositiveDuration,
  parseShare,
  parseStatusWords,
  parseWord,
} from '../shared/parse.js';
import type { Share } from '../shared/share.js';
import { ROLLBACK_TRIGGERS } from '../shared/status.js';
import { ON_CONFLICT } from './conflict.js';

function parsePayload(value: string): Record<string, unknown> {
  if (value.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(value);
  } catch (err) {
    const reason = err instanceof Error ? ` (${err.message})` : '';
    throw new ParseError(`a JSON object such as {"version": "1.2.3"}${reason}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ParseError('a JSON object such as {"version": "1.2.3"}, not an array or a single value');
  }
  return data as Record<string, unknown>;
}

export const DEPLOY_INPUTS = [
  {
    name: 'strategy',
    description:
      'Deploy strategy: blue-green, rolling, batched, or another word the service accepts. Empty applies the team default and sends no strategy field.',
    reference:
      '`blue-green`, `rolling`, `batched`, or another word the service accepts. Empty: the team default applies and no strategy is sent',
    default: '',
    group: 'The deployment',
    readBy: ['deploy', 'apply', 'preview'],
    fills: 'strategy',
    parse: parseWord(
      /^[\w.:-]{1,100}$/,
      'a strategy word such as blue-green, rolling or batched, or empty for the team default',
    ),
  },
  {
    name: 'payload',
    description: 'A JSON object merged into the POST /v1/deployments body, for fields the spec does not show.',
    reference: "A JSON object merged into the trigger's body, for fields the spec does not show",
    default: '',
    group: 'The deployment',
    readBy: ['deploy', 'apply', 'preview'],
    fills: 'payload',
    parse: parsePayload,
  },
  {
    name: 'deployment-id',
    description: "The deployment to wait on (wait) or roll back (rollback; when empty, the Claw's current deployment).",
    reference:
      "The deployment to wait on (`wait`) or roll back (`rollback`; empty means the Claw's current deployment)",
    default: '',
    group: 'Which deployment',
    readBy: ['wait', 'rollback'],
    fills: 'deploymentId',
  },
  {
    name: 'wait',
    description: 'deploy: wait for a final status. false returns right after the trigger with outcome triggered.',
    reference: '`deploy`: wait for a final status; `false` returns right after the trigger',
    default: 'true',
    group: 'Waiting',
    readBy: ['deploy'],
    fills: 'wait',
  },
  {
    name: 'poll-interval',
    description:
      "First interval between polls; the team's rate-limit budget may stretch it. Sub-second values are allowed.",
    reference: 'First interval between polls; the rate-limit budget may stretch it',
    default: '5s',
    group: 'Waiting',
    readBy: ['deploy', 'wait', 'rollback', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'pollIntervalMs',
    parse: parsePositiveDuration,
  },
  {
    name: 'auto-rollback',
    description: 'Roll back when the outcome is one of rollback-on.',
    reference: 'Roll back when the outcome is one of `rollback-on`',
    default: 'false',
    group: 'Rolling back',
    readBy: ['deploy', 'wait', 'apply', 'preview'],
    fills: 'autoRollback',
    parse: parseBoolean,
  },
  {
    name: 'rollback-on',
    description: 'Outcomes that trigger the automatic rollback, comma separated: failed, timed-out, paused, cancelled.',
    reference: 'Outcomes that trigger the rollback: `failed`, `timed-out`, `paused`, `cancelled`',
    default: 'failed,timed-out',
    group: 'Rolling back',
    readBy: ['deploy', 'wait', 'apply', 'preview'],
    fills: 'rollbackOn',
    parse: (v) => [...new Set(parseList(v).map((w) => parseEnum(w, ROLLBACK_TRIGGERS)))],
  },
  {
    name: 'success-statuses',
    description: 'Extra status words (comma separated) that mean success, added to the built-in list.',
    reference: 'Extra status words that mean success (comma separated)',
    default: '',
    group: 'Waiting',
    readBy: ['deploy', 'wait', 'rollback', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'successStatuses',
    parse: parseStatusWords,
  },
  {
    name: 'failure-statuses',
    description: 'Extra status words (comma separated) that mean failure, added to the built-in list.',
    reference: 'Extra status words that mean failure (comma separated)',
    default: '',
    group: 'Waiting',
    readBy: ['deploy', 'wait', 'rollback', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'failureStatuses',
    parse: parseStatusWords,
  },
  {
    name: 'waves',
    description:
      'Fleet rollout: cumulative wave sizes, each a count or a percentage of the Claws, e.g. 1, 25%, 100% (a canary, a quarter, then all). Empty: one wave of all. A last 100% is implied.',
    reference:
      'Fleet: cumulative wave sizes, each a count or a percentage, e.g. `1, 25%, 100%`. Empty: one wave of all; a last `100%` is implied',
    default: '',
    group: 'A fleet (several Claws)',
    readBy: ['deploy', 'apply'],
    fills: 'waves',
    parse: (v) => parseList(v).map((w) => parseShare(w)),
  },
  {
    name: 'bake',
    description:
      "Fleet rollout: after a wave's deployments succeed, how long its Claws (and earlier waves') must stay healthy before the next wave starts.",
    reference: 'Fleet: how long the Claws deployed so far must stay healthy before the next wave',
    default: '0s',
    group: 'A fleet (several Claws)',
    readBy: ['deploy', 'apply'],
    fills: 'bakeMs',
    parse: (v) => (v.trim() === '' ? 0 : parseDuration(v)),
  },
  {
    name: 'max-failures',
    description: 'Fleet rollout: how many Claws (a count, or a percentage) may fail before the rollout halts.',
    reference: 'Fleet: how many Claws (a count or a percentage) may fail before the rollout halts',
    default: '0',
    group: 'A fleet (several Claws)',
    readBy: ['deploy', 'apply'],
    fills: 'maxFailures',
    parse: (v): Share => (v.trim() === '' ? { count: 0 } : parseShare(v, true)),
  },
  {
    name: 'environment',
    description:
      'A GitHub environment to mirror the deployment into as a GitHub Deployment with statuses. Empty: no mirroring.',
    reference:
      'A GitHub environment to mirror a deploy into as a GitHub Deployment with statuses (see [GitHub Deployments](github-deployments.md)). Empty: no mirroring',
    default: '',
    group: 'GitHub',
    readBy: ['deploy', 'preview'],
    actionOnly:
      'mirrors a deploy into a GitHub Deployment of the workflow run, which only the action has: deploy without it here, or from a workflow with the action',
    fills: 'environment',
  },
  {
    name: 'on-conflict',
    description:
      'The Claw already has a deployment in progress (the trigger is refused with 409): wait for that deployment to finish, then trigger (wait, within timeout), or fail at once with outcome error (fail).',
    reference:
      'The Claw already has a deployment in progress (the trigger is refused with 409): `wait` for it to finish (within `timeout`), then trigger; `fail` at once with outcome `error`',
    default: 'wait',
    emptyMeansDefault: true,
    group: 'The deployment',
    readBy: ['deploy', 'apply', 'preview'],
    fills: 'onConflict',
    parse: (v) => parseEnum(v, ON_CONFLICT),
  },
] as const satisfies readonly InputRow[];
