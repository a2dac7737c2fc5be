// The Agent Management Service as the spec describes it, over real sockets on 127.0.0.1:
// keys with scopes, the error envelope, Claws, deployments moving through statuses on a scaled
// clock, both rollback forms, skills, team, chat with tasks, the team's rate limit, shape
// variants and faults. Erasable TypeScript only, so plain `node` runs it (demo, CI job).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type BehaviourChange, type BehaviourProfile, behaving, hashOf } from './behaviour.ts';
import { type RateLimitOptions, TeamRateLimit } from './rate-limit.ts';
import { type Fields, type Shape, SHAPES, dressList, dressObject, envelope } from './shapes.ts';

/** A deployment's course: each status held for `ms` (simulated), the last one for good. */
export type Plan = Array<[status: string, ms?: number]>;

export const DEFAULT_PLAN: Plan = [['pending', 1000], ['in_progress', 2000], ['succeeded']];
export const DEFAULT_ROLLBACK_PLAN: Plan = [['rolling_back', 1000], ['rolled_back']];
export const DEFAULT_NEW_ROLLBACK_PLAN: Plan = [['pending', 500], ['in_progress', 500], ['succeeded']];

export type FaultKind = '500' | '502-html' | '503' | 'reset' | 'hang' | 'truncated' | '429' | 'lost-create' | 'error';

export interface Fault {
  kind: FaultKind;
  method?: string;
  /** Matches the path (after `/v1`): a prefix string, or a pattern. */
  path?: string | RegExp;
  /** How many matching requests it hits. */
  times: number;
  /** Let every Nth matching request through, for faults that come and go. */
  passEvery?: number;
  /** For `error`: the status, answered with an HTML page rather than the envelope... */
  status?: number;
  /** ...or with this JSON body... */
  body?: unknown;
  /** ...or with this text, byte for byte (JSON with escapes a serializer would not write, say). */
  text?: string;
  /** `Retry-After` for 503 and 429, in seconds. */
  retryAfter?: string;
  /** Headers that replace the simulator's own on the faulty answer (rate-limit headers, say). */
  headers?: Record<string, string>;
}

export interface SimClaw {
  id: string;
  name: string;
  /** The Claw's own status field; omitted when undefined. */
  status?: string;
  plan: Plan;
  rollbackPlan?: Plan;
  currentDeploymentId?: string;
  /** Chat: answer at once, or with a task that finishes after `taskMs`; `never` never finishes. */
  chat: {
    mode: 'sync' | 'task' | 'never';
    reply?: string;
    taskMs?: number;
    /** Answer `{"message": <what was sent>, "reply": ...}`, as services that echo do; `object` sends both as role objects. */
    echo?: boolean | 'object';
    /** The reply to each message (`n` counts this Claw's messages from 1); default `reply`, else an echo. */
    respond?: (message: string, n: number) => string;
    /** Tasks end `failed` instead of finishing. */
    taskFails?: boolean;
    /**
     * Behaviour mode (behaviour.ts): each message is a question that passes with its chance (the
     * reply is `PASS: <question>` or `FAIL: <question>`), at once (sync) or through a task whose
     * time is drawn from the profile. This is the profile before any deployment.
     */
    behaviour?: BehaviourProfile;
  };
  /** Behaviour mode: what each deployment triggered through the API brings, in turn (`deployBrings` adds one). */
  nextBehaviours?: BehaviourChange[];
  skills: Fields[];
  /** Configuration fields returned with the Claw (identity, personality, connections, …). */
  config: Fields;
}

export interface SimDeployment {
  id: string;
  clawId: string;
  strategy?: string;
  fields: Fields;
  createdAt: number;
  /** When the current plan began (creation, or the in-place rollback). */
  planStart: number;
  plan: Plan;
  /** Made by POST /v1/deployments, by a rollback, or seeded by a test. */
  origin: 'trigger' | 'rollback' | 'seed';
  rollbackOf?: string;
  idempotencyKey?: string;
  /** Behaviour mode: the release this deployment brings once it has finished, and the one live before it. */
  behaviour?: { brings: Release; replaces: Release };
}

/** A behaviour a Claw answers by, and the key of its draws (a new release, new draws). */
export interface Release {
  profile: BehaviourProfile;
  key: string;
}

