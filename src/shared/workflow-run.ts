// Where this step runs on GitHub, from the runner's environment: read when needed, not on import.
import { readFileSync } from 'node:fs';

/** The states of a GitHub Deployment the step mirrors (with `environment`). */
export type DeploymentState = 'in_progress' | 'success' | 'failure' | 'error' | 'inactive';

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
  /** Who started the run (GITHUB_ACTOR), when the runner says. */
  actor?: string;
  /**
   * When the change this run deploys began, for lead time: the earliest commit time of a push
   * (the payload's `commits[]`), or a merged pull request's `merged_at`.
   */
  firstCommitAt?: number;
  mergedAt?: number;
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
    actor: env.GITHUB_ACTOR ?? '',
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
  pull_request?: {
    number?: unknown;
    merged_at?: unknown;
    head?: { sha?: unknown; repo?: { id?: unknown } | null };
  };
  commits?: unknown;
  workflow_run?: { head_repository?: { id?: unknown } | null };
  issue?: { pull_request?: unknown };
}

/** What the event payload says of a pull request: its number, the action, its head commit, a fork. */
function fromEvent(
  eventPath: string | undefined,
  sha: string,
  eventName: string,
): Pick<GitHubRun, 'pullRequest' | 'eventAction' | 'headSha' | 'forkEvent' | 'firstCommitAt' | 'mergedAt'> {
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
      ...changeTimes(event),
    };
  } catch {
    return none;
  }
}

/** GitHub sends at most this many commits in a push's payload; more is not a payload GitHub wrote. */
const MAX_PAYLOAD_COMMITS = 2048;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const timeOf = (v: unknown): number | undefined => {
  if (typeof v !== 'string' || !ISO_TIME.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
};

/** When the change began: the push's earliest commit, or the pull request's merge (for lead time). */
function changeTimes(event: EventPayload): Pick<GitHubRun, 'firstCommitAt' | 'mergedAt'> {
  const out: Pick<GitHubRun, 'firstCommitAt' | 'mergedAt'> = {};
  if (Array.isArray(event.commits)) {
    let first: number | undefined;
    for (const c of event.commits.slice(0, MAX_PAYLOAD_COMMITS)) {
      const t = typeof c === 'object' && c !== null ? timeOf((c as { timestamp?: unknown }).timestamp) : undefined;
      if (t !== undefined && (first === undefined || t < first)) first = t;
    }
    if (first !== undefined) out.firstCommitAt = first;
  }
  const merged = timeOf(event.pull_request?.merged_at);
  if (merged !== undefined) out.mergedAt = merged;
  return out;
}

/**
 * Events whose checkout is the repository's own commit, whatever the payload says: each needs
 * write access to the repository to start (SECURITY.md gives each one's reason). Every other event,
 * known or not, may carry a fork's commit, unless the payload shows otherwise below.
 */
const OWN_COMMIT_EVENTS = new Set([
  'push',
  'schedule',
  'workflow_dispatch',
  'release',
  'merge_group',
  'create',
  'delete',
]);
/** Events whose checkout is a pull request's head: the repository's own when the head repository is this one. */
const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_review', 'pull_request_review_comment']);

/**
 * When the checked-out files may be a fork's: the event as a refusal names it, or undefined when
 * it is known to carry the repository's own commit. An allow-list: an event not named here (check_suite,
 * status, repository_dispatch, one GitHub adds tomorrow) is a fork's. A pull request's or a
 * workflow_run's head is this repository's only when the payload says so by id, as actions/checkout
 * tells it (src/unsafe-pr-checkout-helper.ts); a payload that names no id, or a deleted fork (null),
 * does not. pull_request_target always (its workflow has the base's secrets and may check out the head).
 */
export function forkEventOf(eventName: string, event: EventPayload): string | undefined {
  if (OWN_COMMIT_EVENTS.has(eventName)) return undefined;
  const base = event.repository?.id;
  const ours = (head: unknown): boolean => typeof base === 'number' && head === base;
  if (PULL_REQUEST_EVENTS.has(eventName))
    return ours(event.pull_request?.head?.repo?.id) ? undefined : `${eventName} from a fork`;
  if (eventName === 'workflow_run')
    return ours(event.workflow_run?.head_repository?.id) ? undefined : 'workflow_run from a fork';
  if (eventName === 'issue_comment' && event.issue?.pull_request) return 'issue_comment on a pull request';
  // The runner's name for it, shown in the refusal; anything else is not a name an event has.
  return /^[a-z_]{1,64}$/.test(eventName) ? eventName : 'an event the runner did not name';
}

/**
 * The event under which the command line's files may be a fork's: inside GitHub Actions (the
 * runner's own event file), the same rule as the action's; elsewhere none (the user's own files).
 * Inside Actions with no event file the payload is empty: only an event that needs none is trusted.
 */
export function forkEventOfShell(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  return githubRun(env).forkEvent;
}
