// The post step (`post-if: always()`): when the main step was killed before it could act on a
// cancel, do what it would have done. It only warns; it never fails the job. The same bundle
// runs both steps (index.ts tells them apart); importing this module runs nothing.
import * as core from '@actions/core';
import { systemClock } from '../shared/clock.js';
import { CANCEL_ROLLBACK_MS } from '../deploy/deploy.js';
import { Redactor } from '../api/redact.js';
import type { Logger } from '../shared/clock.js';
import { errorMessage } from '../shared/errors.js';
import { GitHubDeployment } from '../github/deployments.js';
import { githubRun } from '../shared/workflow-run.js';
import { inputSecrets, readLeftInFlight, runnerLogger } from './runner.js';
import { readSettings } from '../core/run.js';
import type { Settings } from '../contract/settings.js';
import { createClient } from '../core/wiring.js';

// The post step's own redactor and logger, built from the same secret inputs as the main step's
// (runner.ts): the service's text is redacted here in every form the main step's log redacts it.
const secrets = new Redactor();
const log: Logger = runnerLogger(core, secrets);

export async function run(): Promise<void> {
  try {
    const left = readLeftInFlight({ get: core.getState, save: core.saveState });
    const { deploymentId, githubDeploymentId, fleetInFlight, final } = left;
    if (left.finished) return;
    if (!deploymentId && !githubDeploymentId && fleetInFlight.length === 0) return;
    for (const secret of inputSecrets(core.getInput)) core.setSecret(secret);
    secrets.add(...inputSecrets(core.getInput));
    const settings = readSettings((name) => core.getInput(name));
    secrets.add(`${settings.authScheme} ${settings.apiKey}`.trim());
    if (githubDeploymentId) await closeGitHubDeployment(settings, githubDeploymentId);
    if (fleetInFlight.length > 0) {
      log.warning(
        `The main step ended before the rollout finished, with ${fleetInFlight.length} deployment(s) in flight: ${fleetInFlight.join(', ')}.`,
      );
      return await requestRollbacks(settings, fleetInFlight);
    }
    if (!deploymentId) return;
    log.warning(
      `The main step ended before it finished with deployment ${deploymentId}${final ? '' : ', which had not reached a final status'}.`,
    );
    if (!final) await requestRollbacks(settings, [deploymentId]);
  } catch (err) {
    log.warning(`Post step: ${errorMessage(err)}`);
  }
}

/** The GitHub Deployment the killed main step left in progress ends as an error. */
async function closeGitHubDeployment(settings: Settings, id: number): Promise<void> {
  if (!settings.environment) return;
  const deployment = new GitHubDeployment({
    token: settings.githubToken,
    environment: settings.environment,
    run: githubRun(),
    warn: log.warning,
  });
  deployment.id = id;
  await deployment.status('error', 'The step was stopped before the deployment finished');
}

/** Rollbacks of what the killed main step left in flight, when rollback-on says so; not waited for. */
async function requestRollbacks(settings: Settings, ids: string[]): Promise<void> {
  if (!settings.autoRollback || !settings.rollbackOn.includes('cancelled')) return;
  const { client } = createClient(settings, systemClock, log, 'claw-deploy (post)');
  const deadline = systemClock.now() + CANCEL_ROLLBACK_MS;
  try {
    await Promise.all(
      ids.map(async (id) => {
        const answer = await client.rollbackDeployment(id, { deadline });
        const rollback = answer && answer.id !== id ? ` (rollback ${answer.id})` : '';
        log.warning(`Requested a rollback of deployment ${id}${rollback}; not waiting for it.`);
      }),
    );
  } finally {
    client.close();
  }
}
