// The action's entry: inputs → the shared core (run.ts) → outputs, job summary, the plan comment,
// and each definition's own part on GitHub around its run (deploy's GitHub Deployment). The only module (with post.ts) that touches @actions/core; GitHub is reached
// through github/. What it shares with the post step (secrets, logger, state) is in runner.ts. One
// catch turns any failure into one setFailed line.
import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import type { Logger } from '../shared/clock.js';
import { checksSummary } from '../checks/checks-report.js';
import { upsertComment } from '../github/comment.js';
import { connectGitHub } from '../github/connection.js';
import { CancelledError, InputError, errorMessage } from '../shared/errors.js';
import { errorSummary } from '../report/error-report.js';
import { capMarkdown } from '../report/markdown.js';
import type { Settings } from '../contract/settings.js';
import type { AroundRun, CommandDefinition } from '../contract/command.js';
import { inputDefault } from '../contract/inputs.js';
import { type GitHubRun, githubRun } from '../shared/workflow-run.js';
import { inputSecrets, isPostState, runnerLogger, stateWriter } from './runner.js';
import { GitHubDeployment } from '../github/deployments.js';
import { githubPreviewHost } from '../github/preview-host.js';
import { githubHealthHost } from '../github/health-host.js';
import {
  COMMANDS,
  type CommandResult,
  type InputFiles,
  type Session,
  definitionOf,
  execute,
  outputsOf,
  readInputFiles,
  readSettings,
  workspaceOf,
} from '../core/run.js';
import { describeFailure } from '../core/wiring.js';
import { Redactor } from '../api/redact.js';

/** Every secret of the run, as it learns them: applied to decoded text at every sink below. */
const secrets = new Redactor();
// Every line the layers log crosses into the runner's log here, and only here (runner.ts).
const log: Logger & { clean(text: string): string } = runnerLogger(core, secrets);
const clean = log.clean;
const fail = (message: string): void => core.setFailed(clean(message));
const state = stateWriter({ save: core.saveState, get: core.getState });

/** True when the runner starts the bundle again for the post step. */
export function isPostStep(): boolean {
  return isPostState({ save: core.saveState, get: core.getState });
}

