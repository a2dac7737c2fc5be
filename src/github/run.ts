// Where this step runs on GitHub, from the runner's environment: read when needed, not on import.
import { readFileSync } from 'node:fs';

export interface GitHubRun {
  /** `owner/repo`, or '' outside a runner. */
  repository: string;
  /** `pull_request`, `push`, …; '' outside a runner. */
  eventName: string;
  /** The pull request's number on a pull_request event (from the event payload). */
  pullRequest?: number;
  serverUrl: string;
  apiUrl: string;
  sha: string;
  runId: string;
}

export function githubRun(env: NodeJS.ProcessEnv = process.env): GitHubRun {
  return {
    repository: env.GITHUB_REPOSITORY ?? '',
    eventName: env.GITHUB_EVENT_NAME ?? '',
    pullRequest: pullRequestNumber(env.GITHUB_EVENT_PATH),
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

/** The pull request of a `pull_request` event's payload, if the event is one. */
function pullRequestNumber(eventPath: string | undefined): number | undefined {
  if (!eventPath) return undefined;
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      pull_request?: { number?: unknown };
      number?: unknown;
    };
    const number = event.pull_request?.number ?? undefined;
    return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
  } catch {
    return undefined;
  }
}
