// A small fake of GitHub's REST API for deployments and pull-request comments (paged as GitHub
// pages them, with Link headers), on 127.0.0.1, reached through GITHUB_API_URL. Comments have
// authors: the job's token writes as github-actions[bot] and cannot read GET /user (403, as on
// GitHub); a token in `users` is a person's and writes as them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeRepo } from './github-health.ts';

export interface GitHubRequest {
  method: string;
  path: string;
  authorization?: string;
  body: Record<string, unknown>;
}

export class FakeGitHub {
  readonly requests: GitHubRequest[] = [];
  private server?: http.Server;
  private nextId = 1001;
  url = '';

  private readonly options: { createStatus?: number; commentStatus?: number; now?: () => number };
  /** Health's part: the git data API and issues, on the fake's clock. */
  readonly repo: FakeRepo;
  /** Comments per issue (pull request) number, with their author's login. */
  readonly comments = new Map<number, { id: number; body: string; user: { login: string }; html_url: string }[]>();
  /** Tokens that belong to a person (or an app's user token): `GET /user` names them. */
  readonly users = new Map<string, string>();
  /** A GitHub App's installation tokens: `GET /user` refuses them, GraphQL's `viewer` names the bot. */
  readonly apps = new Map<string, string>();
  /** Pull requests by number; a read of one not here answers 404. */
  readonly pulls = new Map<
    number,
    { state: 'open' | 'closed'; merged?: boolean; updated_at: string; head: { sha: string } }
  >();
  /** Answer pull-request reads with this status (500: GitHub failing). */
  pullStatus?: number;
  /** Answer `GET /user` with this status (500: GitHub failing while the run asks who it is). */
  userStatus?: number;
  /** Called on every pull-request read: a test closes the pull request mid-run with it. */
  onPullRead?: (number: number, reads: number) => void;
  private pullReads = 0;
  /**
   * GitHub's secondary rate limit: after `after` issues created, every request answers `status`
   * (403 with GitHub's message, or 429), with `Retry-After` when given. `hitAt` is the index in
   * `requests` of the first request refused.
   */
  secondaryLimit?: { after: number; status: 403 | 429; retryAfter?: number; hitAt?: number };
  /** Every answer waits this long (a slow GitHub). */
  delayMs = 0;

  /**
   * `createStatus`: answer creating a deployment with this status (403: no deployments: write);
   * `commentStatus`: answer writing a comment with this status (403: no pull-requests: write).
   */
  constructor(options: { createStatus?: number; commentStatus?: number; now?: () => number } = {}) {
    this.options = options;
    this.repo = new FakeRepo(options.now ?? Date.now, (authorization) => this.author(authorization));
  }

  /** Comments already on the pull request, by someone else unless `author` says who. */
  seedComments(issue: number, bodies: string[], author = 'someone-else'): void {
    const list = this.comments.get(issue) ?? [];
    for (const body of bodies) list.push(this.comment(issue, body, author));
    this.comments.set(issue, list);
  }

  private comment(issue: number, body: string, login: string) {
    const id = this.nextId++;
    return { id, body, user: { login }, html_url: `https://github.example/o/r/pull/${issue}#issuecomment-${id}` };
  }

  /** Who a request's token writes as. */
  private author(authorization: string | undefined): string {
    const token = (authorization ?? '').replace(/^(token|bearer)\s+/i, '');
    return this.users.get(token) ?? this.apps.get(token) ?? 'github-actions[bot]';
  }

  /** Statuses posted, in order: `[state, description, environment_url]`. */
  statuses(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.path.endsWith('/statuses')).map((r) => r.body);
  }

  creates(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/deployments')).map((r) => r.body);
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        const request = {
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization,
          body,
        };
        this.requests.push(request);
        if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        const send = (status: number, data: unknown, headers: Record<string, string> = {}): void => {
          if (res.destroyed) return;
          res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(data));
        };
        const limit = this.secondaryLimit;
        if (limit) {
          if (limit.hitAt === undefined && this.repo.created >= limit.after) limit.hitAt = this.requests.length - 1;
          if (limit.hitAt !== undefined) {
            return send(
              limit.status,
              {
                message:
                  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 1234:5678.',
                documentation_url:
                  'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
              },
              limit.retryAfter === undefined ? {} : { 'Retry-After': String(limit.retryAfter) },
            );
          }
        }
        if (request.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/deployments$/.test(request.path)) {
          const status = this.options.createStatus ?? 201;
          if (status !== 201) return send(status, { message: 'Resource not accessible by integration' });
          return send(201, { id: this.nextId++, ...body });
        }
        if (request.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/deployments\/\d+\/statuses$/.test(request.path)) {
          return send(201, { id: this.nextId++, ...body });
        }
        const url = new URL(request.path, this.url);
        if (request.method === 'GET' && url.pathname === '/user') {
          if (this.userStatus) return send(this.userStatus, { message: 'Server Error' });
          const token = (request.authorization ?? '').replace(/^(token|bearer)\s+/i, '');
          const login = this.users.get(token);
          return login
            ? send(200, { login, type: 'User' })
            : send(403, { message: 'Resource not accessible by integration' });
        }
        if (request.method === 'POST' && url.pathname === '/graphql') {
          const login = this.author(request.authorization);
          // The job's token may not read `viewer`: GitHub answers with an error in the body.
          return login === 'github-actions[bot]'
            ? send(200, { errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }] })
            : send(200, { data: { viewer: { login } } });
        }
        const pull = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(url.pathname);
        if (pull && request.method === 'GET') {
          this.onPullRead?.(Number(pull[1]), ++this.pullReads);
          if (this.pullStatus) return send(this.pullStatus, { message: 'Server Error' });
          const found = this.pulls.get(Number(pull[1]));
          return found ? send(200, { number: Number(pull[1]), ...found }) : send(404, { message: 'Not Found' });
        }
        const issue = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname);
        if (issue && request.method === 'GET') {
          const all = this.comments.get(Number(issue[1])) ?? [];
          const perPage = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          if (page * perPage < all.length) {
            const next = new URL(url);
            next.searchParams.set('page', String(page + 1));
            res.setHeader('Link', `<${next.toString()}>; rel="next"`);
          }
          return send(200, all.slice((page - 1) * perPage, page * perPage));
        }
        const writeStatus = this.options.commentStatus ?? 0;
        if (issue && request.method === 'POST') {
          if (this.repo.issueWriteStatus) {
            return send(this.repo.issueWriteStatus, { message: 'Resource not accessible by integration' });
          }
          if (writeStatus >= 400) return send(writeStatus, { message: 'Resource not accessible by integration' });
          const comment = this.comment(Number(issue[1]), String(body.body), this.author(request.authorization));
          this.comments.set(Number(issue[1]), [...(this.comments.get(Number(issue[1])) ?? []), comment]);
          this.repo.touch(Number(issue[1]));
          return send(201, comment);
        }
        const edit = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(url.pathname);
        if (edit && request.method === 'PATCH') {
          if (writeStatus >= 400) return send(writeStatus, { message: 'Resource not accessible by integration' });
          const comment = [...this.comments.values()].flat().find((c) => c.id === Number(edit[1]));
          if (!comment) return send(404, { message: 'Not Found' });
          comment.body = String(body.body);
          return send(200, comment);
        }
        if (await this.repo.handle(request.method, url, body, send, () => this.nextId++, request.authorization)) return;
        send(404, { message: 'Not Found' });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
