// The core both entries run: the action (main.ts) and the command line (cli.ts) each turn their
// source into Settings, then read the user's files and run the command here, the same way, and
// report what comes back through their own reporter. Nothing here knows which entry called.
import { resolve } from 'node:path';
import { systemClock, type Logger } from './clock.js';
import {
  type CommandDeps,
  type DeployResult,
  deployClaw,
  rollbackCommand,
  waitOnDeployment,
  type Progress,
} from './deploy/deploy.js';
import { rolloutFleet, tally } from './deploy/fleet.js';
import { DeploymentHistory } from './deploy/history.js';
import { runChecks } from './checks/gate.js';
import { VerdictCache } from './checks/judge-cache.js';
import { judgeSecrets } from './checks/judge-spec.js';
import { writeJUnit } from './checks/junit.js';
import { type ChecksResult, describeFailedChecks } from './checks/result.js';
import { type CheckSuite, loadChecks } from './checks/suite.js';
import { InputError, errorMessage } from './errors.js';
import { checkHealth } from './health/health.js';
import { type ManifestResult, applyCommand, driftCommand, planCommand, requireSecrets } from './manifest/command.js';
import { type Manifest, loadManifest, secretValues } from './manifest/manifest.js';
import type { DeploymentState } from './github/deployments.js';
import { type GitHubRun, commitUrl, runUrl } from './github/run.js';
import { deployOutputs, deploySummary } from './report/deploy-report.js';
import { fleetOutputs, fleetSummary } from './report/fleet-report.js';
import { healthOutputs, healthSummary } from './report/health-report.js';
import { MAX_PLAN_SUMMARY_BYTES } from './report/markdown.js';
import { checksOutputs } from './report/checks-report.js';
import { checkOutputs } from './report/outputs.js';
import { writePlanFiles } from './report/plan-files.js';
import { type PlanView, planMarkdown, planOutputs } from './report/plan-report.js';
import type { Settings } from './settings.js';
import type { Redactor } from './api/redact.js';
import { sealKey } from './seal.js';
import { type PreviewEvent, previewCommand } from './preview/command.js';
import type { PreviewHost } from './preview/host.js';
import { previewOutputs, previewSummary } from './report/preview-report.js';
import { applyOptions, classifierOf, createClient, judgePanel, policyOf, withProbe } from './wiring.js';

/** The user's files, read and checked before any request: the checks and the manifest. */
export interface InputFiles {
  suite?: CheckSuite;
  manifest?: Manifest;
  /** Values read from the environment for them (a judge's key, a manifest's secrets): to mask. */
  secrets: string[];
}

