// Inputs → command → outputs and job summary. The only module (with post.ts) that touches
// @actions/core and @actions/github; one catch turns any failure into one setFailed line.
import * as core from '@actions/core';
import { type Logger, systemClock } from './clock.js';
import { type CommandDeps, type DeployResult, deployClaw, rollbackCommand, waitOnDeployment } from './deploy/deploy.js';
import { rolloutFleet, tally } from './deploy/fleet.js';
import { DeploymentHistory } from './deploy/history.js';
import { runChecks } from './checks/gate.js';
import type { ChecksResult } from './checks/result.js';
import { writeJUnit } from './checks/junit.js';
import { type CheckSuite, loadChecks } from './checks/suite.js';
import { checksOutputs, checksSummary } from './report/checks-report.js';
import { upsertComment } from './github/comment.js';
import { type ManifestResult, applyCommand, driftCommand, planCommand, requireSecrets } from './manifest/command.js';
import { type Manifest, loadManifest, secretValues } from './manifest/manifest.js';
import { type PlanView, commentBody, commentMarker, planMarkdown, planOutputs } from './report/plan-report.js';
import { CancelledError, errorMessage } from './errors.js';
import { checkHealth } from './health/health.js';
import { deployOutputs, deploySummary } from './report/deploy-report.js';
import { errorSummary } from './report/error-report.js';
import { fleetOutputs, fleetSummary } from './report/fleet-report.js';
import { healthOutputs, healthSummary } from './report/health-report.js';
import { sanitizeLogLine } from './report/log-line.js';
import { MAX_PLAN_SUMMARY_BYTES, capMarkdown } from './report/markdown.js';
import { writePlanFiles } from './report/plan-files.js';
import { tmpdir } from 'node:os';
import { checkOutputs } from './report/outputs.js';
import { type Settings, readSettings } from './settings.js';
import { type DeploymentState, GitHubDeployment } from './github/deployments.js';
import { type GitHubRun, commitUrl, githubRun, runUrl } from './github/run.js';
import { STATE } from './state.js';
import { VerdictCache } from './checks/judge-cache.js';
import { judgeSecrets } from './checks/judge-spec.js';
import {
  applyOptions,
  classifierOf,
  createClient,
  describeFailure,
  judgePanel,
  policyOf,
  withProbe,
} from './wiring.js';

// Every line the layers log crosses into the runner's log here, and only here, sanitized: the
// service's text can never become a workflow command.
export const log: Logger = {
  info: (message) => core.info(sanitizeLogLine(message)),
  warning: (message) => core.warning(sanitizeLogLine(message)),
  debug: (message) => core.debug(sanitizeLogLine(message)),
  startGroup: (name) => core.startGroup(sanitizeLogLine(name)),
  endGroup: () => core.endGroup(),
};
export const fail = (message: string): void => core.setFailed(sanitizeLogLine(message));

/** True when the runner starts the bundle again for the post step. */
export function isPostStep(): boolean {
  return core.getState(STATE.isPost) === 'true';
}