export interface SimTask {
  id: string;
  createdAt: number;
  ms: number;
  reply: string;
  never: boolean;
  fails: boolean;
}

export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  at: number;
  authorization?: string;
  idempotencyKey?: string;
  body?: unknown;
}

export interface SimOptions {
  /** Claws created with POST get this chat, from their config (a preview answers as configured). */
  newClawChat?: (config: Fields) => SimClaw['chat'];
  /** POST /claws ignores the id asked for and names the Claw itself. */
  assignIds?: boolean;
  /** The simulator's clock; tests share one fake clock with the action. Real time by default. */
  now?: () => number;
  /** API keys and their scopes. */
  keys?: Record<string, string[]>;
  /** Scheme expected before the key; '' expects the bare key. */
  authScheme?: string;
  /** Simulated milliseconds per real millisecond: 10 makes a 30 s deployment take 3 s. */
  speed?: number;
  shape?: Shape | keyof typeof SHAPES;
  rollbackForm?: 'new-deployment' | 'in-place';
  rateLimit?: Partial<RateLimitOptions>;
  /** Return the first deployment for a repeated Idempotency-Key. */
  honourIdempotency?: boolean;
  /** Page lists this many items at a time (object list shapes). */
  pageSize?: number;
  /** How the next page is offered: a cursor, a link (`links.next`), or an RFC 8288 `Link` header. */
  paging?: 'cursor' | 'link' | 'link-header';
  /** The server's clock minus the real one, for its `Date` header and epoch resets. */
  clockSkewMs?: number;
  /** Answer every request with a redirect here (tests that the key is never sent on). */
  redirectTo?: string;
  /** Put the Authorization header back into bodies, as a careless service might. */
  echoKey?: boolean;
  /** A `url` field on deployments and Claws. */
  urls?: boolean;
  /** Hold each answer this many real milliseconds, so concurrent requests overlap for sure. */
  holdMs?: number;
  /** `false`: entries of `GET /v1/deployments` carry ids but no status (only per-id reads tell). */
  listStatuses?: boolean;
  /**
   * Refuse a trigger with 409 while the Claw's current deployment is in progress: `named` puts the
   * deployment's id in the error, `anonymous` does not.
   */
  conflicts?: 'named' | 'anonymous';
  /** Final deployments carry `finishedAt` beside `createdAt`, so a client can learn durations. */
  timestamps?: boolean;
  /**
   * Outside `/v1`, every path answers 404 with the service's own error body, as a gateway in front
   * of it may: a wrong base path then looks like the service saying "no such Claw".
   */
  gatewayErrors?: boolean;
  /** Config paths (`connections.zendesk.token`) stored on write but never returned, as secrets are. */
  writeOnly?: string[];
}

export const ALL_SCOPES = ['claws', 'deployments', 'skills', 'team', 'chat'].flatMap((r) => [
  `${r}:read`,
  `${r}:write`,
]);
export const DEMO_KEY = 'sim-demo-key-0123456789';

const STATUS_TEXT: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'invalid_request',
  429: 'rate_limited',
  500: 'internal_error',
};

