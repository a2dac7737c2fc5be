/** Names of the state the main step saves for the post step (`core.saveState`). */
export const STATE = {
  /** Set first thing by the main step: the same bundle then runs as the post step. */
  isPost: 'isPost',
  deploymentId: 'deployment-id',
  final: 'final',
  finished: 'finished',
  /** A fleet's deployments not yet final (a JSON array), for the post step to roll back. */
  fleetInFlight: 'fleet-in-flight',
  /** The GitHub Deployment mirroring this step, for the post step to close if main was killed. */
  githubDeploymentId: 'github-deployment-id',
} as const;
