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
  /**
   * When the checked-out files may be a fork's (the event as the refusal names it, such as
   * "workflow_run from a fork"); undefined when they are the repository's own.
   */
  forkEvent?: string;
  serverUrl: string;
  apiUrl: string;
  sha: string;
  runId: string;
}

export function githubRun(env: NodeJS.ProcessEnv = process.env): GitHubRun {
  return {
    repository: env.GITHUB_REPOSITORY ?? '',
    eventName: env.GITHUB_EVENT_NAME ?? '',
    ...fromEvent(env.GITHUB_EVENT_PATH, env.GITHUB_SHA ?? '', env.GITHUB_EVENT_NAME ?? ''),
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

interface EventPayload {
  action?: unknown;
  repository?: { id?: unknown };
  pull_request?: { number?: unknown; head?: { sha?: unknown; repo?: { id?: unknown } | null } };
  workflow_run?: { head_repository?: { id?: unknown } | null };
  issue?: { pull_request?: unknown };
}

/** What the event payload says of a pull request: its number, the action, its head commit, a fork. */
function fromEvent(
  eventPath: string | undefined,
  sha: string,
  eventName: string,
): Pick<GitHubRun, 'pullRequest' | 'eventAction' | 'headSha' | 'forkEvent'> {
  const none = { pullRequest: undefined, eventAction: '', headSha: sha, forkEvent: forkEventOf(eventName, {}) };
  if (!eventPath) return none;
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as EventPayload;
    const number = event.pull_request?.number;
    const head = event.pull_request?.head?.sha;
    return {
      pullRequest: typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined,
      eventAction: typeof event.action === 'string' && /^[a-z_]{1,40}$/.test(event.action) ? event.action : '',
      headSha: typeof head === 'string' && /^[0-9a-f]{7,64}$/i.test(head) ? head : sha,
      forkEvent: forkEventOf(eventName, event),
    };
  } catch {
    return none;
  }
}

/**
 * Whether the event may have checked out a fork's files, told as actions/checkout tells it
 * (src/unsafe-pr-checkout-helper.ts): the payload's `repository.id` against the head repository's.
 * pull_request_target always (its workflow has the base's secrets and may check out the head); a
 * workflow_run or a pull_request whose head is another repository; an issue_comment on a pull
 * request, whose payload has no head at all but whose workflow may check it out.
 */
export function forkEventOf(eventName: string, event: EventPayload): string | undefined {
  const base = event.repository?.id;
  // A payload without the base's id cannot tell (actions/checkout lets it pass too); a head repository
  // that is gone (a deleted fork: null) is not this one.
  const other = (head: unknown): boolean => typeof base === 'number' && head !== base;
  switch (eventName) {
    case 'pull_request_target':
      return 'pull_request_target';
    case 'workflow_run':
      return other(event.workflow_run?.head_repository?.id) ? 'workflow_run from a fork' : undefined;
    case 'pull_request':
    case 'pull_request_review':
    case 'pull_request_review_comment':
      return other(event.pull_request?.head?.repo?.id) ? `${eventName} from a fork` : undefined;
    case 'issue_comment':
      return event.issue?.pull_request ? 'issue_comment on a pull request' : undefined;
    default:
      return undefined;
  }
}
