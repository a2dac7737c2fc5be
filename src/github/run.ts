// Where this step runs on GitHub, from the runner's environment: read when needed, not on import.
import { readFileSync } from 'node:fs';

export interface GitHubRun {
  /** `owner/repo`, or '' outside a runner. */
  repository: string;
  /** `pull_request`, `push`, …; '' outside a runner. */
  eventName: string;
  /** The pull request's number on a pull_request event (from the event payload). */
  pullRequest?: number;
  /** The event's `action` (opened, synchronize, closed, …), when it has one. */
  eventAction: string;
  /** The pull request's head commit, or the run's commit. */
  headSha: string;
  serverUrl: string;
  apiUrl: string;
  sha: string;
  runId: string;
}

export function githubRun(env: NodeJS.ProcessEnv = process.env): GitHubRun {
  return {
    repository: env.GITHUB_REPOSITORY ?? '',
    eventName: env.GITHUB_EVENT_NAME ?? '',
    ...fromEvent(env.GITHUB_EVENT_PATH, env.GITHUB_SHA ?? ''),
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

/** What the event payload says of a pull request: its number, the action, its head commit. */
function fromEvent(
  eventPath: string | undefined,
  sha: string,
): Pick<GitHubRun, 'pullRequest' | 'eventAction' | 'headSha'> {
  const none = { pullRequest: undefined, eventAction: '', headSha: sha };
  if (!eventPath) return none;
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      action?: unknown;
      pull_request?: { number?: unknown; head?: { sha?: unknown } };
    };
    const number = event.pull_request?.number;
    const head = event.pull_request?.head?.sha;
    return {
      pullRequest: typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined,
      eventAction: typeof event.action === 'string' && /^[a-z_]{1,40}$/.test(event.action) ? event.action : '',
      headSha: typeof head === 'string' && /^[0-9a-f]{7,64}$/i.test(head) ? head : sha,
    };
  } catch {
    return none;
  }
}