class HttpError extends Error {
  status: number;
  /** Fields added to the error object beside code, message and status. */
  extra: Fields;
  constructor(status: number, message: string, extra: Fields = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

export class Simulator {
  readonly options: SimOptions;
  readonly shape: Shape;
  readonly rateLimit: TeamRateLimit;
  readonly claws = new Map<string, SimClaw>();
  readonly deployments = new Map<string, SimDeployment>();
  readonly tasks = new Map<string, SimTask>();
  readonly members = new Map<string, Fields>();
  readonly messages = new Map<string, Fields[]>();
  /** Behaviour mode's seeded draws, one stream per Claw, release and question: the same run in any order. */
  private readonly behaving = new Map<string, ReturnType<typeof behaving>>();
  readonly requests: RequestRecord[] = [];
  readonly faults: Fault[] = [];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly faultSeen = new Map<Fault, number>();
  private nextId = 1;
  /** The path being answered, for next-page links. */
  private currentPath = '';
  /** Headers the route adds to its answer (a `Link` header). */
  private routeHeaders: Record<string, string> = {};
  url = '';

  constructor(options: SimOptions = {}) {
    this.options = options;
    this.shape = typeof options.shape === 'object' ? options.shape : SHAPES[options.shape ?? 'plain'];
    this.rateLimit = new TeamRateLimit({
      limit: 1_000_000,
      windowMs: 60_000,
      resetForm: 'epoch-s',
      retryAfter: false,
      ...options.rateLimit,
    });
  }

  // --- setup ---------------------------------------------------------------------------------

  addClaw(id: string, claw: Partial<Omit<SimClaw, 'id'>> = {}): SimClaw {
    const record: SimClaw = {
      id,
      name: claw.name ?? id,
      status: 'online',
      plan: DEFAULT_PLAN,
      chat: { mode: 'sync' },
      skills: [],
      config: {},
      ...claw,
    };
    this.claws.set(id, record);
    return record;
  }

  /** A deployment that already exists, e.g. a Claw's current one. */
  addDeployment(clawId: string, plan: Plan, id = this.newId('dep')): SimDeployment {
    const now = this.now();
    const deployment: SimDeployment = { id, clawId, fields: {}, createdAt: now, planStart: now, plan, origin: 'seed' };
    this.deployments.set(id, deployment);
    const claw = this.claws.get(clawId);
    if (claw) claw.currentDeploymentId = id;
    return deployment;
  }

  /**
   * A deployment of `clawId` that succeeded in the past after `simMs` (simulated), ending a little
   * before now: the history a client may learn durations from. Not the Claw's current deployment.
   */
  addPastDeployment(clawId: string, simMs: number, endedAgoMs = 60_000): SimDeployment {
    const realMs = simMs / (this.options.speed ?? 1);
    const createdAt = this.now() - endedAgoMs - realMs;
    const deployment: SimDeployment = {
      id: this.newId('dep'),
      clawId,
      fields: {},
      createdAt,
      planStart: createdAt,
      plan: [['deploying', simMs], ['succeeded']],
      origin: 'seed',
    };
    this.deployments.set(deployment.id, deployment);
    return deployment;
  }

  fault(fault: Fault): void {
    this.faults.push(fault);
  }

  // --- the clock -------------------------------------------------------------------------------

  now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  private elapsed(since: number, now = this.now()): number {
    return (now - since) * (this.options.speed ?? 1);
  }

  /** Whether the deployment has not yet reached the last status of its plan. */
  inProgress(deployment: SimDeployment, now = this.now()): boolean {
    const total = deployment.plan.slice(0, -1).reduce((sum, [, ms]) => sum + (ms ?? 0), 0);
    return this.elapsed(deployment.planStart, now) < total;
  }

  statusOf(deployment: SimDeployment, now = this.now()): string {
    let left = this.elapsed(deployment.planStart, now);
    for (const [status, ms] of deployment.plan) {
      if (ms === undefined || left < ms) return status;
      left -= ms;
    }
    return deployment.plan.at(-1)?.[0] ?? 'unknown';
  }

  /** Real time at which the deployment reached its last status. */
  finalAt(deployment: SimDeployment): number {
    const simMs = deployment.plan.slice(0, -1).reduce((sum, [, ms]) => sum + (ms ?? 0), 0);
    return deployment.planStart + simMs / (this.options.speed ?? 1);
  }

  /** Requests per route, ids folded: `GET /v1/deployments/:id` → 12. */
  routeCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.requests) {
      const path = r.path.split('?')[0];
      const route = path
        .replace(/^\/v1\/(claws|deployments|tasks|chat)\/[^/]+/, '/v1/$1/:id')
        .replace(/\/skills\/[^/]+$/, '/skills/:skillId');
      const key = `${r.method} ${route}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** Deployments created by POST /v1/deployments (not rollbacks, not seeded). */
  triggered(clawId?: string): SimDeployment[] {
    return [...this.deployments.values()].filter((d) => d.origin === 'trigger' && (!clawId || d.clawId === clawId));
  }

  // --- server ----------------------------------------------------------------------------------

  /** Listens on `host` (IPv4 loopback by default; `::1` for IPv6). */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.on('close', () => (this.inFlight -= 1));
      const handle = () => void this.handle(req, res);
      if (this.options.holdMs) setTimeout(handle, this.options.holdMs);
      else handle();
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, host, resolve);
    });
    const { port: bound } = this.server.address() as AddressInfo;
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private newId(prefix: string): string {
    return `${prefix}_${String(this.nextId++).padStart(4, '0')}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const now = this.now();
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    const record: RequestRecord = {
      method,
      path: url.pathname + url.search,
      status: 0,
      at: now,
      authorization: req.headers.authorization,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    };
    this.requests.push(record);
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    record.body = body;

    if (this.options.redirectTo) {
      record.status = 307;
      res.writeHead(307, { Location: `${this.options.redirectTo}${url.pathname}` }).end();
      return;
    }

    const path = url.pathname.startsWith('/v1/') ? url.pathname.slice(3) : undefined;
    this.currentPath = url.pathname;
    this.routeHeaders = {};
    const fault = path === undefined ? undefined : this.takeFault(method, path);
    const serverNow = now + (this.options.clockSkewMs ?? 0);
    const headers: Record<string, string> = {
      Date: new Date(serverNow).toUTCString(),
      'Content-Type': 'application/json',
    };

    const send = (status: number, payload: unknown, extra: Record<string, string> = {}): void => {
      record.status = status;
      Object.assign(headers, this.rateLimit.headers(now, serverNow, status === 429), extra);
      let json = payload === undefined ? '' : JSON.stringify(payload);
      if (this.options.echoKey && payload !== undefined && req.headers.authorization) {
        json = json.replace(/}$/, `,"echo":{"authorization":${JSON.stringify(req.headers.authorization)}}}`);
      }
      if (fault?.kind === 'truncated' || fault?.kind === 'lost-create') {
        // Apply the request, then lose (part of) the answer.
        const cut = fault.kind === 'truncated' ? Math.floor(json.length / 2) : 0;
        res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(json)) });
        res.write(json.slice(0, cut), () => res.destroy());
        return;
      }
      res.writeHead(status, headers).end(json);
    };
    const sendError = (
      status: number,
      message: string,
      extra: Record<string, string> = {},
      fields: Fields = {},
    ): void => {
      const code = STATUS_TEXT[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
      send(status, { error: { code, message, status, ...fields } }, extra);
    };

    if (fault) {
      switch (fault.kind) {
        case 'reset':
          record.status = -1;
          req.socket.destroy();
          return;
        case 'hang':
          record.status = -1;
          return; // never answered; stop() destroys the socket
        case '500':
          return sendError(500, 'simulated internal error');
        case '502-html':
          record.status = 502;
          res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
          return;
        case '503':
          return sendError(503, 'simulated unavailability', {
            'Retry-After': fault.retryAfter ?? '1',
            ...fault.headers,
          });
        case '429':
          return sendError(429, 'simulated rate limit', {
            ...(fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}),
            ...fault.headers,
          });
        case 'error': {
          const status = fault.status ?? 400;
          if (fault.body !== undefined) return send(status, fault.body);
          if (fault.text !== undefined) {
            record.status = status;
            res.writeHead(status, { 'Content-Type': 'application/json' }).end(fault.text);
            return;
          }
          record.status = status;
          const echoed = this.options.echoKey ? ` for ${req.headers.authorization}` : '';
          res
            .writeHead(status, { 'Content-Type': 'text/html' })
            .end(`<html><body>Error ${status}${echoed}</body></html>`);
          return;
        }
        default:
          break; // truncated and lost-create are applied in send()
      }
    }

    if (!this.rateLimit.take(now)) return sendError(429, 'rate limit exceeded for this team');
    if (path === undefined) {
      if (this.options.gatewayErrors) return sendError(404, `no route ${method} ${url.pathname}`);
      // Outside /v1 the service has nothing: what answers there is whatever fronts it (a proxy's bare 404).
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
      return;
    }

    const scopes = this.authenticate(req.headers.authorization);
    if (!scopes) {
      const echoed = this.options.echoKey && req.headers.authorization ? ` (got ${req.headers.authorization})` : '';
      return sendError(401, `missing or invalid API key${echoed}`);
    }
    try {
      const [status, payload] = this.route(method, path, url.searchParams, body, scopes, now, record.idempotencyKey);
      send(status, payload, this.routeHeaders);
    } catch (err) {
      if (err instanceof HttpError) return sendError(err.status, err.message, {}, err.extra);
      sendError(500, err instanceof Error ? err.message : 'internal error');
    }
  }

  private takeFault(method: string, path: string): Fault | undefined {
    const index = this.faults.findIndex(
      (f) =>
        f.times > 0 &&
        (!f.method || f.method === method) &&
        (f.path === undefined || (typeof f.path === 'string' ? path.startsWith(f.path) : f.path.test(path))),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index];
    this.faultSeen.set(fault, (this.faultSeen.get(fault) ?? 0) + 1);
    if (fault.passEvery && (this.faultSeen.get(fault) ?? 0) % fault.passEvery === 0) return undefined;
    fault.times -= 1;
    return fault;
  }

  private authenticate(header: string | undefined): string[] | undefined {
    if (!header) return undefined;
    const scheme = this.options.authScheme ?? 'Bearer';
    const key = scheme ? (header.startsWith(`${scheme} `) ? header.slice(scheme.length + 1) : undefined) : header;
    const keys = this.options.keys ?? { [DEMO_KEY]: ALL_SCOPES };
    return key === undefined ? undefined : keys[key];
  }

  // --- routes ----------------------------------------------------------------------------------

  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    scopes: string[],
    now: number,
    idempotencyKey?: string,
  ): [number, unknown] {
    const need = (scope: string): void => {
      if (!scopes.includes(scope)) throw new HttpError(403, `this key lacks the ${scope} scope`);
    };
    const input = (typeof body === 'object' && body !== null ? body : {}) as Fields;
    const parts = path.split('/').slice(1).map(decodeURIComponent);
    // `/team/members` is one collection; everything else is `/<group>/:id/<sub>/:subId`.
    if (parts[0] === 'team' && parts[1] === 'members') parts.splice(0, 2, 'team/members');
    const [group, id, sub, subId] = parts;
    const key = `${method} /${group}${id !== undefined ? '/:id' : ''}${sub !== undefined ? `/${sub}` : ''}${subId !== undefined ? '/:subId' : ''}`;

    switch (key) {
      case 'GET /claws':
        need('claws:read');
        return [
          200,
          this.page(
            'claws',
            [...this.claws.values()].map((c) => this.clawObject(c, now)),
            query,
          ),
        ];
      case 'GET /claws/:id':
        need('claws:read');
        return [200, envelope(this.shape, 'claw', this.clawObject(this.claw(id), now))];
      case 'POST /claws': {
        need('claws:write');
        const { id: newId, name, ...config } = input;
        // A service may name new Claws itself, whatever id was asked for.
        const clawId = String(this.options.assignIds ? this.newId('claw') : (newId ?? this.newId('claw')));
        if (this.claws.has(clawId)) throw new HttpError(409, `Claw ${clawId} already exists`);
        const merged = mergePatch({}, config) as Fields;
        const claw = this.addClaw(clawId, {
          name: String(name ?? 'new claw'),
          config: merged,
          ...(this.options.newClawChat ? { chat: this.options.newClawChat(merged) } : {}),
        });
        return [201, envelope(this.shape, 'claw', this.clawObject(claw, now))];
      }
      case 'PATCH /claws/:id': {
        // A JSON merge patch (RFC 7396) of the Claw's configuration.
        need('claws:write');
        const claw = this.claw(id);
        const { name, ...config } = input;
        if (typeof name === 'string') claw.name = name;
        claw.config = mergePatch(claw.config, config) as Fields;
        return [200, envelope(this.shape, 'claw', this.clawObject(claw, now))];
      }
      case 'DELETE /claws/:id':
        need('claws:write');
        this.claw(id);
        this.claws.delete(id);
        return [204, undefined];

      case 'GET /deployments': {
        need('deployments:read');
        const all = [...this.deployments.values()].sort((a, b) => b.createdAt - a.createdAt);
        return [
          200,
          this.page(
            'deployments',
            all.map((d) => {
              const object = this.deploymentObject(d, now);
              if (this.options.listStatuses === false) delete object[this.shape.status];
              return object;
            }),
            query,
          ),
        ];
      }
      case 'GET /deployments/:id':
        need('deployments:read');
        return [200, envelope(this.shape, 'deployment', this.deploymentObject(this.deployment(id), now))];
      case 'POST /deployments':
        need('deployments:write');
        return this.trigger(input, now, idempotencyKey);
      case 'POST /deployments/:id/rollback':
        need('deployments:write');
        return this.rollback(this.deployment(id), now);

      case 'GET /claws/:id/skills':
        need('skills:read');
        return [200, this.page('skills', this.claw(id).skills, query)];
      case 'POST /claws/:id/skills': {
        need('skills:write');
        if (typeof input.skillId !== 'string') throw new HttpError(422, 'skillId is required');
        const skill = { skillId: input.skillId, installedAt: new Date(now).toISOString() };
        this.claw(id).skills.push(skill);
        return [201, envelope(this.shape, 'skill', skill)];
      }
      case 'DELETE /claws/:id/skills/:subId': {
        need('skills:write');
        const claw = this.claw(id);
        const before = claw.skills.length;
        claw.skills = claw.skills.filter((s) => s.skillId !== subId);
        if (claw.skills.length === before) throw new HttpError(404, `skill ${subId} is not installed on ${id}`);
        return [204, undefined];
      }

      case 'GET /team/members':
        need('team:read');
        return [200, this.page('members', [...this.members.values()], query)];
      case 'POST /team/members': {
        need('team:write');
        const memberId = this.newId('mem');
        if (typeof input.email !== 'string') throw new HttpError(422, 'email is required');
        // An invitation stays pending until accepted: it is listed with that status.
        const member = dressObject(this.shape, 'member', memberId, 'pending', {
          email: input.email,
          role: input.role ?? 'member',
        });
        this.members.set(memberId, member);
        return [201, envelope(this.shape, 'member', member)];
      }
      case 'PATCH /team/members/:id': {
        need('team:write');
        const member = this.members.get(id);
        if (!member) throw new HttpError(404, `no team member ${id}`);
        member.role = input.role;
        return [200, envelope(this.shape, 'member', member)];
      }
      case 'DELETE /team/members/:id':
        need('team:write');
        if (!this.members.delete(id)) throw new HttpError(404, `no team member ${id}`);
        return [204, undefined];

      case 'POST /chat/:id/messages':
        need('chat:write');
        return this.chat(this.claw(id), input, now);
      case 'GET /chat/:id/messages':
        need('chat:read');
        this.claw(id);
        return [200, this.page('messages', this.messages.get(id) ?? [], query)];
      case 'GET /tasks/:id': {
        need('chat:read');
        const task = this.tasks.get(id);
        if (!task) throw new HttpError(404, `no task ${id}`);
        const done = !task.never && this.elapsed(task.createdAt, now) >= task.ms;
        const fields: Fields = done && !task.fails ? { result: { reply: task.reply } } : {};
        const status = done ? (task.fails ? 'failed' : 'completed') : 'running';
        return [200, envelope(this.shape, 'task', dressObject(this.shape, 'task', task.id, status, fields))];
      }
      default:
        throw new HttpError(404, `no route ${method} /v1${path}`);
    }
  }

  private claw(id: string): SimClaw {
    const claw = this.claws.get(id);
    if (!claw) throw new HttpError(404, `no Claw ${id}`);
    return claw;
  }

  private deployment(id: string): SimDeployment {
    const deployment = this.deployments.get(id);
    if (!deployment) throw new HttpError(404, `no deployment ${id}`);
    return deployment;
  }

  private trigger(input: Fields, now: number, idempotencyKey?: string): [number, unknown] {
    if (typeof input.clawId !== 'string') throw new HttpError(422, 'clawId is required');
    const claw = this.claw(input.clawId);
    if (this.options.honourIdempotency && idempotencyKey) {
      const earlier = [...this.deployments.values()].find((d) => d.idempotencyKey === idempotencyKey);
      if (earlier) return [200, envelope(this.shape, 'deployment', this.deploymentObject(earlier, now))];
    }
    const current = claw.currentDeploymentId ? this.deployments.get(claw.currentDeploymentId) : undefined;
    if (this.options.conflicts && current && this.inProgress(current, now)) {
      const named = this.options.conflicts === 'named' ? { deploymentId: current.id } : {};
      throw new HttpError(409, `Claw ${claw.id} already has a deployment in progress`, named);
    }
    const fields = Object.fromEntries(
      Object.entries(input).filter(([name]) => name !== 'clawId' && name !== 'strategy'),
    );
    const deployment: SimDeployment = {
      id: this.newId('dep'),
      clawId: claw.id,
      strategy: typeof input.strategy === 'string' ? input.strategy : undefined,
      fields,
      createdAt: now,
      planStart: now,
      plan: claw.plan,
      origin: 'trigger',
      idempotencyKey,
    };
    // What the release brings, on the one live until now (read before it becomes the current one).
    const live = this.liveBehaviour(claw.id, now);
    if (live) {
      const change = claw.nextBehaviours?.shift() ?? {};
      deployment.behaviour = {
        brings: { profile: { ...live.profile, ...change }, key: deployment.id },
        replaces: live,
      };
    }
    this.deployments.set(deployment.id, deployment);
    claw.currentDeploymentId = deployment.id;
    return [201, envelope(this.shape, 'deployment', this.deploymentObject(deployment, now))];
  }

  private rollback(deployment: SimDeployment, now: number): [number, unknown] {
    const claw = this.claws.get(deployment.clawId);
    if (this.options.rollbackForm === 'new-deployment') {
      const rollback: SimDeployment = {
        id: this.newId('dep'),
        clawId: deployment.clawId,
        fields: { kind: 'rollback' },
        createdAt: now,
        planStart: now,
        plan: claw?.rollbackPlan ?? DEFAULT_NEW_ROLLBACK_PLAN,
        origin: 'rollback',
        rollbackOf: deployment.id,
      };
      const live = this.liveBehaviour(deployment.clawId, now);
      if (live && deployment.behaviour) rollback.behaviour = { brings: deployment.behaviour.replaces, replaces: live };
      this.deployments.set(rollback.id, rollback);
      if (claw) claw.currentDeploymentId = rollback.id;
      return [201, envelope(this.shape, 'deployment', this.deploymentObject(rollback, now))];
    }
    deployment.planStart = now;
    deployment.plan = claw?.rollbackPlan ?? DEFAULT_ROLLBACK_PLAN;
    deployment.fields.rolledBackAt = new Date(now).toISOString();
    return [202, envelope(this.shape, 'deployment', this.deploymentObject(deployment, now))];
  }

  private chat(claw: SimClaw, input: Fields, now: number): [number, unknown] {
    const text = String(input.message ?? '');
    const history = this.messages.get(claw.id) ?? [];
    const n = history.filter((m) => m.role === 'user').length + 1;
    const drawn = this.drawBehaviour(claw, text, now);
    if (drawn?.fails && claw.chat.mode === 'sync') throw new HttpError(500, 'the Claw could not answer');
    const reply = drawn?.reply ?? claw.chat.respond?.(text, n) ?? claw.chat.reply ?? `echo: ${text}`;
    history.push({ role: 'user', content: text }, { role: 'claw', content: reply });
    this.messages.set(claw.id, history);
    if (claw.chat.mode === 'sync') {
      const answer =
        claw.chat.echo === 'object'
          ? { message: { role: 'user', content: text }, reply: { role: 'assistant', content: reply }, clawId: claw.id }
          : claw.chat.echo
            ? { message: text, reply, clawId: claw.id }
            : { reply, clawId: claw.id };
      return [200, envelope(this.shape, 'message', answer)];
    }
    const task: SimTask = {
      id: this.newId('task'),
      createdAt: now,
      ms: drawn?.ms ?? claw.chat.taskMs ?? 1000,
      reply,
      never: claw.chat.mode === 'never',
      fails: drawn?.fails ?? claw.chat.taskFails ?? false,
    };
    this.tasks.set(task.id, task);
    return [202, { taskId: task.id }];
  }

  /** Behaviour mode: the next deployment of the Claw triggered through the API brings `change` (after those queued). */
  deployBrings(clawId: string, change: BehaviourChange): void {
    const claw = this.claw(clawId);
    claw.nextBehaviours = [...(claw.nextBehaviours ?? []), change];
  }

  /**
   * Behaviour mode: the release the Claw answers by now. Its current deployment's, once that has
   * finished and not failed nor been rolled back; the one before it meanwhile; its own profile
   * before any deployment brought one.
   */
  liveBehaviour(clawId: string, now = this.now()): Release | undefined {
    const claw = this.claws.get(clawId);
    if (!claw?.chat.behaviour) return undefined;
    const current = claw.currentDeploymentId ? this.deployments.get(claw.currentDeploymentId) : undefined;
    if (!current?.behaviour) return { profile: claw.chat.behaviour, key: 'profile' };
    const failed = /fail|crash|error|cancel/i.test(current.plan.at(-1)?.[0] ?? '');
    const over = !this.inProgress(current, now);
    return over && !failed && !current.fields.rolledBackAt ? current.behaviour.brings : current.behaviour.replaces;
  }

  /** Behaviour mode's draw for one message, from the stream of this Claw, release and question. */
  private drawBehaviour(
    claw: SimClaw,
    text: string,
    now: number,
  ): { reply: string; ms: number; fails: boolean } | undefined {
    const release = this.liveBehaviour(claw.id, now);
    if (!release) return undefined;
    const stream = `${claw.id}\n${release.key}\n${text}`;
    let draws = this.behaving.get(stream);
    if (!draws) {
      draws = behaving(release.profile, (hashOf(stream) ^ (release.profile.seed ?? 1)) | 0);
      this.behaving.set(stream, draws);
    }
    const ms = Math.round(draws.latencyMs());
    const fails = draws.unjudged();
    return { reply: draws.passes(text) ? `PASS: ${text}` : `FAIL: ${text}`, ms, fails };
  }

  private page(plural: string, items: unknown[], query: URLSearchParams): unknown {
    const size = this.options.pageSize;
    // A bare array can carry no cursor; it pages only by Link header.
    if (!size || (this.shape.list === 'array' && this.options.paging !== 'link-header')) {
      return dressList(this.shape, plural, items);
    }
    const byOffset = this.options.paging === 'link' || this.options.paging === 'link-header';
    const start = Number(query.get(byOffset ? 'offset' : 'cursor') ?? '0');
    const next = start + size < items.length ? String(start + size) : undefined;
    const page = dressList(this.shape, plural, items.slice(start, start + size), byOffset ? undefined : next);
    if (this.options.paging === 'link-header' && next) {
      const link = `${this.url}${this.currentPath}?offset=${next}`;
      this.routeHeaders.Link = `<${link}>; rel="next", <${this.url}${this.currentPath}?offset=0>; rel="first"`;
    }
    if (this.options.paging === 'link' && next && typeof page === 'object' && page !== null) {
      return { ...page, links: { next: `${this.url}${this.currentPath}?offset=${next}` } };
    }
    return page;
  }

  /** Adds a team member, as the dashboard would. */
  /** A member; `id` sets the id the service reports (a hostile one, say). */
  addMember(email: string, role: string, status = 'active', id?: string): Fields {
    const memberId = id ?? this.newId('mem');
    const member = dressObject(this.shape, 'member', memberId, status, { email, role });
    this.members.set(memberId, member);
    return member;
  }

  private clawObject(claw: SimClaw, now: number): Fields {
    const current = claw.currentDeploymentId ? this.deployments.get(claw.currentDeploymentId) : undefined;
    const config = structuredClone(claw.config);
    for (const path of this.options.writeOnly ?? []) deletePath(config, path.split('.'));
    const fields: Fields = { ...config, name: claw.name };
    if (this.options.urls) fields.url = `https://dashboard.example.com/claws/${claw.id}`;
    if (current) {
      const status = this.statusOf(current, now);
      if (this.shape.clawDeployment === 'nested')
        fields.deployment = dressObject(this.shape, 'deployment', current.id, status, {});
      else Object.assign(fields, { currentDeploymentId: current.id, deploymentStatus: status });
    }
    return dressObject(this.shape, 'claw', claw.id, claw.status, fields);
  }

  private deploymentObject(deployment: SimDeployment, now: number): Fields {
    const fields: Fields = {
      ...deployment.fields,
      clawId: deployment.clawId,
      createdAt: new Date(deployment.createdAt + (this.options.clockSkewMs ?? 0)).toISOString(),
    };
    if (deployment.strategy) fields.strategy = deployment.strategy;
    if (this.options.timestamps && !this.inProgress(deployment, now)) {
      fields.finishedAt = new Date(this.finalAt(deployment) + (this.options.clockSkewMs ?? 0)).toISOString();
    }
    if (deployment.rollbackOf) fields.rollbackOf = deployment.rollbackOf;
    if (this.options.urls) fields.url = `https://dashboard.example.com/deployments/${deployment.id}`;
    return dressObject(this.shape, 'deployment', deployment.id, this.statusOf(deployment, now), fields);
  }
}

/** RFC 7396: objects merge, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Fields =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Fields) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function deletePath(object: Fields, path: string[]): void {
  const [head, ...rest] = path;
  if (rest.length === 0) delete object[head];
  else if (typeof object[head] === 'object' && object[head] !== null) deletePath(object[head] as Fields, rest);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}
