// Health's code host on GitHub: the history branch through the git data API (the branch's listing
// in one call, one commit of every changed file in three, whatever the number of files) and the
// incident issues. Called through the HealthHost interface only (main.ts builds it). Reads and
// writes throw; the command turns a failure into one warning.
import { createHash } from 'node:crypto';
import type { BranchFile, FileChange, HealthHost, HistoryBranch, IncidentIssue, IssueHost } from '../health/host.js';
import type { GitHubConnection } from './connection.js';
import type { Authored } from './own.js';
import { runUrl } from '../shared/workflow-run.js';

/** GitHub's answer to a ref update that is not a fast forward, or a branch created meanwhile. */
const MOVED = /not a fast forward|reference already exists/i;

/**
 * Every page of the open incidents is read (one missed is a duplicate opened); of the closed ones,
 * which only a reopen needs, the most recently updated pages up to this many.
 */
const MAX_CLOSED_PAGES = 10;
/** A bound that no real repository meets (100,000 open incidents), against a list that never ends. */
const MAX_OPEN_PAGES = 1000;

/** One call of GitHub's REST API on the run's repository: its answer's data. */
type Call = (route: string, parameters?: Record<string, unknown>) => Promise<unknown>;

export function githubHealthHost(github: GitHubConnection, branchName: string): HealthHost {
  const { run, identity } = github;
  const [owner, repo] = run.repository.split('/');
  const where = { owner, repo };
  const call: Call = async (route, parameters = {}) =>
    (await (await github.octokit()).request(route, { ...where, ...parameters })).data;
  return {
    runId: run.runId,
    runUrl: (runId) => runUrl({ ...run, runId }),
    branch: githubBranch(call, branchName),
    issues: githubIssues(call, identity),
    async commitTime(commitSha) {
      const data = (await call('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { commit_sha: commitSha })) as {
        committer?: { date?: unknown };
      };
      const date = data.committer?.date;
      const ms = typeof date === 'string' && date.length <= 40 ? Date.parse(date) : NaN;
      return Number.isFinite(ms) ? ms : undefined;
    },
  };
}

/** The history branch through the git data API. */
function githubBranch(call: Call, branchName: string): HistoryBranch {
  const ref = `heads/${branchName}`;
  return {
    // Git's own blob id: what the tree's listing gives the file once committed.
    blobSha: (content) =>
      createHash('sha1')
        .update(`blob ${Buffer.byteLength(content, 'utf8')}\0`)
        .update(content, 'utf8')
        .digest('hex'),
    async snapshot() {
      let head: string;
      try {
        const data = (await call('GET /repos/{owner}/{repo}/git/ref/{ref}', { ref })) as {
          object?: { sha?: unknown };
        };
        head = sha(data.object?.sha, 'the branch');
      } catch (err) {
        if ((err as { status?: unknown }).status === 404) return undefined;
        throw err;
      }
      const commit = (await call('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { commit_sha: head })) as {
        tree?: { sha?: unknown };
      };
      const treeSha = sha(commit.tree?.sha, 'the commit');
      const tree = (await call('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
        tree_sha: treeSha,
        recursive: '1',
      })) as { tree?: unknown; truncated?: unknown };
      if (tree.truncated === true) throw new Error(`the listing of '${branchName}' came back truncated`);
      const files: BranchFile[] = [];
      for (const entry of Array.isArray(tree.tree) ? (tree.tree as Record<string, unknown>[]) : []) {
        if (entry.type !== 'blob' || typeof entry.path !== 'string' || typeof entry.sha !== 'string') continue;
        files.push({ path: entry.path, sha: entry.sha, size: Number(entry.size) || 0 });
      }
      return { commit: head, tree: treeSha, files };
    },
    async read(file) {
      const blob = (await call('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { file_sha: file.sha })) as {
        content?: unknown;
        encoding?: unknown;
      };
      if (typeof blob.content !== 'string') throw new Error(`${file.path} came back without content`);
      return blob.encoding === 'base64' ? Buffer.from(blob.content, 'base64').toString('utf8') : blob.content;
    },
    async commit(parent, changes: FileChange[], message) {
      const tree = (await call('POST /repos/{owner}/{repo}/git/trees', {
        ...(parent ? { base_tree: parent.tree } : {}),
        tree: changes.map((c) =>
          c.content === null
            ? { path: c.path, mode: '100644', type: 'blob', sha: null }
            : { path: c.path, mode: '100644', type: 'blob', content: c.content },
        ),
      })) as { sha?: unknown };
      const commit = (await call('POST /repos/{owner}/{repo}/git/commits', {
        message,
        tree: sha(tree.sha, 'the new tree'),
        parents: parent ? [parent.commit] : [],
      })) as { sha?: unknown };
      const next = sha(commit.sha, 'the new commit');
      try {
        if (parent) await call('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ref, sha: next, force: false });
        else await call('POST /repos/{owner}/{repo}/git/refs', { ref: `refs/${ref}`, sha: next });
        return 'written';
      } catch (err) {
        const status = (err as { status?: unknown }).status;
        if (status === 422 && MOVED.test(err instanceof Error ? err.message : '')) return 'conflict';
        throw err;
      }
    },
  };
}

/** The incident issues: every open one, and the recently updated closed ones. */
function githubIssues(call: Call, identity: GitHubConnection['identity']): IssueHost {
  return {
    async list(label, since) {
      const found: IncidentIssue[] = [];
      const seen = new Set<number>();
      for (const state of ['open', 'closed'] as const) {
        for (let page = 1; page <= (state === 'open' ? MAX_OPEN_PAGES : MAX_CLOSED_PAGES); page++) {
          const data = (await call('GET /repos/{owner}/{repo}/issues', {
            labels: label,
            state,
            ...(state === 'closed' ? { since: new Date(since).toISOString() } : {}),
            // By creation, not update: a comment meanwhile moves no issue past a page being read.
            sort: state === 'open' ? 'created' : 'updated',
            direction: 'desc',
            per_page: 100,
            page,
          })) as Record<string, unknown>[];
          if (!Array.isArray(data)) throw new Error('the issue list came back without a list');
          for (const issue of data) {
            if (issue.pull_request !== undefined) continue;
            const number = issue.number;
            if (!Number.isSafeInteger(number) || (issue.state !== 'open' && issue.state !== 'closed')) continue;
            if (seen.has(number as number)) continue;
            seen.add(number as number);
            found.push({
              number: number as number,
              url: typeof issue.html_url === 'string' ? issue.html_url : `#${String(number)}`,
              state: issue.state,
              title: typeof issue.title === 'string' ? issue.title : '',
              body: typeof issue.body === 'string' ? issue.body : '',
              own: await identity.wrote(issue as Authored),
              labels: labelNames(issue.labels),
            });
          }
          if (data.length < 100) break;
        }
      }
      return found;
    },
    async create(issue) {
      const data = (await call('POST /repos/{owner}/{repo}/issues', {
        title: issue.title,
        body: issue.body,
        labels: issue.labels,
        ...(issue.assignees.length ? { assignees: issue.assignees } : {}),
      })) as { number?: unknown; html_url?: unknown };
      if (!Number.isSafeInteger(data.number)) throw new Error('the new issue came back without a number');
      return {
        number: data.number as number,
        url: typeof data.html_url === 'string' ? data.html_url : `#${String(data.number)}`,
      };
    },
    async update(number, change) {
      await call('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
        issue_number: number,
        ...change,
        ...(change.state === 'closed' ? { state_reason: 'completed' } : {}),
      });
    },
    async comment(number, body) {
      await call('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: number, body });
    },
  };
}

function sha(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{40,64}$/.test(value)) {
    throw new Error(`${what} came back without a usable sha`);
  }
  return value;
}

/** The names of an issue's labels (GitHub lists them as objects, or as names), or undefined. */
function labelNames(labels: unknown): string[] | undefined {
  if (!Array.isArray(labels)) return undefined;
  return labels
    .map((l: unknown) => (typeof l === 'string' ? l : (l as { name?: unknown } | null)?.name))
    .filter((name): name is string => typeof name === 'string');
}
