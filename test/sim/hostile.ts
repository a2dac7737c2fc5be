// A small hostile service for the tests: every answer is whatever the test scripts, down to the
// bytes, the headers and how the body ends (never, or after far too much). Paired with the
// simulator when a test needs the real protocol and only some answers turned against the action.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HostileAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** The body as text, or chunks written one after another... */
  body?: string;
  /** ...or a body that never ends: this chunk, again and again, until the client hangs up. */
  endless?: string;
}

export interface HostileRequest {
  method: string;
  path: string;
  authorization?: string;
}

export class HostileServer {
  readonly requests: HostileRequest[] = [];
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  /** Bytes written by endless bodies, to show the client stopped reading. */
  endlessBytes = 0;
  /** Connections accepted, to show keep-alive reuses one. */
  connections = 0;
  url = '';

  private readonly answer: (request: HostileRequest) => HostileAnswer;

  constructor(answer: (request: HostileRequest) => HostileAnswer) {
    this.answer = answer;
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const request = { method: req.method ?? 'GET', path: req.url ?? '/', authorization: req.headers.authorization };
      this.requests.push(request);
      req.resume();
      const answer = this.answer(request);
      res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', ...answer.headers });
      if (answer.endless === undefined) return void res.end(answer.body ?? '');
      const chunk = Buffer.from(answer.endless);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) this.endlessBytes += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    this.server.on('connection', (socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
