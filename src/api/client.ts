// A typed method for every endpoint in part 4 of the spec, all on one transport. Methods return
// the fields the action reads, read tolerantly, plus the raw object for everything else.
import { randomUUID } from 'node:crypto';
import { clip } from '../shared/format.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';
import { ApiError, ConflictError, readErrorEnvelope } from './errors.js';
import {
  type ChatAnswer,
  type Json,
  describeBody,
  isObject,
  readId,
  readChatAnswer,
  readList,
  readNextPage,
  readBlockingId,
  readObject,
  readStatus,
  readString,
  readTime,
  readUrl,
} from './shapes.js';
import type { ApiRequest, ApiResponse, ExchangeTiming, Transport } from './transport.js';

export interface Deployment {
  id: string;
  status?: string;
  clawId?: string;
  url?: string;
  createdAt?: number;
  raw: Json;
}

export interface Claw {
  id: string;
  name?: string;
  /** The Claw's own status field, if it has one. */
  status?: string;
  deploymentId?: string;
  /** Its current deployment's status. */
  deploymentStatus?: string;
  url?: string;
  raw: Json;
}

export interface Task {
  id: string;
  status?: string;
  raw: Json;
  /** When the read that saw this status went on the wire and came back. */
  timing?: ExchangeTiming;
}

/** A chat answer, with when the message went on the wire and when the answer came back. */
export type SentMessage = ChatAnswer & { timing?: ExchangeTiming };

/** Options every call takes: a deadline for retries and waits, and cancellation. */
export interface CallOptions {
  deadline?: number;
  signal?: AbortSignal;
}

export interface TriggerInput {
  clawId: string;
  strategy?: string;
  payload?: Json;
}

const MAX_PAGES = 100;

export class AmsClient {
  constructor(readonly transport: Transport) {}

  /** Closes the connections kept alive between requests. */
  close(): void {
    this.transport.close();
  }

  // --- Claws -------------------------------------------------------------------------------

  /**
   * Every Claw of the workspace. With `unusable`, a Claw whose id cannot be used (a '/' in it) is
   * left out and its id, clipped, added there; without it, such an id fails the whole list.
   */
  async listClaws(options: CallOptions & { unusable?: string[] } = {}): Promise<Claw[]> {
    const { unusable, ...call } = options;
    const items = await this.listAll(
      { method: 'GET', route: '/claws', scope: 'claws:read', what: 'the list of Claws', ...call },
      'claws',
    );
    const claws: Claw[] = [];
    for (const item of items) {
      const object = readObject(item, 'claw');
      const id = readId(object, 'claw');
      if (unusable && id !== undefined && !isValidId(id)) unusable.push(clip(id, 80));
      else claws.push(toClaw(object));
    }
    return claws;
  }

  async getClaw(id: string, options: CallOptions = {}): Promise<Claw> {
    const res = await this.call({
      method: 'GET',
      route: '/claws/:id',
      params: { id },
      scope: 'claws:read',
      what: `Claw "${id}"`,
      ...options,
    });
    return toClaw(expectObject(res, 'claw', `GET /v1/claws/${id}`), id);
  }

  async createClaw(fields: Json, options: CallOptions = {}): Promise<Claw> {
    const res = await this.call({
      method: 'POST',
      route: '/claws',
      body: fields,
      scope: 'claws:write',
      what: 'the Claws collection',
      ...options,
    });
    return toClaw(expectObject(res, 'claw', 'POST /v1/claws'));
  }

  async updateClaw(id: string, fields: Json, options: CallOptions = {}): Promise<Claw> {
    const res = await this.call({
      method: 'PATCH',
      route: '/claws/:id',
      params: { id },
      body: fields,
      scope: 'claws:write',
      what: `Claw "${id}"`,
      ...options,
    });
    return toClaw(readObject(res.body, 'claw') ?? {}, id);
  }

  async deleteClaw(id: string, options: CallOptions = {}): Promise<void> {
    await this.call({
      method: 'DELETE',
      route: '/claws/:id',
      params: { id },
      scope: 'claws:write',
      what: `Claw "${id}"`,
      ...options,
    });
  }

  // --- Deployments -------------------------------------------------------------------------