/** Reads the checks file and the manifest; every mistake in them is an InputError, before any request. */
export async function readInputFiles(
  settings: Settings,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<InputFiles> {
  const suite = settings.checks ? withProbe(await loadChecks(settings.checks, workspace, env), settings) : undefined;
  const manifest = settings.manifest ? await loadManifest(settings.manifest, workspace, env) : undefined;
  if (manifest && settings.command === 'apply') requireSecrets(manifest);
  const secrets = [...judgeSecrets(suite?.judges ?? []), ...(manifest ? secretValues(manifest) : [])];
  return { suite, manifest, secrets };
}

/** Where a run happens and what it tells its entry as it goes. */
export interface Session {
  log: Logger;
  signal: AbortSignal;
  /** Where relative paths (checks, manifest, JUnit, cache) are read and written. */
  workspace: string;
  /** Where the plan's files go (the runner's temporary folder). */
  tempDir: string;
  /** The GitHub run, for links in the report (empty outside GitHub). */
  github: GitHubRun;
  userAgent: string;
  /** A deployment triggered or reaching its end: what a cancel must know. */
  onProgress?: (progress: Progress) => void;
  /** A fleet's deployments in flight, each time that changes. */
  onFleetProgress?: (inFlight: string[]) => void;
  /** Every secret of the run: each file, comment and report written here passes through it. */
  redact: Redactor;
  /** The code host and the event, for `preview` (the action only). */
  preview?: { host: PreviewHost; event: PreviewEvent };
}

/**
 * Runs the command: one client and pacer, the judges and their cache, the checks gate, then the
 * command itself; writes the JUnit file and keeps the cache. Throws what the command could not
 * survive (a refused key, a cancel): the entry reports that as outcome error or cancelled.
 */
export async function execute(settings: Settings, files: InputFiles, session: Session): Promise<CommandResult> {
  const { log, signal } = session;
  const { suite } = files;
  const { client, pacer } = createClient(settings, systemClock, log, session.userAgent);
  const cache = settings.judgeCache
    ? await VerdictCache.load(settings.judgeCache, session.workspace, log.warning)
    : undefined;
  const panel = judgePanel({ client, clock: systemClock, log, pacer, signal }, settings, cache);
  try {
    const startedAt = systemClock.now();
    const deadline = startedAt + settings.timeoutMs;
    const checksFor = (checked: CheckSuite, clawIds: string[]): Promise<ChecksResult> => {
      warnGraderUnderTest(log, checked, clawIds);
      return runChecks(deps, checked, clawIds, {
        pollIntervalMs: settings.pollIntervalMs,
        classify: classifierOf(settings),
        judgeFor: panel.judgeFor,
      });
    };
    const deps: CommandDeps = {
      client,
      pacer,
      clock: systemClock,
      log,
      signal,
      startedAt,
      deadline,
      // Read only when a wait first needs it: a run that never polls a deployment spends nothing on it.
      history: new DeploymentHistory(client, log, { deadline, signal }),
      checks: suite && ((clawIds) => checksFor(suite, clawIds)),
      onProgress: session.onProgress,
      onFleetProgress: session.onFleetProgress,
    };
    const result = await runCommand(settings, deps, session, files, checksFor);
    if (suite && result.checks && settings.checksJunit) {
      const checks = session.redact.redactJson(result.checks);
      const written = await writeJUnit(
        settings.checksJunit,
        session.workspace,
        checks,
        suite.file,
        session.redact.redact,
      ).catch((err: unknown) => {
        log.warning(`Could not write the JUnit file '${settings.checksJunit}': ${errorMessage(err)}`);
      });
      if (written) log.info(`Wrote the checks' results as JUnit XML to ${settings.checksJunit}.`);
    }
    return result;
  } finally {
    await saveCache(log, cache);
    client.close();
    panel.close();
  }
}

/** Where the user's files are: the runner's workspace, or the current folder. */
export function workspaceOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.GITHUB_WORKSPACE || process.cwd());
}

/** What every command gives back, whatever it did: each entry turns it into outputs and a report. */
export interface CommandResult {
  ok: boolean;
  /** One line: what happened, and for a failure, why. */
  message: string;
  outputs: Record<string, string>;
  summary: string;
  /** Lines for the log's warnings (an output cut to its cap, say). */
  notes: string[];
  /** Lines for the log as notices: worth seeing, not a problem (a preview cap). */
  notices?: string[];
  /** A result that is not ok fails the step, unless the user asked for a warning only. */
  failStep: boolean;
  /** The GitHub Deployment's final status, for a deploy (absent: leave it as it is). */
  github?: { state: DeploymentState; description: string; url?: string };
  /** plan, apply, drift: the plan and how it was shown, for a pull-request comment. */
  plan?: { result: ManifestResult; view: PlanView };
  /** The conversation checks that ran, when there is a checks file. */
  checks?: ChecksResult;
  /** A summary that may be larger than most (a plan's whole values), and where it is whole. */
  summaryCap?: { bytes: number; whereWhole: string };
}

/** A grader Claw that is itself under test grades its own replies: worth a word. */
function warnGraderUnderTest(log: Logger, suite: CheckSuite, clawIds: string[]): void {
  for (const judge of suite.judges) {
    if (judge.kind === 'claw' && clawIds.includes(judge.clawId)) {
      log.warning(
        `The grader Claw ${judge.clawId} is also under test: it grades replies while its own release is checked.`,
      );
    }
  }
}

