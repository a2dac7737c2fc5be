// One connection to GitHub's API per run: the Octokit made on first use (so a run that never calls
// GitHub never loads it), and the token's identity, asked once, that decides what is ours.
import { httpClientFetch } from '../api/http.js';
import { Identity, type Octokit } from './own.js';
import type { GitHubRun } from './run.js';

export interface GitHubConnection {
  run: GitHubRun;
  octokit(): Promise<Octokit>;
  identity: Identity;
}

export function connectGitHub(token: string, run: GitHubRun): GitHubConnection {
  let octokit: Promise<Octokit> | undefined;
  const connect = (): Promise<Octokit> =>
    (octokit ??= import('@actions/github').then(
      ({ getOctokit }) =>
        getOctokit(token, { baseUrl: run.apiUrl, request: { fetch: httpClientFetch() } }) as unknown as Octokit,
    ));
  return { run, octokit: connect, identity: new Identity(connect, run.apiUrl) };
}
