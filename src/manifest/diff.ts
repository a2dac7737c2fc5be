// A Claw's declared config against what the service returns, as a JSON merge patch (RFC 7396):
// declared keys are set, `null` removes a key, undeclared keys are never touched, nested objects
// merge, arrays replace. Values from the environment, and values under keys that look secret,
// are masked wherever they are shown; a secret the service does not return cannot be compared.
import type { Json } from '../api/shapes.js';
import { type ConfigObject, type ConfigValue, type EnvSecret, isEnvSecret } from './manifest.js';

/** What masked values show as. */
export const MASK = '***';

/** Keys whose values are secrets, wherever they sit: token, secret, password, api key, credential, private key. */
const SECRET_KEY = /token|secret|passw(or)?d|api[-_ ]?key|credential|private[-_ ]?key/i;

export function looksSecret(key: string): boolean {
  return SECRET_KEY.test(key);
}

export interface ConfigChange {
  /** Keys from the Claw's top down: `personality.tone` is ['personality', 'tone']. */
  path: string[];
  /** `write-only`: a secret from the environment, sent but never compared (not drift, not counted). */
  action: 'add' | 'remove' | 'change' | 'write-only';
  /** As shown: masked when secret. */
  before?: unknown;
  after?: unknown;
}

export interface ConfigDiff {
  /** The changes that count: what apply's patch changes. */
  changes: ConfigChange[];
  /** Secrets from the environment: sent with a patch of the Claw (or always, to rotate them). */
  writeOnly: ConfigChange[];
  /** The merge patch of the changes, with the real values; undefined when nothing changes. */
  patch?: Json;
  /** The merge patch of the write-only secrets (EnvSecret leaves, resolved when sent). */
  secrets?: Json;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isEnvSecret(value);
}

function setPath(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1]] = value;
}

/** JSON equality, key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** A value as shown: secrets (by key, or from the environment) masked, all the way down. */
export function masked(value: unknown, secret = false): unknown {
  if (secret || isEnvSecret(value)) return MASK;
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, looksSecret(k))]));
  }
  return value;
}

/** The declared value with environment secrets put in, for a write. */
export function resolved(value: unknown): unknown {
  if (isEnvSecret(value)) return (value as EnvSecret).value;
  if (Array.isArray(value)) return value.map(resolved);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolved(v)]));
  return value;
}

export function diffConfig(declared: ConfigObject, current: Json): ConfigDiff {
  const diff: ConfigDiff = { changes: [], writeOnly: [] };
  const patch: Json = {};
  const secrets: Json = {};
  const walk = (want: ConfigObject, have: Record<string, unknown>, path: string[], secret: boolean): void => {
    for (const [key, value] of Object.entries(want)) {
      const at = [...path, key];
      const isSecret = secret || looksSecret(key);
      const has = Object.hasOwn(have, key) && have[key] !== undefined;
      const before = has ? masked(have[key], isSecret) : undefined;
      if (isEnvSecret(value)) {
        diff.writeOnly.push({ path: at, action: 'write-only', after: MASK });
        setPath(secrets, at, value);
      } else if (value === null) {
        if (has) {
          diff.changes.push({ path: at, action: 'remove', before });
          setPath(patch, at, null);
        }
      } else if (isPlainObject(value)) {
        // Nested objects merge; over a value that is not an object, the object replaces it (RFC 7396).
        walk(value as ConfigObject, isPlainObject(have[key]) ? have[key] : {}, at, isSecret);
      } else if (!has || !sameJson(have[key], value)) {
        diff.changes.push({ path: at, action: has ? 'change' : 'add', before, after: masked(value, isSecret) });
        setPath(patch, at, resolved(value as ConfigValue));
      }
    }
  };
  walk(declared, current, [], false);
  if (diff.changes.length > 0) diff.patch = patch;
  if (diff.writeOnly.length > 0) diff.secrets = secrets;
  return diff;
}

/** The patch apply sends: the changes, plus the write-only secrets when they go along. */
export function patchToSend(diff: ConfigDiff, withSecrets: boolean): Json | undefined {
  if (!diff.patch && !(withSecrets && diff.secrets)) return undefined;
  const body: Json = structuredClone(diff.patch ?? {});
  if (withSecrets && diff.secrets) mergeInto(body, resolved(diff.secrets) as Json);
  return body;
}

function mergeInto(target: Json, source: Json): void {
  for (const [key, value] of Object.entries(source)) {
    if (isPlainObject(value) && isPlainObject(target[key])) mergeInto(target[key] as Json, value);
    else target[key] = value;
  }
}
