// What health uses of GitHub's REST API, faked for FakeGitHub: the git data API (refs, commits,
// flat trees with inline contents, blobs; a ref update that is not a fast forward answers 422 as
// GitHub does) and issues (labels, assignees, state, paged lists filtered by label, state and
// `since`). Erasable TypeScript, on the fake's clock.
import { createHash } from 'node:crypto';

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  assignees: string[];
  author: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

interface Commit {
  tree: string;
  parents: string[];
  message: string;
}

type Send = (status: number, data: unknown, headers?: Record<string, string>) => void;

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

export class FakeRepo {
  readonly blobs = new Map<string, string>();
  /** Trees as flat maps of path → blob sha. */
  readonly trees = new Map<string, Map<string, string>>();
  readonly commits = new Map<string, Commit>();
  /** Commits of the repository's code (what a run deploys), by sha: their committer's time (ISO). */
  readonly codeCommits = new Map<string, string>();
  readonly refs = new Map<string, string>();
  readonly issues: FakeIssue[] = [];
  /** Answer every git data call with this status (403: no contents: write). */
  gitStatus?: number;
  /** Answer writes (trees, commits, refs) with this status, reads as usual. */
  gitWriteStatus?: number;
  /** Answer issue calls with this status (403: no issues: write). */
  issueStatus?: number;
  /** Answer issue writes (create, edit, comment) with this status, reads as usual (403: issues: read only). */
  issueWriteStatus?: number;
  /** Issues created through the API (not pushed by a test). */
  created = 0;
  /** The first `count` branch reads wait until `count` have arrived: two runs read the same head. */
  private gate?: { count: number; waiting: (() => void)[] };
  private issueGate?: { count: number; waiting: (() => void)[] };

  private readonly now: () => number;
  /** Who a request's token writes as: the author of what it creates. */
  readonly identity: (authorization?: string) => string;

  constructor(now: () => number, identity: (authorization?: string) => string) {
    this.now = now;
    this.identity = identity;
  }

  holdBranchReads(count: number): void {
    this.gate = { count, waiting: [] };
  }

  /** The first `count` reads of the open issues wait until `count` have arrived: two runs see the same issues. */
  holdIssueLists(count: number): void {
    this.issueGate = { count, waiting: [] };
  }

  /** A file's text on `branch`, or undefined. */
  file(branch: string, path: string): string | undefined {
    const head = this.refs.get(branch);
    const blob = head && this.trees.get(this.commits.get(head)!.tree)?.get(path);
    return blob === undefined ? undefined : this.blobs.get(blob);
  }

  files(branch: string): string[] {
    const head = this.refs.get(branch);
    return head ? [...this.trees.get(this.commits.get(head)!.tree)!.keys()].sort() : [];
  }

  /** Commits on `branch`, newest first. */
  log(branch: string): Commit[] {
    const out: Commit[] = [];
    for (let sha = this.refs.get(branch); sha; sha = this.commits.get(sha)?.parents[0])
      out.push(this.commits.get(sha)!);
    return out;
  }

  /** Writes files straight onto a branch, as a person with push access could. */
  push(branch: string, files: Record<string, string>, message = 'by hand'): void {
    const parent = this.refs.get(branch);
    const base = parent ? this.trees.get(this.commits.get(parent)!.tree)! : new Map<string, string>();
    const tree = new Map(base);
    for (const [path, text] of Object.entries(files)) tree.set(path, this.blob(text));
    const treeSha = this.tree(tree);
    const sha = sha1(`commit ${treeSha} ${parent ?? ''} ${message} ${this.commits.size}`);
    this.commits.set(sha, { tree: treeSha, parents: parent ? [parent] : [], message });
    this.refs.set(branch, sha);
  }

  private blob(text: string): string {
    const sha = sha1(`blob ${Buffer.byteLength(text)}\0${text}`);
    this.blobs.set(sha, text);
    return sha;
  }

