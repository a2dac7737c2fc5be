// The post step (`post-if: always()`): when the main step was killed before it could act on a
// cancel, do what it would have done. It only warns; it never fails the job. The same bundle
// runs both steps (index.ts tells them apart); importing this module runs nothing.
import * as core from '@actions/core';
import { systemClock } from './clock.js';
import { CANCEL_ROLLBACK_MS } from './deploy/deploy.js';
import { errorMessage } from './errors.js';
import { log } from './main.js';
import { GitHubDeployment } from './github/deployments.js';
import { githubRun } from './github/run.js';
import { isValidId } from './identifiers.js';
import { type Settings, readSettings } from './settings.js';
import { STATE } from './state.js';
import { createClient } from './wiring.js';

export async function run(): Promise<void> {
  try {
    const deploymentId = core.getState(STATE.deploymentId);
    const githubDeploymentId = Number(core.getState(STATE.githubDeploymentId));
    const fleetInFlight = savedIds(core.getState(STATE.fleetInFlight));
    if (core.getState(STATE.finished) === 'true') return;
    if (!deploymentId && !githubDeploymentId && fleetInFlight.length === 0) return;
    const rawKey = core.getInput('api-key');
    if (rawKey.trim()) core.setSecret(rawKey.trim());
    const githubToken = core.getInput('github-token');
    if (githubToken.trim()) core.setSecret(githubToken.trim());
    const final = core.getState(STATE.final) === 'true';
    const settings = readSettings((name) => core.getInput(name));
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

/** The ids a fleet saved: a JSON array of usable ids, or nothing. */
function savedIds(text: string): string[] {
  try {
    const ids = JSON.parse(text || '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string' && isValidId(id)) : [];
  } catch {
    return [];
  }
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