  /** Recent deployments; `clawId` filters on our side, since the spec shows no query parameters. */
  async listDeployments({ clawId, ...options }: CallOptions & { clawId?: string } = {}): Promise<Deployment[]> {
    const items = await this.listAll(
      { method: 'GET', route: '/deployments', scope: 'deployments:read', what: 'the list of deployments', ...options },
      'deployments',
    );
    const deployments = items.map(listedDeployment).filter((d): d is Deployment => d !== undefined);
    return clawId === undefined ? deployments : deployments.filter((d) => d.clawId === clawId);
  }

  /**
   * The deployments `ids` as the recent list shows them: one request for a whole round of polls.
   * Further pages only while some id is still unseen, `maxPages` at most. `statuses` says whether
   * the list's entries carry a status at all (if not, only per-id reads can tell); `firstPage` is
   * the recent list itself, which also serves as the history.
   */
  async findDeployments(
    ids: string[],
    { maxPages = 3, ...options }: CallOptions & { maxPages?: number } = {},
  ): Promise<{ found: Map<string, Deployment>; statuses: boolean; firstPage: Deployment[] }> {
    const wanted = new Set(ids);
    const found = new Map<string, Deployment>();
    let statuses = false;
    let firstPage: Deployment[] | undefined;
    const request = deploymentsList(options);
    for await (const page of this.pages(request, 'deployments', maxPages)) {
      const deployments = page.map(listedDeployment).filter((d): d is Deployment => d !== undefined);
      firstPage ??= deployments;
      for (const deployment of deployments) {
        if (deployment.status !== undefined) statuses = true;
        if (wanted.has(deployment.id)) found.set(deployment.id, deployment);
      }
      if (found.size === wanted.size) break;
    }
    return { found, statuses, firstPage: firstPage ?? [] };
  }

  /**
   * The first page of recent deployments, in one attempt of at most `timeoutMs`: a read that only
   * saves work must never cost more than itself.
   */
  async recentDeployments({ timeoutMs, ...options }: CallOptions & { timeoutMs: number }): Promise<Deployment[]> {
    const request: ApiRequest = {
      method: 'GET',
      route: '/deployments',
      scope: 'deployments:read',
      what: 'the list of deployments',
      once: { timeoutMs },
      ...options,
    };
    for await (const page of this.pages(request, 'deployments', 1)) {
      return page.map(listedDeployment).filter((d): d is Deployment => d !== undefined);
    }
    return [];
  }

  /**
   * A Claw's newest deployments as the service lists them, page by page as it pages: at most
   * `limit` of them from at most `maxPages` pages (the spec shows no filter, so other Claws'
   * entries are read and passed over). `more`: the read stopped before the list's end (at the
   * limit, or the page bound with a next page), so older deployments may not be listed.
   */
  async clawDeployments(
    clawId: string,
    { limit, maxPages, ...options }: CallOptions & { limit: number; maxPages: number },
  ): Promise<{ deployments: Deployment[]; pages: number; more: boolean }> {
    const request = deploymentsList(options);
    const deployments: Deployment[] = [];
    let pages = 0;
    let more = false;
    for await (const page of this.pages(request, 'deployments', maxPages, () => (more = true))) {
      pages += 1;
      for (const d of page.map(listedDeployment)) {
        if (d?.clawId === clawId && deployments.length < limit) deployments.push(d);
      }
      if (deployments.length === limit) {
        more = true;
        break;
      }
    }
    return { deployments, pages, more };
  }

  async getDeployment(id: string, options: CallOptions = {}): Promise<Deployment> {
    const res = await this.call({
      method: 'GET',
      route: '/deployments/:id',
      params: { id },
      scope: 'deployments:read',
      what: `deployment "${id}"`,
      ...options,
    });
    return toDeployment(expectObject(res, 'deployment', `GET /v1/deployments/${id}`), id) as Deployment;
  }

