// The preview command's code host on GitHub: pull requests read, the sticky comment found and
// written, transient Deployments. Called through the PreviewHost interface only (main.ts builds
// it). Reads throw, so the command never mistakes a failed read for a closed or open pull request;
// a refused write is one warning naming the permission. Deployments are GitHubDeployment's, transient.
import { NoSuchPullRequest, type PreviewHost, type PullRequestInfo } from '../preview/host.js';
import { upsertComment, warnOthers } from './comment.js';
import type { GitHubConnection } from './connection.js';
import { GitHubDeployment } from './deployments.js';
import { findOwnComment } from './own.js';

export function githubPreviewHost(
  token: string,
  github: GitHubConnection,
  warnEach: (message: string) => void,
): PreviewHost {
  const { run } = github;
  // The same foreign comment is met on every read and write of a run: said once.
  const said = new Set<string>();
  const warn = (message: string): void => {
    if (!said.has(message)) warnEach(message);
    said.add(message);
  };
  const [owner, repo] = run.repository.split('/');
  const mirror = { token, run, warn };
  const connect = github.octokit;
  return {
    async pullRequest(number): Promise<PullRequestInfo> {
      let data: unknown;
      try {
        ({ data } = await (
          await connect()
        ).request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          owner,
          repo,
          pull_number: number,
        }));
      } catch (err) {
        if ((err as { status?: unknown }).status === 404) {
          throw new NoSuchPullRequest(`${run.repository} has no pull request #${number}`);
        }
        throw err;
      }
      const pr = data as { state?: unknown; merged?: unknown; updated_at?: unknown; head?: { sha?: unknown } };
      const updatedAt = typeof pr.updated_at === 'string' ? Date.parse(pr.updated_at) : NaN;
      if ((pr.state !== 'open' && pr.state !== 'closed') || Number.isNaN(updatedAt)) {
        throw new Error(`pull request #${number} came back without a state or an update time`);
      }
      return {
        number,
        state: pr.state,
        merged: pr.merged === true,
        updatedAt,
        headSha: typeof pr.head?.sha === 'string' ? pr.head.sha : '',
      };
    },
    async readComment(number, marker) {
      const found = await findOwnComment(await connect(), github.identity, run.repository, number, marker);
      warnOthers(found, 'the previews', warn);
      return found.own?.body;
    },
    async writeComment(number, marker, body) {
      const done = await upsertComment({ github, pullRequest: number, marker, body, warn, what: 'the previews' });
      return done !== undefined;
    },
    async createDeployment(environment, description, payload) {
      const deployment = new GitHubDeployment({ ...mirror, environment, transient: true, ref: run.headSha || run.sha });
      return deployment.create(payload, description);
    },
    async deploymentStatus(id, state, description, url) {
      const deployment = new GitHubDeployment({ ...mirror, environment: 'of a preview', transient: true });
      deployment.id = id;
      await deployment.status(state, description, url);
    },
  };
}
