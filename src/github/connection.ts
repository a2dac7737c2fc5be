// One connection to GitHub's API per run: the Octokit made on first use (so a run that never calls
// GitHub never loads it), and the token's identity, asked once, that decides what is ours. With
// `limits`, every call ends by the step's deadline and a rate limit stops them all (./limits.ts).
import { httpClientFetch } from '../api/http.js';
import { type Limits, withinLimits } from './limits.js';
import { Identity, type Octokit } from './own.js';
import type { GitHubRun } from '../shared/workflow-run.js';

export interface GitHubConnection {
  run: GitHubRun;
  octokit(): Promise<Octokit>;
  identity: Identity;
}

export function connectGitHub(token: string, run: GitHubRun, limits?: Limits): GitHubConnection {
  let octokit: Promise<Octokit> | undefined;
  const connect = (): Promise<Octokit> =>
    (octokit ??= import('@actions/github').then(({ getOctokit }) => {
      const made = getOctokit(token, {
        baseUrl: run.apiUrl,
        request: { fetch: httpClientFetch() },
      }) as unknown as Octokit;
      return limits ? withinLimits(made, limits) : made;
    }));
  return { run, octokit: connect, identity: new Identity(connect, run.apiUrl) };
}