  /**
   * Triggers a deployment exactly once. Every retry carries the same Idempotency-Key, and before
   * sending again after a lost response it looks for a deployment of this Claw created since the
   * first attempt, so a service that ignores the key still gets one trigger.
   */
  async triggerDeployment(input: TriggerInput, options: CallOptions = {}): Promise<Deployment> {
    const body: Json = { ...input.payload, clawId: input.clawId };
    if (input.strategy) body.strategy = input.strategy;
    const sentAt = this.transport.localNow();
    const idempotencyKey = randomUUID();
    const recover = async (): Promise<ApiResponse | undefined> => {
      const found = await this.findTriggered(input.clawId, sentAt, idempotencyKey, options);
      return found ? { status: 200, body: found.raw, headers: {} } : undefined;
    };
    const res = await this.call({
      method: 'POST',
      route: '/deployments',
      body,
      scope: 'deployments:write',
      what: `Claw "${input.clawId}"`,
      idempotencyKey,
      recover,
      ...options,
    }).catch((err: unknown) => {
      // A 409 means the Claw is busy, whatever code word the service uses (the spec lists none).
      if (err instanceof ApiError && err.status === 409) throw conflictOf(err, input.clawId);
      throw err;
    });
    const deployment = toDeployment(expectObject(res, 'deployment', 'POST /v1/deployments'));
    if (!deployment) throw unreadable('POST /v1/deployments', 'a deployment id', res);
    return { ...deployment, clawId: deployment.clawId ?? input.clawId };
  }

