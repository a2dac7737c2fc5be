// Mirrors the step into GitHub's Deployments (opt-in with `environment`), so the repository's
// environments page and pull requests show what is live. Called from main.ts and post.ts only.
// A failure here is one warning naming its cause; it never changes the Claw's outcome.
import { clip } from '../shared/format.js';
import { httpUrl } from '../shared/identifiers.js';
import { httpClientFetch } from '../api/http.js';
import { type DeploymentState, type GitHubRun, runUrl } from '../shared/workflow-run.js';

export interface MirrorOptions {
  token: string;
  environment: string;
  run: GitHubRun;
  /** Says one line when GitHub refuses or cannot be reached. */
  warn: (message: string) => void;
  /** A preview's environment, which GitHub may tear down: not production. */
  transient?: boolean;
  /** The commit deployed; the run's by default (a preview deploys the pull request's head). */
  ref?: string;
}

/** GitHub keeps deployment descriptions under 140 characters. */
const MAX_DESCRIPTION = 139;

interface Octokit {
  request(route: string, parameters: Record<string, unknown>): Promise<{ data: unknown }>;
}

/** One GitHub deployment for the step. After the first failure it stays quiet. */
export class GitHubDeployment {
  id?: number;
  private failed = false;
  private octokit?: Promise<Octokit>;

  constructor(private readonly options: MirrorOptions) {}

  /** Creates the deployment for the commit; the payload names the Claws and the service's ids. */
  async create(payload: object, description: string): Promise<number | undefined> {
    const { environment, run, transient = false } = this.options;
    const [owner, repo] = run.repository.split('/');
    const data = await this.call('POST /repos/{owner}/{repo}/deployments', {
      owner,
      repo,
      ref: this.options.ref || run.sha,
      environment,
      auto_merge: false,
      required_contexts: [],
      description: clip(description, MAX_DESCRIPTION - 20),
      payload,
      transient_environment: transient,
      ...(transient ? { production_environment: false } : {}),
    });
    const id = (data as { id?: unknown } | undefined)?.id;
    if (typeof id === 'number') this.id = id;
    return this.id;
  }

  /** Adds a status; `environmentUrl` only when it is an http(s) URL. */
  async status(state: DeploymentState, description: string, environmentUrl?: string): Promise<void> {
    if (this.id === undefined) return;
    const [owner, repo] = this.options.run.repository.split('/');
    const url = httpUrl(environmentUrl);
    await this.call('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
      owner,
      repo,
      deployment_id: this.id,
      state,
      description: clip(description, MAX_DESCRIPTION - 20),
      log_url: runUrl(this.options.run),
      auto_inactive: state === 'success',
      ...(url ? { environment_url: url } : {}),
    });
  }

  private async call(route: string, parameters: Record<string, unknown>): Promise<unknown> {
    if (this.failed) return undefined;
    try {
      this.octokit ??= this.connect();
      const response = await (await this.octokit).request(route, parameters);
      return response.data;
    } catch (err) {
      this.failed = true;
      this.options.warn(explain(err, this.options.environment));
      return undefined;
    }
  }

  /** Loads the client only when mirroring is on: nothing is read on import that a run does not use. */
  private async connect(): Promise<Octokit> {
    const { getOctokit } = await import('@actions/github');
    return getOctokit(this.options.token, {
      baseUrl: this.options.run.apiUrl,
      request: { fetch: httpClientFetch() },
    }) as unknown as Octokit;
  }
}

/** One line for the log: what GitHub said, and what to do about it. */
function explain(err: unknown, environment: string): string {
  const status = (err as { status?: unknown }).status;
  const what = `GitHub Deployments for environment '${environment}'`;
  if (status === 403) {
    return `${what}: 403 forbidden. Give the workflow 'permissions: deployments: write' (or pass a 'github-token' that has it). The Claw's deployment is not affected.`;
  }
  if (status === 404) {
    return `${what}: 404 not found. Check that the repository and commit exist and that 'github-token' can see them. The Claw's deployment is not affected.`;
  }
  if (status === 401) return `${what}: 401: 'github-token' was refused. The Claw's deployment is not affected.`;
  const message = err instanceof Error ? err.message : String(err);
  return `${what} could not be updated (${typeof status === 'number' ? `${status}: ` : ''}${clip(message, 200)}). The Claw's deployment is not affected.`;
}
