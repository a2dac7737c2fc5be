// The health feature's inputs (the probe, incidents, history, the status page): one row each (input-row.ts).
import type { InputRow } from '../shared/input-row.js';
import { parseBoolean } from '../shared/parse.js';

const OVER_TIME =
  "tunes health's incidents, history and status page, which keep their state on GitHub through the workflow's token: run health as the action for them";

export const HEALTH_INPUTS = [
  {
    name: 'probe-message',
    description: 'health: a chat message sent to each Claw.',
    reference: '`health`: a chat message sent to each Claw',
    default: '',
    group: 'Health',
    helpGroup: (reads) => (reads('fail-on-unhealthy') ? 'Health' : undefined),
    readBy: ['deploy', 'health', 'apply'],
    fills: 'probeMessage',
  },
  {
    name: 'probe-expect',
    description: "health: a regular expression (case-insensitive) the probe's reply must match.",
    reference: '`health`: a regular expression (case-insensitive) the reply must match',
    default: '',
    group: 'Health',
    helpGroup: (reads) => (reads('fail-on-unhealthy') ? 'Health' : undefined),
    readBy: ['deploy', 'health', 'apply'],
    fills: 'probeExpect',
  },
  {
    name: 'fail-on-unhealthy',
    description: 'health: fail the step when any Claw is unhealthy.',
    reference: '`health`: fail the step when any Claw is unhealthy',
    default: 'true',
    group: 'Health',
    readBy: ['health'],
    fills: 'failOnUnhealthy',
    parse: parseBoolean,
  },
  {
    name: 'incidents',
    description:
      'health: one GitHub issue per Claw incident, opened after confirm failing runs in a row and closed after recover healthy ones (needs permissions: issues: write, and history).',
    reference:
      '`health`: one GitHub issue per Claw incident ([health](health.md)); needs `issues: write` and turns on `history`',
    default: 'false',
    emptyMeansDefault: true,
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'confirm',
    description:
      'health with incidents: failing runs in a row before an incident opens (a failed probe is retried once first).',
    reference: '`health` with `incidents`: failing runs in a row before an incident opens',
    default: '2',
    emptyMeansDefault: true,
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'recover',
    description: 'health with incidents: healthy runs in a row before an incident closes.',
    reference: '`health` with `incidents`: healthy runs in a row before an incident closes',
    default: '2',
    emptyMeansDefault: true,
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'reopen-within',
    description:
      'health with incidents: a Claw failing again this soon after its incident closed reopens the same issue.',
    reference: '`health` with `incidents`: failing again this soon after a close reopens the same issue',
    default: '1h',
    emptyMeansDefault: true,
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'assignees',
    description: 'health with incidents: GitHub users to assign incident issues to (comma separated). Empty: none.',
    reference: '`health` with `incidents`: GitHub users assigned to a new incident (comma separated)',
    default: '',
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'mention',
    description: 'health with incidents: text added to a new incident, such as @org/oncall. Empty: none.',
    reference: '`health` with `incidents`: text added to a new incident, such as `@org/oncall`',
    default: '',
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'max-new-incidents',
    description:
      'health with incidents: the most incident issues one run opens; the others open on the next runs (one line says how many were held back).',
    reference:
      '`health` with `incidents`: the most issues one run opens; the others open on the next runs (one line says how many waited)',
    default: '20',
    emptyMeansDefault: true,
    group: 'Health over time',
    readBy: ['health'],
    actionOnly: OVER_TIME,
    fills: 'incidents',
  },
  {
    name: 'history',
    description:
      'health: a branch that keeps one record per Claw per run (NDJSON month files, needs permissions: contents: write); deploy and rollback: one sealed record per deployment on it; deployments: read those records. Empty: no history, unless incidents or status-page turn it on with claw-health.',
    reference:
      '`health`: a branch keeping one record per Claw per run (needs `contents: write`); `incidents` and `status-page` turn it on with `claw-health`; `deploy`, `rollback`: one sealed record per deployment ([DORA figures](dora.md)); `deployments`: reads them',
    default: '',
    group: 'Health over time',
    readBy: ['health', 'deploy', 'rollback', 'deployments'],
    onlyWith: 'health, deploy, rollback or deployments',
    actionOnly: `${OVER_TIME}; --history-dir DIR keeps the history in a local folder instead`,
    fills: 'history',
  },
  {
    name: 'status-page',
    description:
      'health: render a status page (index.html, status.json, SVG badges) into the history branch, for GitHub Pages.',
    reference:
      '`health`: a status page (`index.html`, `status.json`, SVG badges) rendered into the history branch for GitHub Pages',
    default: 'false',
    emptyMeansDefault: true,
    group: 'Health over time',
    // The command line's switch beside --history-dir: listed with health's own flags.
    helpGroup: () => 'Health',
    readBy: ['health'],
    actionOnly:
      'renders the status page into the history branch on GitHub: run health as the action for that, or add --history-dir DIR to render it into a local folder',
    commandLine:
      'with --history-dir: render the status page (index.html, status.json, SVG badges) into that folder, as the action does on its branch.',
    fills: 'statusPage',
  },
] as const satisfies readonly InputRow[];
