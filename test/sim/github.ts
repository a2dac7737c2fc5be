// A small fake of GitHub's REST API for deployments, on 127.0.0.1, reached through GITHUB_API_URL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

  private readonly options: { createStatus?: number };

  /** `createStatus`: answer creating a deployment with this status (403: no deployments: write). */
  constructor(options: { createStatus?: number } = {}) {
    this.options = options;
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
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        const request = {
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization,
          body,
        };
        this.requests.push(request);
        const send = (status: number, data: unknown): void => {
          res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(data));
        };
        if (request.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/deployments$/.test(request.path)) {
          const status = this.options.createStatus ?? 201;
          if (status !== 201) return send(status, { message: 'Resource not accessible by integration' });
          return send(201, { id: this.nextId++, ...body });
        }
        if (request.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/deployments\/\d+\/statuses$/.test(request.path)) {
          return send(201, { id: this.nextId++, ...body });
        }
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
