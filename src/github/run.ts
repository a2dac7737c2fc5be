// Where this step runs on GitHub, from the runner's environment: read when needed, not on import.

export interface GitHubRun {
  /** `owner/repo`, or '' outside a runner. */
  repository: string;
  serverUrl: string;
  apiUrl: string;
  sha: string;
  runId: string;
}

export function githubRun(env: NodeJS.ProcessEnv = process.env): GitHubRun {
  return {
    repository: env.GITHUB_REPOSITORY ?? '',
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    sha: env.GITHUB_SHA ?? '',
    runId: env.GITHUB_RUN_ID ?? '',
  };
}

/** The workflow run's page, when the environment names one. */
export function runUrl(run: GitHubRun): string | undefined {
  return run.repository && run.runId ? `${run.serverUrl}/${run.repository}/actions/runs/${run.runId}` : undefined;
}

/** A commit's page. */
export function commitUrl(run: GitHubRun): string | undefined {
  return run.repository && run.sha ? `${run.serverUrl}/${run.repository}/commit/${run.sha}` : undefined;
}