  /** A deployment of this Claw that our lost trigger created, if the list shows one. */
  private async findTriggered(
    clawId: string,
    sentAt: number,
    idempotencyKey: string,
    options: CallOptions,
  ): Promise<Deployment | undefined> {
    const mine = await this.listDeployments({ ...options, clawId });
    const echoed = mine.find((d) => Object.values(d.raw).includes(idempotencyKey));
    if (echoed) return echoed;
    // On the service's clock, now that the list's Date header has told us its offset; Date
    // headers have one-second resolution, so allow two.
    const since = this.transport.toServerTime(sentAt) - 2000;
    const recent = mine.filter((d) => d.createdAt !== undefined && d.createdAt >= since);
    return recent.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0];
  }

  /** Rolls a deployment back. The answer is the rollback's deployment or the original one. */
  async rollbackDeployment(id: string, options: CallOptions = {}): Promise<Deployment | undefined> {
    const recover = async (): Promise<ApiResponse | undefined> => {
      // A rollback that took effect shows on the original deployment.
      const current = await this.getDeployment(id, options);
      return /roll/i.test(current.status ?? '') ? { status: 200, body: current.raw, headers: {} } : undefined;
    };
    const res = await this.call({
      method: 'POST',
      route: '/deployments/:id/rollback',
      params: { id },
      body: {},
      scope: 'deployments:write',
      what: `deployment "${id}"`,
      recover,
      ...options,
    });
    return toDeployment(readObject(res.body, 'deployment'));
  }

  // --- Skills ------------------------------------------------------------------------------

  async listSkills(clawId: string, options: CallOptions = {}): Promise<Json[]> {
    const items = await this.listAll(
      {
        method: 'GET',
        route: '/claws/:id/skills',
        params: { id: clawId },
        scope: 'skills:read',
        what: `Claw "${clawId}"`,
        ...options,
      },
      'skills',
      { complete: true },
    );
    return items.filter(isObject);
  }

  async installSkill(clawId: string, skillId: string, fields: Json = {}, options: CallOptions = {}): Promise<Json> {
    const res = await this.call({
      method: 'POST',
      route: '/claws/:id/skills',
      params: { id: clawId },
      body: { ...fields, skillId },
      scope: 'skills:write',
      what: `Claw "${clawId}"`,
      ...options,
    });
    return readObject(res.body, 'skill') ?? { skillId };
  }

  async removeSkill(clawId: string, skillId: string, options: CallOptions = {}): Promise<void> {
    await this.call({
      method: 'DELETE',
      route: '/claws/:id/skills/:skillId',
      params: { id: clawId, skillId },
      scope: 'skills:write',
      what: `skill "${skillId}" on Claw "${clawId}"`,
      ...options,
    });
  }

  // --- Team --------------------------------------------------------------------------------

  async listMembers(options: CallOptions = {}): Promise<Json[]> {
    const items = await this.listAll(
      { method: 'GET', route: '/team/members', scope: 'team:read', what: 'the list of team members', ...options },
      'members',
      { complete: true },
    );
    return items.filter(isObject);
  }

  async inviteMember(fields: Json, options: CallOptions = {}): Promise<Json> {
    const res = await this.call({
      method: 'POST',
      route: '/team/members',
      body: fields,
      scope: 'team:write',
      what: 'the team',
      ...options,
    });
    return readObject(res.body, 'member') ?? {};
  }

  async updateMemberRole(id: string, role: string, options: CallOptions = {}): Promise<Json> {
    const res = await this.call({
      method: 'PATCH',
      route: '/team/members/:id',
      params: { id },
      body: { role },
      scope: 'team:write',
      what: `team member "${id}"`,
      ...options,
    });
    return readObject(res.body, 'member') ?? {};
  }

  async removeMember(id: string, options: CallOptions = {}): Promise<void> {
    await this.call({
      method: 'DELETE',
      route: '/team/members/:id',
      params: { id },
      scope: 'team:write',
      what: `team member "${id}"`,
      ...options,
    });
  }

  // --- Chat and tasks ----------------------------------------------------------------------

  /** Sends a message; the answer holds the Claw's reply (never the echo of `message`), or a task to poll. */
  async sendMessage(clawId: string, message: string, options: CallOptions = {}): Promise<SentMessage> {
    const res = await this.call({
      method: 'POST',
      route: '/chat/:clawId/messages',
      params: { clawId },
      body: { message },
      scope: 'chat:write',
      what: `Claw "${clawId}"`,
      // Conversations come in bursts (checks on four Claws at once): they never spend the reserve.
      keepReserve: true,
      ...options,
    });
    return { ...readChatAnswer(res.body, message), timing: res.timing };
  }

  async getHistory(clawId: string, options: CallOptions = {}): Promise<Json[]> {
    const items = await this.listAll(
      {
        method: 'GET',
        route: '/chat/:clawId/messages',
        params: { clawId },
        scope: 'chat:read',
        what: `Claw "${clawId}"`,
        ...options,
      },
      'messages',
    );
    return items.filter(isObject);
  }

  async getTask(taskId: string, options: CallOptions = {}): Promise<Task> {
    const res = await this.call({
      method: 'GET',
      route: '/tasks/:taskId',
      params: { taskId },
      scope: 'the task endpoint’s scope (not given by the spec; likely chat:read)',
      what: `task "${taskId}"`,
      keepReserve: true,
      ...options,
    });
    const object = expectObject(res, 'task', `GET /v1/tasks/${taskId}`);
    const id = readId(object, 'task');
    return {
      id: id === undefined ? taskId : checkedId(id, 'a task'),
      status: readStatus(object),
      raw: object,
      timing: res.timing,
    };
  }

  // --- Plumbing ----------------------------------------------------------------------------

  private call(request: ApiRequest): Promise<ApiResponse> {
    return this.transport.request(request);
  }

  /**
   * Every item of a list, following a next cursor or link for as long as there is one. With
   * `complete`, a list longer than MAX_PAGES pages is an error rather than cut short: what is
   * pruned from it must be the whole list.
   */
  private async listAll(request: ApiRequest, plural: string, { complete = false } = {}): Promise<unknown[]> {
    const items: unknown[] = [];
    let pages = 0;
    let more = false;
    for await (const page of this.pages(request, plural, MAX_PAGES, () => (more = true))) {
      items.push(...page);
      pages += 1;
    }
    if (complete && more && pages >= MAX_PAGES) {
      throw new ApiError(
        `${request.method} /v1${request.route}: more than ${MAX_PAGES} pages; the list could not be read completely.`,
        'unreadable',
      );
    }
    return items;
  }

  /** A list's pages, one at a time: the caller may stop early. */
  private async *pages(
    request: ApiRequest,
    plural: string,
    maxPages: number,
    onMore?: () => void,
  ): AsyncGenerator<unknown[]> {
    let page: ApiRequest = request;
    for (let n = 0; n < maxPages; n++) {
      const res = await this.call(page);
      const list = readList(res.body, plural);
      if (!list) throw unreadable(`${request.method} /v1${request.route}`, `a list of ${plural}`, res);
      yield list;
      const link = res.headers.link;
      const next = readNextPage(res.body, Array.isArray(link) ? link.join(', ') : link);
      if (!next || list.length === 0) return;
      if (n === maxPages - 1) onMore?.();
      page = next.url
        ? { ...request, url: next.url }
        : { ...request, query: { ...request.query, cursor: next.cursor } };
    }
  }
}

