// The plan as one comment on the pull request, found again by a hidden marker and updated, never
// duplicated. Every page of the comments is read. Called from main.ts only; a failure here is one
// warning naming its cause, never the step's failure.
import { clip } from '../format.js';
import type { GitHubRun } from './run.js';

/** The little of Octokit the comment calls use. */
export interface Octokit {
  request(route: string, parameters: Record<string, unknown>): Promise<{ data: unknown }>;
  paginate(route: string, parameters: Record<string, unknown>): Promise<unknown[]>;
}

export interface StickyComment {
  token: string;
  run: GitHubRun;
  pullRequest: number;
  /** Finds this comment among the others: it names the manifest, so two manifests keep two comments. */
  marker: string;
  body: string;
  warn: (message: string) => void;
  /** What the comment holds, for the warning when GitHub refuses it: 'the plan' by default. */
  what?: string;
}

/** The comment holding `marker` among every page of a pull request's comments. */
export async function findComment(
  octokit: Octokit,
  run: GitHubRun,
  pullRequest: number,
  marker: string,
): Promise<{ id: number; body: string } | undefined> {
  const [owner, repo] = run.repository.split('/');
  const comments = (await octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner,
    repo,
    issue_number: pullRequest,
    per_page: 100,
  })) as { id: number; body?: string }[];
  const found = comments.find((c) => typeof c.body === 'string' && c.body.includes(marker));
  return found && { id: found.id, body: found.body as string };
}

/** Creates or updates the comment; says which, or undefined when GitHub refused. */
export async function upsertComment(options: StickyComment): Promise<'created' | 'updated' | undefined> {
  const [owner, repo] = options.run.repository.split('/');
  const where = { owner, repo };
  try {
    const { getOctokit } = await import('@actions/github');
    const octokit = getOctokit(options.token, { baseUrl: options.run.apiUrl }) as unknown as Octokit;
    const existing = await findComment(octokit, options.run, options.pullRequest, options.marker);
    if (existing) {
      await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        ...where,
        comment_id: existing.id,
        body: options.body,
      });
      return 'updated';
    }
    await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...where,
      issue_number: options.pullRequest,
      body: options.body,
    });
    return 'created';
  } catch (err) {
    options.warn(explain(err, options.pullRequest, options.what ?? 'the plan'));
    return undefined;
  }
}

function explain(err: unknown, pullRequest: number, subject: string): string {
  const status = (err as { status?: unknown }).status;
  const what = `Commenting ${subject} on pull request #${pullRequest}`;
  if (status === 403) {
    return `${what}: 403 forbidden. Give the workflow 'permissions: pull-requests: write' (a pull request from a fork gets a read-only token: ${subject} is in the job summary).`;
  }
  if (status === 401) return `${what}: 401: 'github-token' was refused.`;
  const message = err instanceof Error ? err.message : String(err);
  return `${what} failed (${typeof status === 'number' ? `${status}: ` : ''}${clip(message, 200)}). ${capitalize(subject)} is in the job summary.`;
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
