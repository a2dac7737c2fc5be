// Tolerant readers for response shapes the spec does not show. Each accepts every plausible
// reading named in DESIGN.md and returns undefined rather than guessing.
import { clip } from '../format.js';
import { httpUrl } from '../identifiers.js';

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

/** A timestamp field as epoch milliseconds: ISO text, epoch seconds or epoch milliseconds. */
export function readTime(object: Json | undefined, keys: string[]): number | undefined {
  if (!object) return undefined;
  for (const key of keys) {
    const value = object[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value > 1e12 ? value : value * 1000;
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

/** Where the next page is: a cursor or a link, in the places list APIs put them. */
export function readNextPage(body: unknown): { cursor?: string; url?: string } | undefined {
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

/** Describes a body in one short line for messages: status and what arrived. */
export function describeBody(body: unknown, max = 200): string {
  if (body === undefined) return 'an empty body';
  const json = JSON.stringify(body) ?? String(body);
  return json.length > max ? `${json.slice(0, max)}…` : json;
}
