// What this action's own identity wrote on GitHub, and nothing else. A comment or an issue that
// carries our marker proves nothing: anyone who can comment can paste one. So an item is ours only
// when its author is the token's own identity: the user `GET /user` names where the token allows
// (a personal or app user token); an installation token (a GitHub App's, `<app>[bot]`) cannot read
// `/user` but GraphQL's `viewer` names it; else `github-actions[bot]` for the job's token. Items
// with our marker by anyone else are never read for state and never edited; their addresses are
// returned so the caller can say, once, what it ignored.

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

  /**
   * `api`: the REST API's base URL, whose GraphQL endpoint names an installation token's bot
   * (`…/api/v3` on GitHub Enterprise Server answers GraphQL at `…/api/graphql`).
   */
  constructor(
    private readonly octokit: () => Promise<Octokit>,
    private readonly api = 'https://api.github.com',
  ) {}

  /** The login this token writes as. */
  get(): Promise<string> {
    return (this.login ??= (async () => {
      const octokit = await this.octokit();
      const refused = (err: unknown): boolean => [401, 403, 404].includes((err as { status?: number }).status ?? 0);
      try {
        const { data } = await octokit.request('GET /user', {});
        const login = usable((data as { login?: unknown }).login);
        if (login) return login;
      } catch (err) {
        // An installation token answers 403 ("Resource not accessible by integration").
        if (!refused(err)) throw err;
      }
      try {
        // A GitHub App's installation token: `viewer` is its bot (`<app>[bot]`).
        const graphql = `${this.api.replace(/\/+$/, '').replace(/\/api\/v3$/, '/api')}/graphql`;
        const { data } = await octokit.request(`POST ${graphql}`, { query: '{ viewer { login } }' });
        const login = usable((data as { data?: { viewer?: { login?: unknown } } }).data?.viewer?.login);
        if (login) return login;
      } catch (err) {
        if (!refused(err)) throw err;
      }
      // The job's token (GITHUB_TOKEN), which may read neither.
      return JOB_TOKEN_LOGIN;
    })());
  }

  /** True when `item` was written by this identity (GitHub logins are case-insensitive). */
  async wrote(item: Authored): Promise<boolean> {
    const author = item.user?.login;
    return typeof author === 'string' && author.toLowerCase() === (await this.get()).toLowerCase();
  }
}

const usable = (login: unknown): string | undefined =>
  typeof login === 'string' && /^[\w.[\]-]{1,100}$/.test(login) ? login : undefined;

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
