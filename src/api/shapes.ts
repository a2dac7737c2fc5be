// Tolerant readers for response shapes the spec does not show. Each accepts every plausible
// reading named in DESIGN.md and returns undefined rather than guessing.
import { clip } from '../shared/format.js';
import { httpUrl } from '../shared/identifiers.js';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function camel(resource: string): string {
  return resource.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
}

/**
 * The resource object in a response: bare, `{"data": {...}}`, `{"<resource>": {...}}`, or the two
 * nested (`{"data": {"deployment": {...}}}`).
 */
export function readObject(body: unknown, resource: string): Json | undefined {
  if (!isObject(body)) return undefined;
  const name = camel(resource);
  for (const key of [name, 'data']) {
    const inner = body[key];
    if (isObject(inner)) return readObject(inner, resource) ?? inner;
  }
  return body;
}

/** The items of a list: a bare array, or under `data`, `items`, `results` or the plural name. */
export function readList(body: unknown, plural: string): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return undefined;
  for (const key of [camel(plural), 'data', 'items', 'results']) {
    const inner = body[key];
    if (Array.isArray(inner)) return inner;
    if (isObject(inner)) {
      const nested = readList(inner, plural);
      if (nested) return nested;
    }
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The id: `id`, `<resource>Id` or `<resource>_id`. */
export function readId(object: Json | undefined, resource: string): string | undefined {
  if (!object) return undefined;
  const name = camel(resource);
  return text(object.id) ?? text(object[`${name}Id`]) ?? text(object[`${resource}_id`]);
}

/** A status word: `status` or `state`, possibly an object holding one (`{"status": {"state": "live"}}`). */
export function readStatus(object: Json | undefined): string | undefined {
  if (!object) return undefined;
  for (const key of ['status', 'state', 'phase']) {
    const value = object[key];
    const word = text(value);
    if (word) return clip(word); // a status is a word; an endless one is cut, not carried around
    if (isObject(value)) {
      const nested = readStatus(value) ?? text(value.name) ?? text(value.value) ?? text(value.code);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** A URL the service offers for the resource, if any. */
export function readUrl(object: Json | undefined): string | undefined {
  if (!object) return undefined;
  for (const key of ['url', 'htmlUrl', 'html_url', 'dashboardUrl', 'dashboard_url', 'webUrl', 'link', 'href']) {
    const value = httpUrl(text(object[key]));
    if (value) return value;
  }
  const links = object.links ?? object._links;
  if (isObject(links)) {
    for (const key of ['html', 'self', 'dashboard']) {
      const link = links[key];
      const value = httpUrl(text(link) ?? (isObject(link) ? text(link.href) : undefined));
      if (value) return value;
    }
  }
  return undefined;
}

/** A timestamp field as epoch milliseconds: ISO text, or epoch seconds or milliseconds (number or digits). */
export function readTime(object: Json | undefined, keys: string[]): number | undefined {
  if (!object) return undefined;
  for (const key of keys) {
    const value = object[key];
    const number =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())
          ? Number(value)
          : NaN;
    // Below 1e9 is neither epoch seconds nor milliseconds of this century: a misread field.
    if (Number.isFinite(number)) {
      if (number >= 1e9) return number > 1e12 ? number : number * 1000;
      continue;
    }
    if (typeof value === 'string') {
      const parsed = Date.parse(value);
      if (!Number.isNaN(parsed)) return parsed;
    }
  }
  return undefined;
}

export function readString(object: Json | undefined, keys: string[]): string | undefined {
  if (!object) return undefined;
  for (const key of keys) {
    const value = text(object[key]);
    if (value) return value;
  }
  return undefined;
}

/** The `rel="next"` target of an RFC 8288 `Link` header: `<url>; rel="next", <url>; rel="last"`. */
export function readLinkNext(linkHeader: string | undefined): string | undefined {
  if (!linkHeader) return undefined;
  for (const match of linkHeader.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";,]+)"?/i.exec(match[2])?.[1];
    if (rel?.toLowerCase().split(/\s+/).includes('next')) return match[1].trim() || undefined;
  }
  return undefined;
}

/** Where the next page is: a `Link` header, or a cursor or link in the places list APIs put them. */
export function readNextPage(body: unknown, linkHeader?: string): { cursor?: string; url?: string } | undefined {
  const linked = readLinkNext(linkHeader);
  if (linked) return { url: linked };
  if (!isObject(body)) return undefined;
  const places: Json[] = [body];
  for (const key of ['meta', 'pagination', 'paging', 'page', 'links', '_links']) {
    if (isObject(body[key])) places.push(body[key]);
  }
  for (const place of places) {
    for (const key of ['nextCursor', 'next_cursor', 'cursor']) {
      const cursor = text(place[key]);
      if (cursor) return { cursor };
    }
    const next = place.next ?? place.nextUrl ?? place.next_url ?? place.nextPage;
    const link = text(next) ?? (isObject(next) ? text(next.href) : undefined);
    if (link && (link.includes('/') || link.includes('?'))) return { url: link };
    if (link && typeof next === 'string') return { cursor: link };
  }
  return undefined;
}

const BLOCKING_KEYS = [
  'deploymentId',
  'deployment_id',
  'currentDeploymentId',
  'current_deployment_id',
  'activeDeploymentId',
  'blockingDeploymentId',
  'conflictingDeploymentId',
  'inProgressDeploymentId',
];

/**
 * The deployment a conflict error names, if it names one: an id field in the error object, its
 * `details`/`meta`, or the body itself, or a nested `deployment` object. The spec shows none.
 */
export function readBlockingId(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const places: Json[] = [];
  const add = (value: unknown): void => {
    if (isObject(value)) places.push(value);
  };
  add(body.error);
  if (isObject(body.error)) for (const key of ['details', 'detail', 'meta', 'data']) add(body.error[key]);
  add(body);
  for (const key of ['details', 'meta', 'data']) add(body[key]);
  for (const place of places) {
    const id = readString(place, BLOCKING_KEYS);
    if (id) return id;
    for (const key of ['deployment', 'currentDeployment', 'conflictingDeployment', 'blockingDeployment']) {
      const nested = place[key];
      const nestedId = isObject(nested) ? readId(nested, 'deployment') : undefined;
      if (nestedId) return nestedId;
    }
  }
  return undefined;
}

/** Describes a body in one short line for messages: status and what arrived. */
export function describeBody(body: unknown, max = 200): string {
  if (body === undefined) return 'an empty body';
  const json = JSON.stringify(body) ?? String(body);
  return json.length > max ? `${json.slice(0, max)}…` : json;
}

// --- chat answers ------------------------------------------------------------------------------

/** Where a reply's text may sit, best first. Keys that echo what was sent (`input`, `request`,
 * `prompt`, …) are never read; a `message` string only when it differs from what was sent. */
const REPLY_KEYS = ['reply', 'response', 'answer', 'output', 'content', 'text', 'completion', 'result', 'body'];
/** Objects and lists that may hold the reply further down. */
const CONTAINER_KEYS = ['data', 'message', 'messages', 'choices', 'reply', 'response', 'result'];
const FROM_CLAW = /assistant|claw|agent|bot|model/i;
const FROM_SENDER = /user|human|client|sender/i;

/** The speaker a message names: the fields services use to mark who wrote it. */
function roleOf(value: Json): string {
  return String(value.role ?? value.sender ?? value.from ?? value.author ?? value.speaker ?? '');
}

/**
 * The Claw's reply in a chat answer or a finished task, wherever a plausible shape keeps it; never
 * the text that was sent (`sent`), which answers may echo beside the reply, unless the answer
 * marks that text as the Claw's own (`{"role": "assistant", "content": …}`): a Claw asked to
 * repeat a phrase answers with the phrase.
 */
export function readReply(value: unknown, sent?: string, depth = 0, marked = false): string | undefined {
  const isEcho = (text: string): boolean => !marked && sent !== undefined && text.trim() === sent.trim();
  if (typeof value === 'string') return value.trim() === '' || isEcho(value) ? undefined : value;
  if (depth > 6) return undefined;
  if (Array.isArray(value)) {
    // A list of messages: the last one from the Claw, or the last that is not the sender's.
    const objects = value.filter(isObject);
    const fromClaw = objects.filter((m) => FROM_CLAW.test(roleOf(m)));
    const candidates = fromClaw.length ? fromClaw : value.filter((m) => !isObject(m) || !FROM_SENDER.test(roleOf(m)));
    for (const item of [...candidates].reverse()) {
      const text = readReply(item, sent, depth + 1, marked);
      if (text) return text;
    }
    return undefined;
  }
  if (!isObject(value) || FROM_SENDER.test(roleOf(value))) return undefined;
  const mine = marked || FROM_CLAW.test(roleOf(value));
  for (const key of REPLY_KEYS) {
    const text = readReply(value[key], sent, depth + 1, mine);
    if (text) return text;
  }
  for (const key of CONTAINER_KEYS) {
    const inner = value[key];
    if (typeof inner === 'object' && inner !== null) {
      const text = readReply(inner, sent, depth + 1, mine);
      if (text) return text;
    }
  }
  // A bare `message` string is the reply only when it is not the text that was sent.
  return typeof value.message === 'string' ? readReply(value.message, sent, depth + 1, mine) : undefined;
}

/** Whether the answer holds the text that was sent (an echo), wherever it is. */
export function echoes(value: unknown, sent: string, depth = 0): boolean {
  if (typeof value === 'string') return value.trim() === sent.trim();
  if (depth > 6 || typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((v) => echoes(v, sent, depth + 1));
}

/** A chat answer: the reply when it came at once, or the task to poll for it. */
export interface ChatAnswer {
  taskId?: string;
  reply?: string;
  raw: Json;
}

export function readChatAnswer(body: unknown, sent: string): ChatAnswer {
  // The whole answer, not `readObject(body, 'message')`: in `{"message": <what was sent>, "reply":
  // …}` the `message` object is the echo, and unwrapping it would lose the reply beside it.
  const raw = isObject(body) ? body : {};
  const taskId = readTaskId(raw);
  return { taskId, reply: taskId ? undefined : readReply(raw, sent), raw };
}

/** A task id in a chat answer: top level, in a `task` object, or under `data`/`message`. */
function readTaskId(object: Json, depth = 0): string | undefined {
  const task = object.task;
  const id =
    readString(object, ['taskId', 'task_id']) ?? (isObject(task) ? readString(task, ['id', 'taskId']) : undefined);
  if (id || depth > 2) return id;
  for (const key of ['data', 'message']) {
    const inner = object[key];
    const nested = isObject(inner) ? readTaskId(inner, depth + 1) : undefined;
    if (nested) return nested;
  }
  return undefined;
}
