// A sticky comment on a pull request (the plan, the previews), found again by a hidden marker and
// updated, never duplicated; only a comment this action's identity wrote is ever edited (own.ts).
// Every page of the comments is read. A failure here is one warning naming its cause, never the
// step's failure.
import { clip } from '../shared/format.js';
import type { GitHubConnection } from './connection.js';
import { type Found, findOwnComment } from './own.js';

export interface StickyComment {
  github: GitHubConnection;
  pullRequest: number;
  /** Finds this comment among the others: it names the manifest, so two manifests keep two comments. */
  marker: string;
  body: string;
  warn: (message: string) => void;
  /** What the comment holds, for the warning when GitHub refuses it: 'the plan' by default. */
  what?: string;
}

/** Says, once, which comments carried our marker but were not written by us (and are left alone). */
export function warnOthers(found: Found, what: string, warn: (message: string) => void): void {
  if (found.others.length === 0) return;
  warn(
    `Ignored ${found.others.length} comment(s) holding the marker of ${what} not written by this action's identity (never read for state, never edited): ${found.others.join(', ')}.`,
  );
}

/** Creates or updates our comment; says which, or undefined when GitHub refused. */
export async function upsertComment(options: StickyComment): Promise<'created' | 'updated' | undefined> {
  const { run, identity } = options.github;
  const [owner, repo] = run.repository.split('/');
  const where = { owner, repo };
  const what = options.what ?? 'the plan';
  try {
    const octokit = await options.github.octokit();
    const found = await findOwnComment(octokit, identity, run.repository, options.pullRequest, options.marker);
    warnOthers(found, what, options.warn);
    if (found.own) {
      await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        ...where,
        comment_id: found.own.id,
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
    options.warn(explain(err, options.pullRequest, what));
    return undefined;
  }
}

function explain(err: unknown, pullRequest: number, subject: string): string {
  const status = (err as { status?: unknown }).status;
  const what = `Commenting ${subject} on pull request #${pullRequest}`;
  if (status === 403) {
    return `${what}: 403 forbidden. Give the workflow 'permissions: pull-requests: write' (a pull request from a fork gets a read-only token: see the job summary for ${subject}).`;
  }
  if (status === 401) return `${what}: 401: 'github-token' was refused.`;
  const message = err instanceof Error ? err.message : String(err);
  return `${what} failed (${typeof status === 'number' ? `${status}: ` : ''}${clip(message, 200)}). See the job summary for ${subject}.`;
}
