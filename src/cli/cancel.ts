// What Ctrl-C (or SIGTERM, SIGHUP) is told on the command line: what happens next, for the command
// that runs. A rollback is named only where one happens (never under check or health), and a
// deployment left going on the service comes with the commands that follow it or undo it.
import type { Settings } from '../settings.js';

/** Commands that start something on the service which goes on when the run stops. */
const DEPLOYING = new Set(['deploy', 'wait', 'apply']);

export function cancelNotice(signal: string, settings: Settings, deployments: readonly string[]): string {
  const { command } = settings;
  if (command === 'rollback') {
    return `Received ${signal}: stopping. The rollback goes on on the service; claw-deploy wait --deployment-id <id> follows it.`;
  }
  if (!DEPLOYING.has(command)) return `Received ${signal}: stopping the ${command}; what is known so far is reported.`;
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