export async function run(): Promise<void> {
  // Mask the key before anything else can print it.
  const rawKey = core.getInput('api-key');
  if (rawKey.trim()) core.setSecret(rawKey.trim());
  const githubToken = core.getInput('github-token');
  if (githubToken.trim()) core.setSecret(githubToken.trim());
  core.saveState(STATE.isPost, 'true');

  let settings: Settings;
  let suite: CheckSuite | undefined;
  let manifest: Manifest | undefined;
  try {
    settings = readSettings((name) => core.getInput(name));
    // The checks file and the manifest are input too: every mistake in them is found before any request.
    suite = settings.checks
      ? withProbe(await loadChecks(settings.checks, workspace(), process.env), settings)
      : undefined;
    for (const value of judgeSecrets(suite?.judges ?? [])) core.setSecret(value);
    manifest = settings.manifest ? await loadManifest(settings.manifest, workspace(), process.env) : undefined;
    // The runner masks these too, wherever they might show up.
    for (const value of manifest ? secretValues(manifest) : []) core.setSecret(value);
    if (manifest && settings.command === 'apply') requireSecrets(manifest);
  } catch (err) {
    const message = errorMessage(err);
    core.setOutput('outcome', 'error');
    await writeSummary(errorSummary(core.getInput('command') || 'deploy', message)).catch(() => undefined);
    fail(message);
    return;
  }

  const cancel = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (cancel.signal.aborted) {
      // Second signal: the runner is about to kill us. What is saved is what the post step gets.
      fail(`Cancelled (${signal}).`);
      process.exit(1);
    }
    log.warning(`Received ${signal}: stopping the wait and reporting what is known.`);
    cancel.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let close = (): void => {};
  const github = githubRun();
  const mirror = mirrorFor(settings, github);
  let cache: VerdictCache | undefined;
  try {
    const { client, pacer } = createClient(settings, systemClock, log, `claw-deploy (${github.repository || 'local'})`);
    cache = settings.judgeCache ? await VerdictCache.load(settings.judgeCache, workspace(), log.warning) : undefined;
    const panel = judgePanel({ client, clock: systemClock, log, pacer, signal: cancel.signal }, settings, cache);
    close = () => {
      client.close();
      panel.close();
    };
    const startedAt = systemClock.now();
    const deadline = startedAt + settings.timeoutMs;
    const deps: CommandDeps = {
      client,
      pacer,
      clock: systemClock,
      log,
      signal: cancel.signal,
      startedAt,
      deadline,
      // Read only when a wait first needs it: a run that never polls a deployment spends nothing on it.
      history: new DeploymentHistory(client, log, { deadline, signal: cancel.signal }),
      checks:
        suite &&
        ((clawIds) => {
          warnGraderUnderTest(suite, clawIds);
          return runChecks(deps, suite, clawIds, {
            pollIntervalMs: settings.pollIntervalMs,
            classify: classifierOf(settings),
            judgeFor: panel.judgeFor,
          });
        }),
      onProgress: ({ deploymentId, final }) => {
        // Set at once, so a later failure (the service gone quiet) still tells which deployment.
        core.setOutput('deployment-id', deploymentId);
        core.saveState(STATE.deploymentId, deploymentId);
        core.saveState(STATE.final, String(final));
        mirror?.start([settings.clawId], [deploymentId]);
      },
      onFleetProgress: (inFlight) => core.saveState(STATE.fleetInFlight, JSON.stringify(inFlight)),
    };
    if (settings.fleet) mirror?.start(settings.targets.all ? ['*'] : settings.targets.ids, []);
    const result = await runCommand(settings, deps, github, manifest);
    if (mirror) result.outputs['github-deployment-id'] = await mirror.finish(result.github);
    const checks = checksOutputs(result.checks);
    setOutputs({ ...result.outputs, ...(suite ? checks.outputs : {}) });
    [...result.notes, ...checks.notes].forEach(log.warning);
    if (suite && result.checks && settings.checksJunit) {
      const written = await writeJUnit(settings.checksJunit, workspace(), result.checks, suite.file).catch(
        (err: unknown) => {
          log.warning(`Could not write the JUnit file '${settings.checksJunit}': ${errorMessage(err)}`);
        },
      );
      if (written) log.info(`Wrote the checks' results as JUnit XML to ${settings.checksJunit}.`);
    }
    await writeSummary([result.summary, checksSummary(result.checks)].filter(Boolean).join('\n'), result.summaryCap);
    if (result.ok) log.info(result.message);
    else if (result.failStep) fail(result.message);
    else log.warning(result.message);
    core.saveState(STATE.finished, 'true');
  } catch (err) {
    const cancelled = err instanceof CancelledError;
    const message = cancelled ? `Cancelled before the ${settings.command} finished.` : describeFailure(settings, err);
    // Every failing step sets an outcome, so a later `if:` can tell it from a step that never ran.
    core.setOutput('outcome', cancelled ? 'cancelled' : 'error');
    // A GitHub Deployment left in progress would say so forever.
    await mirror?.finish({ state: 'error', description: message });
    await writeSummary(errorSummary(settings.command, message, cancelled)).catch(() => undefined);
    fail(message);
    core.saveState(STATE.finished, 'true');
  } finally {
    await saveCache(cache);
    close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The GitHub Deployment of a deploy with `environment`: started at the trigger, closed at the end. */
function mirrorFor(settings: Settings, github: GitHubRun) {
  if (!settings.environment || settings.command !== 'deploy') return undefined;
  const deployment = new GitHubDeployment({
    token: settings.githubToken,
    environment: settings.environment,
    run: github,
    warn: log.warning,
  });
  let started: Promise<void> | undefined;
  return {
    start(claws: string[], deploymentIds: string[]): void {
      started ??= (async () => {
        const id = await deployment.create({ claws, deploymentIds }, `Deploying ${claws.join(', ')}`);
        if (id === undefined) return;
        core.saveState(STATE.githubDeploymentId, String(id));
        const what = deploymentIds.length ? ` (deployment ${deploymentIds.join(', ')})` : '';
        await deployment.status('in_progress', `Deploying ${claws.join(', ')}${what}`);
      })();
    },
    /** The final status, when there is one; returns the deployment's id for the output. */
    async finish(final: CommandResult['github']): Promise<string> {
      await started;
      if (final) await deployment.status(final.state, final.description, final.url);
      return deployment.id === undefined ? '' : String(deployment.id);
    },
  };
}

/** What every command gives back, whatever it did: main.ts turns it into outputs and a summary. */
interface CommandResult {
  ok: boolean;
  /** One line: what happened, and for a failure, why. */
  message: string;
  outputs: Record<string, string>;
  summary: string;
  /** Lines for the log's warnings (an output cut to its cap, say). */
  notes: string[];
  /** A result that is not ok fails the step, unless the user asked for a warning only. */
  failStep: boolean;
  /** The GitHub Deployment's final status, for a deploy (absent: leave it as it is). */
  github?: { state: DeploymentState; description: string; url?: string };
  /** The conversation checks that ran, when there is a checks file. */
  checks?: ChecksResult;
  /** A summary that may be larger than most (a plan's whole values), and where it is whole. */
  summaryCap?: { bytes: number; whereWhole: string };
}

/** Where the user's files are: the runner's workspace, or here when run by hand. */
function workspace(): string {
  return process.env.GITHUB_WORKSPACE || process.cwd();
}

/** A grader Claw that is itself under test grades its own replies: worth a word. */
function warnGraderUnderTest(suite: CheckSuite, clawIds: string[]): void {
  for (const judge of suite.judges) {
    if (judge.kind === 'claw' && clawIds.includes(judge.clawId)) {
      log.warning(
        `The grader Claw ${judge.clawId} is also under test: it grades replies while its own release is checked.`,
      );
    }
  }
}

/** Keeps the judge's verdicts for the next run; a cache that cannot be written is a warning, never a failure. */
async function saveCache(cache: VerdictCache | undefined): Promise<void> {
  try {
    if (await cache?.save()) log.info(`Kept ${cache!.size} judge verdict(s) in ${cache!.path}.`);
  } catch (err) {
    log.warning(`Could not write the judge cache: ${errorMessage(err)}`);
  }
}

/** GitHub's reading of an outcome: failed or paused is a failure, timed-out or cancelled an error. */
function githubState(outcome: string): DeploymentState | undefined {
  if (outcome === 'succeeded') return 'success';
  if (outcome === 'failed' || outcome === 'paused') return 'failure';
  if (outcome === 'timed-out' || outcome === 'cancelled' || outcome === 'error') return 'error';
  return undefined; // triggered without waiting: still in progress
}

async function runCommand(
  settings: Settings,
  deps: CommandDeps,
  github: GitHubRun,
  manifest: Manifest | undefined,
): Promise<CommandResult> {
  const policy = policyOf(settings);
  const fromDeploy = (result: DeployResult): CommandResult => {
    const state = githubState(result.outcome ?? '');
    const rolledBack = result.rollback?.succeeded ? `, rolled back (${result.rollback.id})` : '';
    return {
      ok: result.ok,
      message: result.message,
      outputs: deployOutputs(result),
      summary: deploySummary(result, { runUrl: runUrl(github), sha: github.sha, commitUrl: commitUrl(github) }),
      notes: [],
      failStep: true,
      checks: result.checks,
      github: state && {
        state,
        description: `Claw ${result.clawId}: ${result.outcome} (deployment ${result.deploymentId})${rolledBack}`,
        url: result.url,
      },
    };
  };
  const command = settings.command;
  switch (command) {
    case 'deploy': {
      if (!settings.fleet) {
        const { clawId, strategy, payload, wait } = settings;
        return fromDeploy(await deployClaw(deps, { clawId, strategy, payload, wait }, policy));
      }
      const result = await rolloutFleet(deps, settings, policy);
      const { outputs, notes } = fleetOutputs(result);
      const t = tally(result.entries);
      const state = githubState(result.outcome);
      return {
        ok: result.ok,
        message: result.message,
        outputs,
        summary: fleetSummary(result),
        notes,
        failStep: true,
        checks: result.checks,
        github: state && {
          state,
          description: `Rollout of ${result.entries.length} Claw(s): ${result.outcome}; ${t.deployed} deployed, ${t.rolledBack} rolled back`,
        },
      };
    }
    case 'wait':
      return fromDeploy(await waitOnDeployment(deps, settings.deploymentId, policy));
    case 'rollback':
      return fromDeploy(
        await rollbackCommand(deps, { deploymentId: settings.deploymentId, clawId: settings.clawId }, policy),
      );
    case 'health': {
      const result = await checkHealth(deps, {
        targets: settings.targets,
        // With a checks file the probe is one of the checks (see withProbe).
        probeMessage: deps.checks ? '' : settings.probeMessage,
        checks: deps.checks,
        probeExpect: settings.probeExpect,
        pollIntervalMs: settings.pollIntervalMs,
        classify: classifierOf(settings),
      });
      const { outputs, notes } = healthOutputs(result);
      return {
        ok: result.healthy,
        message: result.message,
        outputs,
        summary: healthSummary(result),
        notes,
        failStep: settings.failOnUnhealthy,
        checks: result.checks,
      };
    }
    case 'plan':
    case 'drift':
    case 'apply': {
      if (!manifest) throw new Error(`the ${command} command needs a manifest`);
      const result =
        command === 'plan'
          ? await planCommand(deps, manifest)
          : command === 'drift'
            ? await driftCommand(deps, manifest, settings.failOnDrift)
            : await applyCommand(deps, manifest, applyOptions(settings), policy);
      return manifestResult(settings, result, github);
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${String(unknown)}`);
    }
  }
}

/** Plan, drift and apply: the plan's outputs and summary (and an apply's rollout), the comment on a pull request. */
async function manifestResult(settings: Settings, result: ManifestResult, github: GitHubRun): Promise<CommandResult> {
  const title = { plan: 'Plan', drift: 'Drift', apply: 'Apply' }[settings.command as 'plan' | 'drift' | 'apply'];
  const view = { title, apply: result.apply, runUrl: runUrl(github) };
  const plan = planOutputs(result.plan);
  const rollout = result.rollout && fleetOutputs(result.rollout);
  const files = await writePlanFiles(result.plan, view, process.env.RUNNER_TEMP || tmpdir()).catch((err: unknown) => {
    log.warning(`Could not write the plan's files: ${errorMessage(err)}`);
    return undefined;
  });
  if (files) log.info(`The whole plan is in ${files.markdown} (and as JSON in ${files.json}).`);
  if (settings.comment && settings.command === 'plan') await commentPlan(settings, result, github, view);
  return {
    ok: result.ok,
    message: result.message,
    outputs: {
      outcome: result.outcome,
      ...rollout?.outputs,
      ...plan.outputs,
      'plan-file': files?.markdown ?? '',
      'plan-json': files?.json ?? '',
    },
    summaryCap: {
      bytes: MAX_PLAN_SUMMARY_BYTES,
      whereWhole: files ? `The whole plan is in the file named by the plan-file output (${files.markdown}).` : '',
    },
    summary: [planMarkdown(result.plan, view), result.rollout ? fleetSummary(result.rollout) : '']
      .filter(Boolean)
      .join('\n'),
    notes: [...plan.notes, ...(rollout?.notes ?? [])],
    failStep: true,
    checks: result.rollout?.checks,
  };
}

/** On a pull request, the plan in one comment, found again by its marker; elsewhere an info line. */
async function commentPlan(
  settings: Settings,
  result: ManifestResult,
  github: GitHubRun,
  view: PlanView,
): Promise<void> {
  if (!['pull_request', 'pull_request_target'].includes(github.eventName) || github.pullRequest === undefined) {
    log.info(`Not commenting the plan: the event is ${github.eventName || 'not a GitHub event'}, not a pull request.`);
    return;
  }
  const done = await upsertComment({
    token: settings.githubToken,
    run: github,
    pullRequest: github.pullRequest,
    marker: commentMarker(result.plan.manifest),
    body: commentBody(result.plan, view),
    warn: log.warning,
  });
  if (done) log.info(`The plan is on pull request #${github.pullRequest} (comment ${done}).`);
}

/** Outputs only through setOutput, and only values that pass the last check. */
function setOutputs(outputs: Record<string, string>): void {
  const { values, refused } = checkOutputs(outputs);
  for (const [name, value] of Object.entries(values)) core.setOutput(name, value);
  refused.forEach(log.warning);
}

async function writeSummary(markdown: string, cap?: CommandResult['summaryCap']): Promise<void> {
  // Outside a runner (no summary file) the summary is skipped, not an error.
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  await core.summary.addRaw(capMarkdown(markdown, cap?.bytes, cap?.whereWhole)).write();
}