  private tree(entries: Map<string, string>): string {
    const sha = sha1(
      [...entries]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([p, s]) => `${p} ${s}`)
        .join('\n'),
    );
    this.trees.set(sha, new Map(entries));
    return sha;
  }

  private isAncestor(ancestor: string, of: string): boolean {
    const seen = new Set<string>();
    const stack = [of];
    while (stack.length) {
      const sha = stack.pop()!;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      stack.push(...(this.commits.get(sha)?.parents ?? []));
    }
    return false;
  }

  private issueJson(issue: FakeIssue, base: string): Record<string, unknown> {
    return {
      number: issue.number,
      html_url: `https://github.com/octo/claws/issues/${issue.number}`,
      url: `${base}/repos/octo/claws/issues/${issue.number}`,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      labels: issue.labels.map((name) => ({ name })),
      assignees: issue.assignees.map((login) => ({ login })),
      user: { login: issue.author, type: issue.author.endsWith('[bot]') ? 'Bot' : 'User' },
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      closed_at: issue.closed_at,
    };
  }

  /** Answers the request when it is one of health's routes; false otherwise. */
  async handle(
    method: string,
    url: URL,
    body: Record<string, unknown>,
    send: Send,
    nextIssueNumber: () => number,
    authorization?: string,
  ): Promise<boolean> {
    const path = url.pathname;
    // Octokit sends `heads/<branch>` as one encoded segment, as GitHub accepts it.
    const git = /^\/repos\/[^/]+\/[^/]+\/git\/(.+)$/.exec(decodeURIComponent(path));
    if (git) {
      if (this.gitStatus) return (send(this.gitStatus, { message: 'Resource not accessible by integration' }), true);
      if (method !== 'GET' && this.gitWriteStatus) {
        return (send(this.gitWriteStatus, { message: 'Resource not accessible by integration' }), true);
      }
      if (method === 'GET' && git[1].startsWith('ref/heads/') && this.gate) await this.wait();
      this.git(method, git[1], url, body, send);
      return true;
    }
    const issues = /^\/repos\/[^/]+\/[^/]+\/issues(?:\/(\d+))?$/.exec(path);
    if (!issues) return false;
    if (this.issueStatus) return (send(this.issueStatus, { message: 'Resource not accessible by integration' }), true);
    const base = `${url.protocol}//${url.host}`;
    const at = new Date(this.now()).toISOString();
    if (!issues[1] && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      if (state === 'open' && this.issueGate) await this.wait('issueGate');
      const labels = (url.searchParams.get('labels') ?? '').split(',').filter(Boolean);
      const since = url.searchParams.get('since');
      const all = this.issues
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.includes(l)))
        .filter((i) => !since || i.updated_at >= since)
        .sort((a, b) => b.number - a.number);
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const headers: Record<string, string> = {};
      if (page * perPage < all.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        headers.Link = `<${next.toString()}>; rel="next"`;
      }
      send(
        200,
        all.slice((page - 1) * perPage, page * perPage).map((i) => this.issueJson(i, base)),
        headers,
      );
      return true;
    }
    if (method !== 'GET' && this.issueWriteStatus) {
      return (send(this.issueWriteStatus, { message: 'Resource not accessible by integration' }), true);
    }
    if (!issues[1] && method === 'POST') {
      this.created++;
      const issue: FakeIssue = {
        number: nextIssueNumber(),
        title: String(body.title),
        body: String(body.body ?? ''),
        state: 'open',
        labels: (body.labels as string[] | undefined) ?? [],
        assignees: (body.assignees as string[] | undefined) ?? [],
        author: this.identity(authorization),
        created_at: at,
        updated_at: at,
        closed_at: null,
      };
      this.issues.push(issue);
      send(201, this.issueJson(issue, base));
      return true;
    }
    const issue = this.issues.find((i) => i.number === Number(issues[1]));
    if (!issue) return (send(404, { message: 'Not Found' }), true);
    if (method === 'GET') return (send(200, this.issueJson(issue, base)), true);
    if (method === 'PATCH') {
      if (typeof body.title === 'string') issue.title = body.title;
      if (typeof body.body === 'string') issue.body = body.body;
      if (body.state === 'open' || body.state === 'closed') {
        if (body.state !== issue.state) issue.closed_at = body.state === 'closed' ? at : null;
        issue.state = body.state;
      }
      issue.updated_at = at;
      send(200, this.issueJson(issue, base));
      return true;
    }
    return false;
  }

  /** Touches an issue's update time, as a comment does on GitHub. */
  touch(number: number): void {
    const issue = this.issues.find((i) => i.number === number);
    if (issue) issue.updated_at = new Date(this.now()).toISOString();
  }

  private async wait(which: 'gate' | 'issueGate' = 'gate'): Promise<void> {
    const gate = this[which]!;
    await new Promise<void>((resolve) => {
      gate.waiting.push(resolve);
      if (gate.waiting.length >= gate.count) {
        gate.waiting.forEach((r) => r());
        this[which] = undefined;
      }
    });
  }

  private git(method: string, rest: string, url: URL, body: Record<string, unknown>, send: Send): void {
    const notFound = (): void => send(404, { message: 'Not Found' });
    const ref = /^ref\/heads\/(.+)$/.exec(rest);
    if (ref && method === 'GET') {
      const sha = this.refs.get(ref[1]);
      return sha ? send(200, { ref: `refs/heads/${ref[1]}`, object: { sha, type: 'commit' } }) : notFound();
    }
    if (rest === 'refs' && method === 'POST') {
      const name = String(body.ref).replace(/^refs\/heads\//, '');
      if (this.refs.has(name)) return send(422, { message: 'Reference already exists' });
      if (!this.commits.has(String(body.sha))) return send(422, { message: 'Object does not exist' });
      this.refs.set(name, String(body.sha));
      return send(201, { ref: body.ref, object: { sha: body.sha, type: 'commit' } });
    }
    const update = /^refs\/heads\/(.+)$/.exec(rest);
    if (update && method === 'PATCH') {
      const name = update[1];
      const current = this.refs.get(name);
      if (!current) return send(422, { message: 'Reference does not exist' });
      const sha = String(body.sha);
      if (!this.commits.has(sha)) return send(422, { message: 'Object does not exist' });
      if (body.force !== true && !this.isAncestor(current, sha)) {
        return send(422, { message: 'Update is not a fast forward' });
      }
      this.refs.set(name, sha);
      return send(200, { ref: `refs/heads/${name}`, object: { sha, type: 'commit' } });
    }
    const commit = /^commits\/([0-9a-f]{40})$/.exec(rest);
    if (commit && method === 'GET') {
      const code = this.codeCommits.get(commit[1]);
      if (code) return send(200, { sha: commit[1], committer: { name: 'octo', date: code }, parents: [] });
      const found = this.commits.get(commit[1]);
      if (!found) return notFound();
      return send(200, {
        sha: commit[1],
        tree: { sha: found.tree },
        parents: found.parents.map((sha) => ({ sha })),
        message: found.message,
      });
    }
    if (rest === 'commits' && method === 'POST') {
      const tree = String(body.tree);
      const parents = (body.parents as string[] | undefined) ?? [];
      if (!this.trees.has(tree) || parents.some((p) => !this.commits.has(p))) {
        return send(422, { message: 'Object does not exist' });
      }
      const sha = sha1(`commit ${tree} ${parents.join(',')} ${String(body.message)} ${this.commits.size}`);
      this.commits.set(sha, { tree, parents, message: String(body.message) });
      return send(201, { sha, tree: { sha: tree }, parents: parents.map((p) => ({ sha: p })) });
    }
    const tree = /^trees\/([0-9a-f]{40})$/.exec(rest);
    if (tree && method === 'GET') {
      const entries = this.trees.get(tree[1]);
      if (!entries) return notFound();
      if (url.searchParams.get('recursive') === null)
        return send(400, { message: 'this fake lists trees recursively' });
      return send(200, {
        sha: tree[1],
        tree: [...entries].map(([path, sha]) => ({
          path,
          mode: '100644',
          type: 'blob',
          sha,
          size: Buffer.byteLength(this.blobs.get(sha) ?? ''),
        })),
        truncated: false,
      });
    }
    if (rest === 'trees' && method === 'POST') {
      const base = body.base_tree === undefined ? new Map<string, string>() : this.trees.get(String(body.base_tree));
      if (!base) return send(422, { message: 'Invalid base_tree' });
      const entries = new Map(base);
      for (const item of body.tree as { path: string; content?: string; sha?: string | null }[]) {
        if (item.sha === null) entries.delete(item.path);
        else if (typeof item.content === 'string') entries.set(item.path, this.blob(item.content));
        else if (item.sha && this.blobs.has(item.sha)) entries.set(item.path, item.sha);
        else return send(422, { message: 'tree entry without content' });
      }
      const sha = this.tree(entries);
      return send(201, { sha, tree: [] });
    }
    const blob = /^blobs\/([0-9a-f]{40})$/.exec(rest);
    if (blob && method === 'GET') {
      const text = this.blobs.get(blob[1]);
      if (text === undefined) return notFound();
      return send(200, {
        sha: blob[1],
        content: Buffer.from(text, 'utf8')
          .toString('base64')
          .replace(/(.{60})/g, '$1\n'),
        encoding: 'base64',
        size: Buffer.byteLength(text),
      });
    }
    notFound();
  }
}
