// The checks feature's inputs (the checks file, its reports, the judge's cache, the comparison's baseline): one row each (input-row.ts).
import type { InputRow } from '../shared/input-row.js';
import { parseCount, parseEnum } from '../shared/parse.js';
import { SHOW_ANSWERS, type ShowAnswers } from './answers.js';

export const CHECKS_INPUTS = [
  {
    name: 'checks',
    description:
      'A YAML file of conversation checks, relative to the workspace (e.g. .github/claw-checks.yml). deploy: a gate after the deployment succeeds (and after each fleet wave): a check that does not pass makes the outcome failed, so the rollback rules apply. health: a Claw that does not pass is unhealthy.',
    reference:
      'A YAML file of [conversation checks](checks.md), relative to the workspace. `deploy`: a gate after the deployment succeeds (and after each fleet wave); `health`: a Claw that does not pass is unhealthy',
    default: '',
    group: 'Conversation checks',
    readBy: ['deploy', 'health', 'check', 'apply', 'preview', 'compare'],
    onlyWithWhy: 'which run checks',
    fills: 'checks',
  },
  {
    name: 'checks-junit',
    description:
      "A file to write the checks' results to as JUnit XML (one testsuite per Claw, one testcase per check), relative to the workspace; missing folders are created.",
    reference:
      "A file to write the checks' results to as JUnit XML, relative to the workspace; missing folders are created",
    default: '',
    group: 'Conversation checks',
    readBy: ['deploy', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'checksJunit',
  },
  {
    name: 'judge-cache',
    description:
      'A file of judge verdicts (llm-rubric, factuality) keyed by a SHA-256 of everything the judge was asked, relative to the workspace; read before the checks and written after. Keep it between runs with actions/cache. Empty: no cache.',
    reference:
      'A file of judge verdicts (llm-rubric, factuality) keyed by a SHA-256 of everything the judge was asked; read before the checks, written after. Keep it between runs with `actions/cache` ([checks](checks.md#the-judge-cache))',
    default: '',
    group: 'Conversation checks',
    readBy: ['deploy', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'judgeCache',
  },
  {
    name: 'baseline',
    description:
      "deploy: none (the checks' absolute gate), before (the checks run on the live Claw before the trigger and on the deployment after it, and are compared; fail-on decides) or saved (with history: the baseline is the last gate's saved run of the live version, which costs no requests; used only with the same checks, judge, live deployment and configuration, at most 7 days old; otherwise as before, with a notice saying why). compare: the baseline Claw's id.",
    reference:
      "`deploy`: `none` (the checks' absolute gate), `before`: the checks run on the live Claw before the trigger and on the deployment after it, and are compared ([before and after](deploy.md#behaviour-before-and-after)), or `saved` (with `history`): the baseline is the last gate's saved run of the live version, no requests ([the saved baseline](deploy.md#the-saved-baseline)); `compare`: the baseline Claw's id",
    default: 'none',
    emptyMeansDefault: true,
    group: 'Comparing (before and after)',
    readBy: ['deploy', 'compare'],
    help: {
      compare: "The baseline Claw's id: the checks run on it now, beside the candidate (or --baseline-file instead).",
      deploy:
        "none (the checks' absolute gate), before (the checks run on the live Claw before the trigger and on the deployment after it, and are compared; --fail-on decides) or saved (with --history-dir: the last gate's saved run of the live version is the baseline, no requests; else as before).",
    },
    onlyWith: 'the deploy command (none, before or saved) or the compare command (a Claw id)',
    // deploy's meaning; compare gives it its own (a Claw's id) in its definition.
    fills: 'baseline',
    parse: (v): string => parseEnum(v, ['none', 'before', 'saved']),
    setWhen: (v: string) => v !== 'none',
  },
  {
    name: 'baseline-file',
    description:
      'compare: a checks output saved earlier, the baseline instead of a Claw: the file checks-output wrote on a check run (which keeps every attempt for this), on a compare run, or on a deploy with baseline: before.',
    reference: '`compare`: a checks output saved earlier (`checks-output`), the baseline instead of a Claw',
    default: '',
    group: 'Comparing (before and after)',
    readBy: ['compare'],
    fills: 'baselineFile',
  },
  {
    name: 'max-requests',
    description:
      'deploy with a baseline, and compare: the most messages the comparison may send, both sides together (0: no bound). A suite that could send more is asked fewer repeats, with the power left said before the first request; one that cannot fit a round of its questions is refused.',
    reference:
      '`deploy` with a baseline, and `compare`: the most messages the comparison may send, both sides together (0: no bound). A suite that could send more is asked fewer repeats, with the power left said before the first request; one that cannot fit a round of its questions is refused',
    default: '0',
    emptyMeansDefault: true,
    group: 'Comparing (before and after)',
    readBy: ['deploy', 'compare'],
    fills: 'maxRequests',
    parse: parseCount,
  },
  {
    name: 'show-answers',
    description:
      'compare, and deploy with baseline before: whose answers the summary and the log show side by side, a baseline reply beside a candidate reply (a failing one where there is one, cut to 300 characters): worse (the questions with a metric regressed or a lower pass rate) or all.',
    reference:
      '`compare`, and `deploy` with `baseline: before`: whose answers the summary and the log show side by side, a baseline reply beside a candidate reply (a failing one where there is one, cut to 300 characters): `worse` (the questions with a metric `regressed` or a lower pass rate) or `all`; `checks-output` carries them for every question shown',
    default: 'worse',
    emptyMeansDefault: true,
    group: 'Comparing (before and after)',
    readBy: ['deploy', 'compare'],
    fills: 'showAnswers',
    parse: (v): ShowAnswers => parseEnum(v, SHOW_ANSWERS),
  },
  {
    name: 'trusted-files',
    description:
      "The checks file, promptfoo config and manifest are the repository's own though the event is not one known to carry the repository's own commit (push, schedule, workflow_dispatch, release, merge_group, create, delete, a pull_request or workflow_run from this repository; any other, such as pull_request_target or check_suite, may carry a fork's): true lets them run code (javascript, transform) and choose where a secret goes (judge keys, headers, env values). Only for a workflow that checks out the base, never the pull request's head.",
    reference:
      "The checks file, promptfoo config and manifest are the repository's own under any event, not only those known to carry its own commit (`push`, `merge_group`, a `pull_request` from this repository, …: [SECURITY.md](../SECURITY.md)): they may run code and choose where a secret goes. Only when the workflow checks out the base, not the head",
    default: 'false',
    emptyMeansDefault: true,
    group: 'Conversation checks',
    readBy: ['deploy', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'trustedFiles',
  },
  {
    name: 'checks-output',
    description:
      "A file to write the checks' results to in promptfoo's output format (promptfoo import / promptfoo view open it), relative to the workspace. Empty: none.",
    reference:
      "A file to write the checks' results to in promptfoo's output format (`promptfoo import`, `promptfoo view`)",
    default: '',
    group: 'Conversation checks',
    readBy: ['deploy', 'health', 'check', 'apply', 'preview', 'compare'],
    fills: 'checksOutput',
  },
] as const satisfies readonly InputRow[];
