// The post step (`post-if: always()`): when the main step was killed before it could act on a
// cancel, do what it would have done. It only warns; it never fails the job.
import * as core from '@actions/core';
import { systemClock } from './clock.js';
import { CANCEL_ROLLBACK_MS } from './deploy/deploy.js';
import { errorMessage } from './errors.js';
import { log } from './main.js';
import { readSettings } from './settings.js';
import { STATE } from './state.js';
import { createClient } from './wiring.js';

export async function runPost(): Promise<void> {
  try {
    const deploymentId = core.getState(STATE.deploymentId);
    if (core.getState(STATE.finished) === 'true' || !deploymentId) return;
    const rawKey = core.getInput('api-key');
    if (rawKey.trim()) core.setSecret(rawKey.trim());
    const final = core.getState(STATE.final) === 'true';
    log.warning(
      `The main step ended before it finished with deployment ${deploymentId}${final ? '' : ', which had not reached a final status'}.`,
    );
    const settings = readSettings((name) => core.getInput(name));
    if (final || !settings.autoRollback || !settings.rollbackOn.includes('cancelled')) return;
    const { client } = createClient(settings, systemClock, log, 'claw-deploy (post)');
    const answer = await client.rollbackDeployment(deploymentId, { deadline: systemClock.now() + CANCEL_ROLLBACK_MS });
    client.close();
    log.warning(
      `Requested a rollback of deployment ${deploymentId}${answer && answer.id !== deploymentId ? ` (rollback ${answer.id})` : ''}; not waiting for it.`,
    );
  } catch (err) {
    log.warning(`Post step: ${errorMessage(err)}`);
  }
}

void runPost();