export async function run(commands: readonly CommandDefinition[] = COMMANDS): Promise<void> {
  // Mask the key before anything else can print it.
  const rawKey = core.getInput('api-key');
  for (const secret of inputSecrets(core.getInput)) core.setSecret(secret);
  secrets.add(...inputSecrets(core.getInput));
  state.markMain();
  // A pull request from a fork runs without secrets: a preview then does nothing, and says so once.
  const named = commands.find((c) => c.name === core.getInput('command').trim());
  if (named?.action?.pullRequest && !rawKey.trim()) {
    core.notice(named.action.pullRequest.withoutKey);
    return;
  }
  const workspace = workspaceOf(process.env);
  const input = await readInput(workspace, commands);
  if (!input) return;
  const { settings, files } = input;
  const definition = definitionOf(settings.command, commands);

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

  const github = githubRun();
  // The definition's own part on GitHub around its run (deploy's GitHub Deployment), when it has one.
  const around = definition.action?.around?.(settings, {
    github,
    githubDeployment: (environment) =>
      new GitHubDeployment({ token: settings.githubToken, environment, run: github, warn: log.warning }),
    keepGitHubDeployment: state.githubDeployment,
  });
  try {
    around?.start?.();
    const session = sessionOf(settings, definition, github, workspace, cancel.signal, around);
    const result = await execute(settings, files, session, commands);
    if (around) Object.assign(result.outputs, await around.end({ result }));
    await report(result, files);
    state.finished();
  } catch (err) {
    const cancelled = err instanceof CancelledError;
    const message = cancelled ? `Cancelled before the ${settings.command} finished.` : describeFailure(settings, err);
    // Every failing step sets an outcome, so a later `if:` can tell it from a step that never ran.
    core.setOutput('outcome', cancelled ? 'cancelled' : 'error');
    // What the definition started on GitHub ends too (a GitHub Deployment left in progress would say so forever).
    await around?.end({ failure: message });
    await writeSummary(errorSummary(settings.command, message, cancelled)).catch(() => undefined);
    fail(message);
    state.finished();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The settings, then the checks file and the manifest (input too: every mistake in them is found
 * before any request); on a mistake, the one error line, the outcome and the summary, and nothing.
 */
async function readInput(
  workspace: string,
  commands: readonly CommandDefinition[],
): Promise<{ settings: Settings; files: InputFiles } | undefined> {
  try {
    const settings = readSettings((name) => core.getInput(name), undefined, commands);
    // The command line's `--output -` is stdout; the action's stdout is the public log.
    if (settings.checksOutput === '-' || settings.checksOutput === '/dev/stdout')
      throw new InputError(
        `Input 'checks-output' is ${JSON.stringify(settings.checksOutput)}: expected a file in the workspace, such as reports/claw-checks.json (stdout is the command line's --output -; here it is the log)`,
      );
    const files = await readInputFiles(settings, workspace, process.env, undefined, githubRun().forkEvent, commands);
    // The runner masks what they read from the environment too, wherever it might show up.
    for (const value of files.secrets) core.setSecret(value);
    secrets.add(...files.secrets, `${settings.authScheme} ${settings.apiKey}`.trim());
    return { settings, files };
  } catch (err) {
    const message = errorMessage(err);
    core.setOutput('outcome', 'error');
    await writeSummary(errorSummary(core.getInput('command') || inputDefault('command'), message)).catch(
      () => undefined,
    );
    fail(message);
    return undefined;
  }
}

/** Where the run happens, as the action gives it: the runner's log, state and GitHub's hosts. */
function sessionOf(
  settings: Settings,
  definition: CommandDefinition,
  github: GitHubRun,
  workspace: string,
  signal: AbortSignal,
  around: AroundRun | undefined,
): Session {
  return {
    log,
    signal,
    workspace,
    tempDir: process.env.RUNNER_TEMP || tmpdir(),
    github,
    userAgent: `claw-deploy (${github.repository || 'local'})`,
    redact: secrets,
    onProgress: ({ deploymentId, final }) => {
      // Set at once, so a later failure (the service gone quiet) still tells which deployment.
      core.setOutput('deployment-id', deploymentId);
      state.deployment(deploymentId, final);
      around?.progress?.({ deploymentId, final });
    },
    onFleetProgress: (inFlight) => state.fleetInFlight(inFlight),
    comment: (comment) => commentOnPullRequest(settings, comment, github),
    preview: definition.action?.pullRequest
      ? {
          host: githubPreviewHost(settings.githubToken, connectGitHub(settings.githubToken, github), log.warning),
          event: {
            name: github.eventName,
            action: github.eventAction,
            pr: github.pullRequest,
            headSha: github.headSha,
          },
        }
      : undefined,
    // `history`: health keeps its runs there, deploy and rollback their deployments' records.
    health: settings.history
      ? {
          host: githubHealthHost(
            // Every GitHub call of health ends by the step's timeout; a rate limit stops them all.
            // A deployment's record is written after its wait and rollback (each up to the timeout).
            connectGitHub(settings.githubToken, github, {
              deadline:
                Date.now() +
                (definition.action?.recordsAfterWaiting ? 2 * settings.timeoutMs + 60_000 : settings.timeoutMs),
              signal,
              warn: log.warning,
            }),
            settings.history,
          ),
        }
      : undefined,
  };
}

/** The result as the runner shows it: outputs (each through the last check), notices, the summary, the step's end. */
async function report(result: CommandResult, files: InputFiles): Promise<void> {
  const outputs = outputsOf(result, files);
  for (const [name, value] of Object.entries(outputs.values)) core.setOutput(name, secrets.redact(value));
  outputs.warnings.forEach(log.warning);
  for (const notice of result.notices ?? []) core.notice(clean(notice));
  await writeSummary([result.summary, checksSummary(result.checks)].filter(Boolean).join('\n'), result.summaryCap);
  if (result.ok) log.info(result.message);
  else if (result.failStep) fail(result.message);
  else log.warning(result.message);
}

/** On a pull request, `body` in one comment, found again by its marker; elsewhere an info line. */
async function commentOnPullRequest(
  settings: Settings,
  { marker, body, what }: { marker: string; body: string; what: string },
  github: GitHubRun,
): Promise<void> {
  if (!['pull_request', 'pull_request_target'].includes(github.eventName) || github.pullRequest === undefined) {
    log.info(`Not commenting ${what}: the event is ${github.eventName || 'not a GitHub event'}, not a pull request.`);
    return;
  }
  const done = await upsertComment({
    github: connectGitHub(settings.githubToken, github),
    pullRequest: github.pullRequest,
    marker,
    body: secrets.redact(body),
    warn: log.warning,
  });
  if (done)
    log.info(`${what[0].toUpperCase()}${what.slice(1)} is on pull request #${github.pullRequest} (comment ${done}).`);
}

async function writeSummary(markdown: string, cap?: CommandResult['summaryCap']): Promise<void> {
  // Outside a runner (no summary file) the summary is skipped, not an error.
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  await core.summary.addRaw(capMarkdown(secrets.redact(markdown), cap?.bytes, cap?.whereWhole)).write();
}
