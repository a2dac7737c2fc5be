// The deploy, wait and rollback commands, as the run's table calls them: one Claw or a fleet, and
// each one's outputs, summary and GitHub Deployment status.
import type { CommandContext } from '../contract/command.js';
import { inputsReadBy } from '../contract/inputs.js';
import { type Command, type CommandDefinition, type CommandDeps, type CommandResult } from '../contract/command.js';
import { type SettingsOf, refuseInput } from '../contract/settings.js';
import { type DeploymentState, type GitHubRun, commitUrl, runUrl } from '../shared/workflow-run.js';
import { deployOutputs, deploySummary } from '../deploy/deploy-report.js';
import { fleetOutputs, fleetSummary } from '../deploy/fleet-report.js';
import { type DeployResult, deployClaw, rollbackCommand, waitOnDeployment } from '../deploy/deploy.js';
import { rolloutFleet, tally } from '../deploy/fleet.js';
import { compareRuns, suitePower } from '../checks/comparison.js';
import { comparisonCost, fitToMaxRequests } from '../checks/cost.js';
import { type SavedBaseline, saveDeployedRun, savedBaseline } from '../deploy/saved-baseline.js';
import { deployingCancel, rollbackCancel } from '../deploy/cancel-notice.js';
import { wordsOf } from '../shared/words.js';
import type { CheckSuite } from '../checks/check.js';
import type { Logger } from '../shared/clock.js';
import { type ClawComparison, comparisonSummary } from '../checks/comparison-report.js';
import type { DeploymentRecord, RunFacts } from '../health/deployment-records.js';
import { keepDeploymentRecords } from '../health/deployment-log.js';
import { stateSealKey } from '../shared/seal.js';
import { deployRecords, fleetRecords } from '../deploy/records.js';
import { MAX_LISTED, MAX_PAGES, listClawDeployments } from '../deploy/deployments-list.js';
import { deploymentsOutputs, deploymentsSummary } from '../deploy/deployments-report.js';
import { deploymentsView } from '../deploy/deployments-view.js';
import { checkOutputs } from '../report/outputs.js';
import { type GitHubDeploymentStatus, githubDeploymentOf } from '../deploy/github-deployment.js';

/** The inputs each command reads (beyond the common ones): its run sees only the settings they fill. */
const DEPLOY_READS = inputsReadBy('deploy');
const WAIT_READS = inputsReadBy('wait');
const ROLLBACK_READS = inputsReadBy('rollback');

/** A deployment's result: the command's, and the status its GitHub Deployment ends with (absent: left as it is). */
type DeployCommandResult = CommandResult & { github?: GitHubDeploymentStatus };

/** GitHub's reading of an outcome: failed or paused is a failure, timed-out or cancelled an error. */
export function githubState(outcome: string): DeploymentState | undefined {
  if (outcome === 'succeeded') return 'success';
  if (outcome === 'failed' || outcome === 'paused') return 'failure';
  if (outcome === 'timed-out' || outcome === 'cancelled' || outcome === 'error') return 'error';
  return undefined; // triggered without waiting: still in progress
}

/** One Claw's deployment (or its wait, or its rollback) as a command's result. */
function fromDeploy(result: DeployResult, github: GitHubRun): DeployCommandResult {
  const state = githubState(result.outcome ?? '');
  const rolledBack = result.rollback?.succeeded ? `, rolled back (${result.rollback.id})` : '';
  const comparisons: ClawComparison[] | undefined =
    result.comparison && result.clawId ? [{ clawId: result.clawId, compared: result.comparison }] : undefined;
  const summary = deploySummary(result, { runUrl: runUrl(github), sha: github.sha, commitUrl: commitUrl(github) });
  return {
    ok: result.ok,
    message: result.message,
    outputs: deployOutputs(result),
    summary: [summary, comparisonSummary(comparisons, 'Behaviour before and after')].filter(Boolean).join('\n'),
    notes: [],
    failStep: true,
    checks: result.checks,
    ...(comparisons ? { comparisons } : {}),
    github: state && {
      state,
      description: `Claw ${result.clawId}: ${result.outcome} (deployment ${result.deploymentId})${rolledBack}`,
      url: result.url,
    },
  };
}

/**
 * A comparison's cost and what it can find, said before the first request (the engine's power
 * line, from the saved run's own rates when there is one), with a warning when a 20% drop would
 * likely pass unseen.
 */
function sayPower(log: Logger, suite: CheckSuite, limit?: number, saved?: SavedBaseline): void {
  const power = suitePower(suite, undefined, saved?.run.entries);
  const cost = comparisonCost(suite, power, { sides: saved ? 1 : 2, limit });
  log.info(`Comparing before and after: ${saved ? `${saved.said}; ` : ''}${cost.line}.`);
  if (power.warning) log.warning(power.warning);
}

/**
 * `max-requests` for the sides still to ask (refused when a round cannot fit), and with
 * `baseline: saved` the saved run when it is evidence of the live version (else both sides).
 */
