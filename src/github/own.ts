// What this action's own identity wrote on GitHub, and nothing else. A comment or an issue that
// carries our marker proves nothing: anyone who can comment can paste one. So an item is ours only
// when its author is the token's own identity: the user `GET /user` names where the token allows
// (a personal or app user token), else `github-actions[bot]` for the job's token, which cannot
// read `/user`. Items with our marker by anyone else are never read for state and never edited;
// their addresses are returned so the caller can say, once, what it ignored.

/** The little of Octokit these calls use. */
export interface Octokit {
  request(route: string, parameters: Record<string, unknown>): Promise<{ data: unknown }>;
  paginate(route: string, parameters: Record<string, unknown>): Promise<unknown[]>;
}

/** The login the job's token (GITHUB_TOKEN) writes as. */
export const JOB_TOKEN_LOGIN = 'github-actions[bot]';

/** An issue or a comment as GitHub returns it, read defensively. */
export interface Authored {
  id?: unknown;
  body?: unknown;
  html_url?: unknown;
  user?: { login?: unknown } | null;
}

/** A comment or issue this action wrote: its id, its text and its page. */
export interface OwnItem {
  id: number;
  body: string;
  url: string;
}

/** Items carrying a marker: ours, and the addresses of the others that carry it (to warn about). */
export interface Found {
  own?: OwnItem;
  others: string[];
}

/** The token's identity, asked once per run. */
export class Identity {
  private login?: Promise<string>;

  constructor(private readonly octokit: () => Promise<Octokit>) {}

  /** The login this token writes as. */
  get(): Promise<string> {
    return (this.login ??= (async () => {
      try {
        const { data } = await (await this.octokit()).request('GET /user', {});
        const login = (data as { login?: unknown }).login;
        if (typeof login === 'string' && /^[\w.[\]-]{1,100}$/.test(login)) return login;
      } catch (err) {
        // The job's token answers 403 ("Resource not accessible by integration"): it is the bot.
        const status = (err as { status?: unknown }).status;
        if (status !== 401 && status !== 403 && status !== 404) throw err;
      }
      return JOB_TOKEN_LOGIN;
    })());
  }

  /** True when `item` was written by this identity (GitHub logins are case-insensitive). */
  async wrote(item: Authored): Promise<boolean> {
    const author = item.user?.login;
    return typeof author === 'string' && author.toLowerCase() === (await this.get()).toLowerCase();
  }
}

/** The first item among `items` holding `marker` that this identity wrote, and the others that hold it. */
export async function ownWithMarker(identity: Identity, items: Authored[], marker: string): Promise<Found> {
  const found: Found = { others: [] };
  for (const item of items) {
    if (typeof item.body !== 'string' || !item.body.includes(marker)) continue;
    const id = item.id;
    const url = typeof item.html_url === 'string' && /^https?:\/\//.test(item.html_url) ? item.html_url : '';
    if (!found.own && typeof id === 'number' && Number.isSafeInteger(id) && (await identity.wrote(item))) {
      found.own = { id, body: item.body, url };
    } else if (found.others.length < 20) {
      found.others.push(url || `comment ${String(typeof id === 'number' ? id : '?')}`);
    }
  }
  return found;
}

/** Every page of a pull request's (or issue's) comments, then ours with `marker` among them. */
export async function findOwnComment(
  octokit: Octokit,
  identity: Identity,
  repository: string,
  issueNumber: number,
  marker: string,
): Promise<Found> {
  const [owner, repo] = repository.split('/');
  const comments = (await octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  })) as Authored[];
  return ownWithMarker(identity, comments, marker);
}
