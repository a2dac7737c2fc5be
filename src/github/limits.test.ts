// GitHub's limits for a run: a rate limit or the deadline stops every later call, said once.
import { describe, expect, it } from 'vitest';
import { GitHubStopped, rateLimited, withinLimits } from './limits.js';
import type { Octokit } from './own.js';

const secondary = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error('You have exceeded a secondary rate limit. Please wait a few minutes.'), {
    status,
    response: { headers, data: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' } },
  });

function fake(answer: (route: string) => Promise<unknown>): Octokit & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    request: async (route) => ({ data: await answer((calls.push(route), route)) }),
    paginate: async (route) => [await answer((calls.push(route), route))],
  };
}

describe('GitHub limits', () => {
  it.each([
    [secondary(403), 'a secondary rate limit (403: You have exceeded a secondary rate limit)'],
    [
      secondary(429, { 'retry-after': '30' }),
      'a secondary rate limit (429: You have exceeded a secondary rate limit; retry after 30s)',
    ],
    [
      Object.assign(new Error('API rate limit exceeded'), {
        status: 403,
        response: { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000000' } },
      }),
      'the API rate limit is spent (403; it resets at 2027-01-15T08:00:00.000Z)',
    ],
    [Object.assign(new Error('Resource not accessible by integration'), { status: 403 }), undefined],
    [Object.assign(new Error('Server Error'), { status: 500 }), undefined],
  ])('reads %s', (err, expected) => {
    expect(rateLimited(err)).toBe(expected);
  });

  it('the first rate limit stops every later call, with one warning; other failures pass through', async () => {
    const warnings: string[] = [];
    let n = 0;
    const octokit = fake(async () => {
      n++;
      if (n === 1) throw Object.assign(new Error('Server Error'), { status: 500 });
      if (n === 3) throw secondary(403);
      return {};
    });
    const limited = withinLimits(octokit, { deadline: Date.now() + 60_000, warn: (m) => warnings.push(m) });
    await expect(limited.request('GET /a', {})).rejects.toMatchObject({ status: 500 });
    await limited.request('GET /b', {});
    await expect(limited.request('POST /c', {})).rejects.toBeInstanceOf(GitHubStopped);
    await expect(limited.request('POST /d', {})).rejects.toMatchObject({ quiet: true });
    await expect(limited.paginate('GET /e', {})).rejects.toBeInstanceOf(GitHubStopped);
    expect(octokit.calls).toEqual(['GET /a', 'GET /b', 'POST /c']);
    expect(warnings).toEqual([
      expect.stringMatching(/^GitHub: a secondary rate limit \(403: .*\); no more GitHub calls/),
    ]);
  });

  it('a call still unanswered at the deadline is given up (its signal aborted), and none is made after it', async () => {
    const warnings: string[] = [];
    let now = 1_000;
    let signal: AbortSignal | undefined;
    const octokit: Octokit = {
      request: (_route, parameters) =>
        new Promise((_, reject) => {
          signal = (parameters.request as { signal: AbortSignal }).signal;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
      paginate: async () => [],
    };
    const limited = withinLimits(octokit, { deadline: 1_020, now: () => now, warn: (m) => warnings.push(m) });
    await expect(limited.request('GET /slow', {})).rejects.toBeInstanceOf(GitHubStopped);
    expect(signal?.aborted).toBe(true);
    now = 2_000;
    await expect(limited.request('GET /next', {})).rejects.toBeInstanceOf(GitHubStopped);
    expect(warnings).toEqual([expect.stringMatching(/^GitHub: no answer within the step's timeout/)]);
  });
});