/** Keeps the judge's verdicts for the next run; a cache that cannot be written is a warning, never a failure. */
async function saveCache(log: Logger, cache: VerdictCache | undefined): Promise<void> {
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
  session: Session,
  files: InputFiles,
  checksFor: (suite: CheckSuite, clawIds: string[]) => Promise<ChecksResult>,
): Promise<CommandResult> {
  const { github } = session;
  const { manifest } = files;
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
      return manifestResult(settings, result, session);
    }
    case 'check': {
      if (!deps.checks) throw new Error('the check command needs a checks file');
      const result = await deps.checks(
        settings.targets.all
          ? (await deps.client.listClaws({ deadline: deps.deadline, signal: deps.signal })).map((c) => c.id)
          : settings.targets.ids,
      );
      const failed = result.entries.filter((e) => !e.passed).length;
      return {
        ok: result.passed,
        message: result.passed
          ? `All ${result.entries.length} check(s) passed.`
          : `${failed} of ${result.entries.length} check(s) did not pass: ${describeFailedChecks(result)}.`,
        outputs: { outcome: result.passed ? 'succeeded' : 'failed' },
        summary: '',
        notes: [],
        failStep: true,
        checks: result,
      };
    }
    case 'preview': {
      if (!session.preview || !manifest) {
        throw new InputError('The preview command follows a GitHub pull request: run it in a GitHub Actions workflow.');
      }
      const redact = session.redact.redact;
      const result = await previewCommand(
        {
          ctx: deps,
          host: session.preview.host,
          runChecks: files.suite && checksFor,
        },
        {
          manifest,
          suite: files.suite,
          event: session.preview.event,
          previewClaws: settings.previewClaws,
          ttlMs: settings.previewTtlMs,
          maxPreviews: settings.maxPreviews,
          failOn: settings.failOn,
          environment: settings.environment,
          strategy: settings.strategy,
          payload: settings.payload,
          policy,
          redact,
          seal: sealKey(settings.apiKey, session.github.repository),
        },
      );
      const { outputs, notes } = previewOutputs(result);
      return {
        ok: result.ok,
        message: result.message,
        outputs: { outcome: result.ok ? 'succeeded' : 'failed', ...outputs, report: outputs.previews },
        summary: previewSummary(manifest.file, result, deps.clock.now(), redact),
        notes,
        notices: result.notices,
        failStep: result.failStep,
        checks: result.checks,
      };
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${String(unknown)}`);
    }
  }
}

/**
 * The outputs a run sets (the action's step outputs, the command line's table and --json): the
 * command's and the checks', each through the last check; and what to warn about them.
 */
export function outputsOf(
  result: CommandResult,
  files: InputFiles,
): { values: Record<string, string>; warnings: string[] } {
  const checks = checksOutputs(result.checks);
  const { values, refused } = checkOutputs({ ...result.outputs, ...(files.suite ? checks.outputs : {}) });
  return { values, warnings: [...result.notes, ...checks.notes, ...refused] };
}

/** Plan, drift and apply: the plan's outputs and summary (and an apply's rollout), and its files. */
async function manifestResult(settings: Settings, result: ManifestResult, session: Session): Promise<CommandResult> {
  const { log } = session;
  const title = { plan: 'Plan', drift: 'Drift', apply: 'Apply' }[settings.command as 'plan' | 'drift' | 'apply'];
  const view: PlanView = { title, apply: result.apply, runUrl: runUrl(session.github) };
  const plan = planOutputs(result.plan);
  const rollout = result.rollout && fleetOutputs(result.rollout);
  const files = await writePlanFiles(result.plan, view, session.tempDir, session.redact.redact).catch(
    (err: unknown) => {
      log.warning(`Could not write the plan's files: ${errorMessage(err)}`);
      return undefined;
    },
  );
  if (files) log.info(`The whole plan is in ${files.markdown} (and as JSON in ${files.json}).`);
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
    plan: { result, view },
  };
}
