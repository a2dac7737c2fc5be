// deploy's part on GitHub around its run (the action only, with `environment`): a GitHub Deployment
// started at the trigger (a fleet's before its first wave) and closed with the run's outcome, so the
// repository's environments page and pull requests show what is live. The definition declares it
// (`action.around`); main.ts runs it as it runs any definition's part, without naming it, and gives
// it GitHub's Deployments (github/deployments.ts) through the plain interface declared here.
import type { DeploymentState } from '../shared/workflow-run.js';

/** One GitHub Deployment in an environment, as the action makes it: quiet after its first failure. */
export interface GitHubDeploymentHost {
  id?: number;
  create(payload: object, description: string): Promise<number | undefined>;
  status(state: DeploymentState, description: string, environmentUrl?: string): Promise<void>;
}

/** The status a deployment's GitHub Deployment ends with. */
export interface GitHubDeploymentStatus {
  state: DeploymentState;
  description: string;
  url?: string;
}

/** The deploy's GitHub Deployment around its run, or undefined without `environment`. */
export function githubDeploymentOf(
  settings: { environment: string; fleet: boolean; targets: { all: boolean; ids: string[] }; clawId: string },
  side: {
    githubDeployment: (environment: string) => GitHubDeploymentHost;
    keepGitHubDeployment: (id: number) => void;
  },
):
  | {
      start(): void;
      progress(progress: { deploymentId: string }): void;
      end(end: { result: { github?: GitHubDeploymentStatus } } | { failure: string }): Promise<Record<string, string>>;
    }
  | undefined {
  if (!settings.environment) return undefined;
  const deployment = side.githubDeployment(settings.environment);
  let started: Promise<void> | undefined;
  const start = (claws: string[], deploymentIds: string[]): void => {
    started ??= (async () => {
      const id = await deployment.create({ claws, deploymentIds }, `Deploying ${claws.join(', ')}`);
      if (id === undefined) return;
      side.keepGitHubDeployment(id);
      const what = deploymentIds.length ? ` (deployment ${deploymentIds.join(', ')})` : '';
      await deployment.status('in_progress', `Deploying ${claws.join(', ')}${what}`);
    })();
  };
  return {
    start: () => {
      if (settings.fleet) start(settings.targets.all ? ['*'] : settings.targets.ids, []);
    },
    progress: ({ deploymentId }) => start([settings.clawId], [deploymentId]),
    /** The final status, when there is one (a failure is an error: left in progress it would say so forever). */
    async end(end) {
      await started;
      const final = 'failure' in end ? { state: 'error' as const, description: end.failure } : end.result.github;
      if (final) await deployment.status(final.state, final.description, final.url);
      return { 'github-deployment-id': deployment.id === undefined ? '' : String(deployment.id) };
    },
  };
}