async function prepareComparison(
  context: Parameters<typeof deploy>[0],
  suite: CheckSuite,
): Promise<SavedBaseline | undefined> {
  const { settings, policy } = context;
  const fit = (sides: 1 | 2) => {
    const refused = fitToMaxRequests(context.log, suite, settings.maxRequests, sides);
    if (refused) refuseInput('max-requests', String(settings.maxRequests), refused, wordsOf(context));
  };
  // Checked here, not among the rules: the command line's --history-dir is known only now.
  if (settings.baseline === 'saved' && (!settings.history || !context.health))
    refuseInput(
      'baseline',
      settings.baseline,
      "none or before without a history store (the action's history, the command line's --history-dir): saved reads the last gate's run from it",
      wordsOf(context),
    );
  fit(settings.baseline === 'saved' ? 1 : 2);
  const saved =
    settings.baseline === 'saved' ? await savedBaseline(context, suite, settings.clawId, policy.classify) : undefined;
  if (settings.baseline === 'saved' && !saved) fit(2);
  sayPower(context.log, suite, context.pacer?.reading().limit, saved);
  return saved;
}

/**
 * With `history`, the run's deployments as sealed records on the branch, in one commit; a failure
 * to write is a warning (health/deployment-log.ts), never the deployment's outcome.
 */
async function keepRecords(
  { settings, clock, log, health, github }: CommandContext<SettingsOf<'history' | 'state-secret'>>,
  build: (facts: RunFacts) => DeploymentRecord[],
): Promise<void> {
  if (!settings.history || !health) return;
  await keepDeploymentRecords(
    { clock, log },
    {
      host: health.host,
      branch: settings.history,
      seal: stateSealKey(settings, github.repository),
      sha: github.sha,
      actor: github.actor ?? '',
      ...(github.firstCommitAt !== undefined ? { firstCommitAt: github.firstCommitAt } : {}),
      ...(github.mergedAt !== undefined ? { mergedAt: github.mergedAt } : {}),
    },
    build,
  );
}

/** The Claw a deployment belongs to, as the service says, or undefined (never a reason to fail). */
async function clawOfDeployment(deps: CommandDeps, deploymentId: string): Promise<string | undefined> {
  try {
    const deadline = Math.max(deps.deadline, deps.clock.now() + 10_000);
    return (await deps.client.getDeployment(deploymentId, { deadline, signal: deps.signal })).clawId;
  } catch {
    return undefined;
  }
}

export const deploy: Command<SettingsOf<(typeof DEPLOY_READS)[number]>, DeployCommandResult> = async (context) => {
  const { settings, policy, suite } = context;
  const saved = context.behaviour && suite ? await prepareComparison(context, suite) : undefined;
  if (!settings.fleet) {
    const { clawId, strategy, payload, wait } = settings;
    const one = await deployClaw(
      saved ? { ...context, savedBaseline: saved.run.entries } : context,
      { clawId, strategy, payload, wait },
      policy,
    );
    await keepRecords(context, (facts) => deployRecords(one, facts));
    // The deployed version's run, for the next gate's `baseline: saved`.
    if (context.behaviour && suite && one.comparison) await saveDeployedRun(context, suite, one);
    return fromDeploy(one, context.github);
  }
  const result = await rolloutFleet(context, settings, policy);
  await keepRecords(context, (facts) => fleetRecords(result, settings.strategy, facts));
  const { outputs, notes } = fleetOutputs(result);
  const t = tally(result.entries);
  const state = githubState(result.outcome);
  const comparisons = result.comparisons;
  return {
    ok: result.ok,
    message: result.message,
    outputs,
    summary: [fleetSummary(result), comparisonSummary(comparisons, 'Behaviour before and after')]
      .filter(Boolean)
      .join('\n'),
    notes,
    failStep: true,
    checks: result.checks,
    ...(comparisons?.length ? { comparisons } : {}),
    github: state && {
      state,
      description: `Rollout of ${result.entries.length} Claw(s): ${result.outcome}; ${t.deployed} deployed, ${t.rolledBack} rolled back`,
    },
  };
};

export const wait: Command<SettingsOf<(typeof WAIT_READS)[number]>, DeployCommandResult> = async (context) =>
  fromDeploy(await waitOnDeployment(context, context.settings.deploymentId, context.policy), context.github);

export const rollback: Command<SettingsOf<(typeof ROLLBACK_READS)[number]>, DeployCommandResult> = async (context) => {
  const { settings, policy } = context;
  const result = await rollbackCommand(
    context,
    { deploymentId: settings.deploymentId, clawId: settings.clawId },
    policy,
  );
  // Rolled back by id alone: the record needs its Claw, which the deployment names (one read, with history only).
  const clawId =
    result.clawId ??
    (settings.history && result.rollback?.succeeded && result.deploymentId
      ? await clawOfDeployment(context, result.deploymentId)
      : undefined);
  await keepRecords(context, (facts) => deployRecords({ ...result, clawId }, facts));
  return fromDeploy(result, context.github);
};

