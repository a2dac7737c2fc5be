// GitHub's limits, obeyed for a whole run: every call ends by the step's deadline, and the first
// secondary rate limit (403 with its message, or 429), a spent primary limit or a call still
// unanswered at the deadline stops every GitHub call after it. One warning says why, once; the
// calls refused after it throw a quiet error (`quiet: true`: already said) that callers pass over.
// Trying again while GitHub says to wait only lengthens the wait, and every try is one more warning.
import { clip, formatDuration } from '../shared/format.js';
import type { Octokit } from './own.js';

export interface Limits {
  /** Clock time by which every call has ended (the step's timeout). */
  deadline: number;
  /** The run's cancel. */
  signal?: AbortSignal;
  warn: (message: string) => void;
  now?: () => number;
}

/** A call refused because GitHub's calls stopped for this run; the reason was said once already. */
export class GitHubStopped extends Error {
  readonly quiet = true;
}

interface RequestError {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, unknown>; data?: { message?: unknown } };
}

/** Why GitHub asks to be left alone, from a failed call; undefined for any other failure. */
export function rateLimited(err: unknown): string | undefined {
  const e = err as RequestError;
  const status = e?.status;
  const headers = e?.response?.headers ?? {};
  const said = String(e?.response?.data?.message ?? e?.message ?? '');
  const retry = Number(headers['retry-after']);
  const wait = Number.isFinite(retry) && retry >= 0 ? `; retry after ${formatDuration(retry * 1000)}` : '';
  if (status === 429 || (status === 403 && /secondary rate limit|abuse/i.test(said))) {
    const first = said.split(/\.(?:\s|$)/)[0] || 'too many requests';
    return `a secondary rate limit (${String(status)}: ${clip(first, 120)}${wait})`;
  }
  if (status === 403 && String(headers['x-ratelimit-remaining']) === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    const at = Number.isFinite(reset) && reset > 0 ? `; it resets at ${new Date(reset * 1000).toISOString()}` : '';
    return `the API rate limit is spent (403${at})`;
  }
  return undefined;
}

/** `octokit` with every call bounded by the deadline and stopped after a limit. */
export function withinLimits(octokit: Octokit, limits: Limits): Octokit {
  const now = limits.now ?? Date.now;
  let stopped: string | undefined;
  const stop = (why: string): GitHubStopped => {
    if (!stopped) {
      stopped = why;
      limits.warn(
        `GitHub: ${why}; no more GitHub calls in this run: what is left (incidents, history, the page) waits for the next run. Health is reported as usual.`,
      );
    }
    return new GitHubStopped(`GitHub's calls stopped for this run: ${stopped}`);
  };
  const guarded =
    <T>(call: (route: string, parameters: Record<string, unknown>) => Promise<T>) =>
    async (route: string, parameters: Record<string, unknown>): Promise<T> => {
      if (stopped) throw new GitHubStopped(`GitHub's calls stopped for this run: ${stopped}`);
      const left = limits.deadline - now();
      const timeout = `no answer within the step's timeout (the step's deadline came during ${route.split(' ')[0]} ${clip(route.split(' ')[1] ?? '', 80)})`;
      if (left <= 0) throw stop(timeout);
      const timer = new AbortController();
      const late = setTimeout(() => timer.abort(), left);
      const signal = limits.signal ? AbortSignal.any([limits.signal, timer.signal]) : timer.signal;
      try {
        const request = (parameters.request ?? {}) as Record<string, unknown>;
        return await call(route, { ...parameters, request: { ...request, signal } });
      } catch (err) {
        if (timer.signal.aborted) throw stop(timeout);
        const limited = rateLimited(err);
        if (limited) throw stop(limited);
        throw err;
      } finally {
        clearTimeout(late);
      }
    };
  return {
    request: guarded((route, parameters) => octokit.request(route, parameters)),
    paginate: guarded((route, parameters) => octokit.paginate(route, parameters)),
  };
}