/** A 409 on a trigger as a ConflictError naming the deployment in the way, when the error names a usable one. */
function conflictOf(err: ApiError, clawId: string): ConflictError {
  const said = readErrorEnvelope(err.body)?.message;
  return new ConflictError(
    `Claw "${clawId}" already has a deployment in progress (409 on POST /v1/deployments).${said ? ` The service said: ${said}` : ''}`,
    usableId(readBlockingId(err.body)),
    err.body,
  );
}

/** A list entry as a deployment; an entry whose id is not usable is skipped, not fatal. */
function listedDeployment(item: unknown): Deployment | undefined {
  try {
    return toDeployment(readObject(item, 'deployment'));
  } catch (err) {
    if (err instanceof ApiError) return undefined;
    throw err;
  }
}

function expectObject(res: ApiResponse, resource: string, label: string): Json {
  const object = readObject(res.body, resource);
  if (!object) throw unreadable(label, `a ${resource} object`, res);
  return object;
}

/** What arrived, for a response that cannot be read: its status and the first 500 characters. */
function unreadable(label: string, expected: string, res: ApiResponse): ApiError {
  return new ApiError(
    `${label} answered ${res.status} with ${describeBody(res.body, 500)}; expected ${expected}.`,
    'unreadable',
  );
}

/**
 * An id the service returned, checked as input ids are before it goes into a path or an output:
 * `..` or `a/b` would address something else, and control characters would reach the log.
 */
export function checkedId(id: string, what: string): string {
  if (isValidId(id)) return id;
  throw new ApiError(
    `The service returned ${what} id ${JSON.stringify(clip(id, 80))}, which is not used: expected ${ID_EXPECTED}.`,
    'unreadable',
  );
}

/** An optional id: kept when usable, dropped otherwise (it only ever narrows a match). */
function usableId(id: string | undefined): string | undefined {
  return id !== undefined && isValidId(id) ? id : undefined;
}

export function toDeployment(object: Json | undefined, fallbackId?: string): Deployment | undefined {
  if (!object) return undefined;
  const found = readId(object, 'deployment');
  const id = found === undefined ? fallbackId : checkedId(found, 'a deployment');
  if (!id) return undefined;
  const claw = object.claw;
  return {
    id,
    status: readStatus(object),
    clawId: usableId(
      readString(object, ['clawId', 'claw_id']) ??
        (isObject(claw) ? readId(claw, 'claw') : readString(object, ['claw'])),
    ),
    url: readUrl(object),
    createdAt: readTime(object, ['createdAt', 'created_at', 'created', 'startedAt', 'started_at', 'timestamp']),
    raw: object,
  };
}

/** A Claw and its current deployment, wherever the response keeps it. */
export function toClaw(item: unknown, fallbackId?: string): Claw {
  const object = isObject(item) ? item : {};
  let deployment: Json | undefined;
  for (const key of ['deployment', 'currentDeployment', 'current_deployment', 'latestDeployment', 'activeDeployment']) {
    if (isObject(object[key])) deployment = object[key];
  }
  const id = readId(object, 'claw');
  const deploymentId =
    readId(deployment, 'deployment') ??
    readString(object, ['currentDeploymentId', 'current_deployment_id', 'deploymentId', 'deployment_id']) ??
    (typeof object.deployment === 'string' ? object.deployment : undefined);
  return {
    id: id === undefined ? (fallbackId ?? '') : checkedId(id, 'a Claw'),
    name: readString(object, ['name', 'displayName']),
    status: readStatus(object),
    deploymentId: deploymentId === undefined ? undefined : checkedId(deploymentId, 'a deployment'),
    deploymentStatus:
      readStatus(deployment) ??
      readString(object, ['deploymentStatus', 'deployment_status', 'currentDeploymentStatus']),
    url: readUrl(object),
    raw: object,
  };
}

/** `GET /v1/deployments`: the list every reader of it pages through. */
function deploymentsList(options: CallOptions): ApiRequest {
  return {
    method: 'GET',
    route: '/deployments',
    scope: 'deployments:read',
    what: 'the list of deployments',
    ...options,
  };
}