export const deployDefinition: CommandDefinition<(typeof DEPLOY_READS)[number], DeployCommandResult> = {
  name: 'deploy',
  summary: 'trigger a deployment of one Claw (or a fleet), wait for a final status, roll back when told to',
  inputs: DEPLOY_READS,
  rules: {
    targets: 'the Claw to deploy',
    fleet: true,
    validate: (settings, given, w) => {
      if (settings.baseline !== 'none' && !settings.checks)
        refuseInput(
          'baseline',
          settings.baseline,
          `none when ${w.input('checks')} is empty (${settings.baseline} compares the checks' results)`,
        );
      if (settings.baseline === 'saved' && settings.fleet)
        refuseInput('baseline', settings.baseline, 'none or before for a fleet (saved compares one Claw)');
      if (settings.checks && !settings.wait)
        refuseInput(
          'wait',
          given('wait'),
          `true when ${w.input('checks')} is set: the checks run once the deployment has succeeded`,
        );
    },
  },
  prepare: {
    // `baseline: before` (or `saved`): the checks before the trigger (or the last gate's saved run), compared with those after it.
    behaviour: ({ baseline, failOn, showAnswers }, suite) =>
      baseline === 'before' || baseline === 'saved'
        ? {
            failOn,
            compare: (before, after, options) => compareRuns(before, after, suite, { ...options, show: showAnswers }),
            ...(suite.tolerance ? { tolerance: suite.tolerance } : {}),
          }
        : undefined,
  },
  action: {
    around: githubDeploymentOf,
    recordsAfterWaiting: true,
  },
  commandLine: {
    cancel: deployingCancel,
    historyFolder: true,
  },
  run: deploy,
};

export const waitDefinition: CommandDefinition<(typeof WAIT_READS)[number], DeployCommandResult> = {
  name: 'wait',
  summary: 'wait for an existing deployment (--deployment-id) to reach a final status',
  inputs: WAIT_READS,
  rules: {
    requires: { 'deployment-id': 'the id of the deployment to wait on' },
  },
  commandLine: {
    cancel: deployingCancel,
  },
  run: wait,
};

export const rollbackDefinition: CommandDefinition<(typeof ROLLBACK_READS)[number], DeployCommandResult> = {
  name: 'rollback',
  summary: "roll back a deployment, or a Claw's current one",
  inputs: ROLLBACK_READS,
  rules: {
    validate: (settings, _given, w) => {
      if (settings.clawId === '' && settings.deploymentId === '')
        refuseInput(
          'deployment-id',
          '',
          `the deployment to roll back, or a ${w.input('claw-id')} whose current deployment is rolled back`,
        );
    },
  },
  action: {
    recordsAfterWaiting: true,
  },
  commandLine: {
    cancel: rollbackCancel,
    historyFolder: true,
  },
  run: rollback,
};

/** deployments: the Claw; with `history`, the branch its records are read from, and their seal. */
const DEPLOYMENTS_READS = inputsReadBy('deployments');

/** The deployments command: a Claw's recent deployments, newest first, with this tool's records of them. */
export const deployments: Command<SettingsOf<(typeof DEPLOYMENTS_READS)[number]>> = async (context) => {
  const { settings } = context;
  const host = context.health?.host;
  const list = await listClawDeployments(context, {
    clawId: settings.clawId,
    ...(settings.history && host
      ? { history: { name: settings.history, host, seal: stateSealKey(settings, context.github.repository) } }
      : {}),
    redact: context.redact.redact,
  });
  const { outputs, notes } = deploymentsOutputs(list);
  // Drawn from the output as it passes the last check (report/outputs.ts): a refused output draws nothing.
  const view = deploymentsView(checkOutputs({ deployments: outputs.deployments }).values.deployments);
  const shown = list.deployments.length;
  const bound = list.more
    ? ` (read up to the newest ${MAX_LISTED}, within ${MAX_PAGES} pages: older ones, if any, are not listed)`
    : '';
  return {
    ok: true,
    message:
      shown === 0
        ? `Claw ${settings.clawId} has no deployment in the service's recent list (${list.pages} page(s) read).`
        : `Claw ${settings.clawId}: ${shown} recent deployment(s), newest first${bound}.`,
    outputs: { outcome: 'succeeded', ...outputs },
    summary: deploymentsSummary(list),
    notes,
    failStep: true,
    ...(view ? { views: [view] } : {}),
  };
};

export const deploymentsDefinition: CommandDefinition<(typeof DEPLOYMENTS_READS)[number]> = {
  name: 'deployments',
  summary: "list a Claw's recent deployments, newest first, with this tool's records of them (history)",
  inputs: DEPLOYMENTS_READS,
  rules: {
    requires: { 'claw-id': 'the Claw whose deployments to list' },
  },
  commandLine: {
    // It reads the deployment records deploy and rollback keep there.
    historyFolder: true,
  },
  run: deployments,
};
