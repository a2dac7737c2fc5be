// The preview command's code host on GitHub: pull requests read, the sticky comment found and
// written, transient Deployments. Called through the PreviewHost interface only (main.ts builds
// it). Reads throw, so the command never mistakes a failed read for a closed or open pull request;
// a refused write is one warning naming the permission.
import type { PreviewHost, PullRequestInfo } from '../preview/host.js';
import { findComment, upsertComment } from './comment.js';
import { httpUrl } from '../identifiers.js';
import { type GitHubRun, runUrl } from './run.js';

interface Octokit {
  request(route: string, parameters: Record<string, unknown>): Promise<{ data: unknown }>;
  paginate(route: string, parameters: Record<string, unknown>): Promise<unknown[]>;
}

export function githubPreviewHost(token: string, run: GitHubRun, warn: (message: string) => void): PreviewHost {
  const [owner, repo] = run.repository.split('/');
  let octokit: Promise<Octokit> | undefined;
  const connect = (): Promise<Octokit> =>
    (octokit ??= import('@actions/github').then(
      ({ getOctokit }) => getOctokit(token, { baseUrl: run.apiUrl }) as unknown as Octokit,
    ));
  const quietly = async (what: string, call: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await call();
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      warn(
        status === 403
          ? `${what}: 403 forbidden. Give the workflow 'permissions: deployments: write' (only with environment).`
          : `${what} failed (${typeof status === 'number' ? status : err instanceof Error ? err.message.slice(0, 200) : 'unknown'}).`,
      );
      return undefined;
    }
  };
  return {
    async pullRequest(number): Promise<PullRequestInfo> {
      const { data } = await (
        await connect()
      ).request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner,
        repo,
        pull_number: number,
      });
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
      return (await findComment(await connect(), run, number, marker))?.body;
    },
    async writeComment(number, marker, body) {
      const done = await upsertComment({ token, run, pullRequest: number, marker, body, warn, what: 'the previews' });
      return done !== undefined;
    },
    async createDeployment(environment, description, payload) {
      const data = await quietly(
        'Creating the preview GitHub Deployment',
        async () =>
          (
            await (
              await connect()
            ).request('POST /repos/{owner}/{repo}/deployments', {
              owner,
              repo,
              ref: run.headSha || run.sha,
              environment,
              auto_merge: false,
              required_contexts: [],
              description: description.slice(0, 119),
              payload,
              transient_environment: true,
              production_environment: false,
            })
          ).data,
      );
      const id = (data as { id?: unknown } | undefined)?.id;
      return typeof id === 'number' ? id : undefined;
    },
    async deploymentStatus(id, state, description, url) {
      const environmentUrl = httpUrl(url);
      await quietly(`The status of GitHub Deployment ${id}`, async () =>
        (await connect()).request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
          owner,
          repo,
          deployment_id: id,
          state,
          description: description.slice(0, 119),
          log_url: runUrl(run),
          ...(environmentUrl ? { environment_url: environmentUrl } : {}),
        }),
      );
    },
  };
}
