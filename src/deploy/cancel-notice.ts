// What Ctrl-C (or SIGTERM, SIGHUP) on the command line means for a command that starts something
// on the service which goes on when the run stops: a deployment (deploy, wait, apply) or a
// rollback. Each such command's definition names its notice; every other command stops and
// reports what is known (the command line's own words). A rollback is named only where one happens.
import type { RollbackTrigger } from '../shared/status.js';

/** deploy, wait, apply: the deployment goes on; what follows it or undoes it, or the rollback that happens. */
export function deployingCancel(
  signal: string,
  settings: { autoRollback: boolean; rollbackOn: readonly RollbackTrigger[] },
  deployments: readonly string[],
): string {
  const ids = deployments.length ? deployments.join(', ') : undefined;
  const rollsBack = settings.autoRollback && settings.rollbackOn.includes('cancelled');
  if (rollsBack) {
    return `Received ${signal}: stopping, and rolling back ${ids ? `deployment ${ids}` : 'the deployment, once triggered'} (--rollback-on holds cancelled).`;
  }
  if (!ids) {
    return `Received ${signal}: stopping. A deployment triggered meanwhile goes on on the service; claw-deploy rollback --claw-id <claw> undoes it.`;
  }
  const one = deployments.length === 1 ? deployments[0] : '<id>';
  return `Received ${signal}: stopping. Deployment ${ids} goes on on the service (no rollback: --auto-rollback with --rollback-on cancelled would roll it back). Follow it: claw-deploy wait --deployment-id ${one}; undo it: claw-deploy rollback --deployment-id ${one}.`;
}

/** rollback: the rollback goes on on the service. */
export function rollbackCancel(signal: string): string {
  return `Received ${signal}: stopping. The rollback goes on on the service; claw-deploy wait --deployment-id <id> follows it.`;
}
