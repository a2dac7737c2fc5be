// State this action keeps in something it wrote on GitHub (a preview comment, an incident issue),
// sealed: an HMAC-SHA256 over the kind and the state's bytes, keyed from the API key and the
// repository. Anyone who can edit the comment can change the text, but not forge the seal without
// the key, so a state that names another Claw is seen for what it is and never acted on. The key
// never leaves the run: only a MAC derived from it is written.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The key a run seals with: the same for every run of this repository with this API key. */
export interface SealKey {
  readonly bytes: Buffer;
}

/** Derives the sealing key; another repository (or another API key) cannot read or forge the seal. */
export function sealKey(apiKey: string, repository: string): SealKey {
  return { bytes: createHmac('sha256', apiKey).update(`claw-deploy seal v1\n${repository}`).digest() };
}

/** A state's body as written: base64url JSON, so it can never end the HTML comment it sits in. */
const PAYLOAD = /^[A-Za-z0-9_-]{1,40000}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

function mac(key: SealKey, kind: string, payload: string): Buffer {
  return createHmac('sha256', key.bytes).update(`${kind}\n${payload}`).digest();
}

const prefix = (kind: string): string => `<!-- claw-deploy ${kind}: `;

/** The hidden marker holding `state`, sealed: `<!-- claw-deploy <kind>: <payload>.<mac> -->`. */
export function sealedMarker(kind: string, state: unknown, key: SealKey): string {
  const payload = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
  return `${prefix(kind)}${payload}.${mac(key, kind, payload).toString('base64url')} -->`;
}

export type Unsealed = { found: false } | { found: true; state: unknown } | { found: true; problem: string };

/**
 * The state sealed in `body` under `kind`, or why it cannot be trusted. Absent: `found: false`.
 * Only a state whose seal checks out is parsed at all.
 */
export function readSealed(body: string, kind: string, key: SealKey): Unsealed {
  const start = body.indexOf(prefix(kind));
  if (start < 0) return { found: false };
  const end = body.indexOf(' -->', start);
  const sealed = body.slice(start + prefix(kind).length, end < 0 ? undefined : end);
  const [payload, seal, ...rest] = sealed.split('.');
  if (rest.length > 0 || !PAYLOAD.test(payload ?? '') || !MAC.test(seal ?? '')) {
    return { found: true, problem: 'the state is not sealed (it was written by an older version or edited)' };
  }
  const expected = mac(key, kind, payload);
  const given = Buffer.from(seal, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { found: true, problem: 'the seal does not match (the state was edited, or sealed with another key)' };
  }
  try {
    return { found: true, state: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown };
  } catch {
    return { found: true, problem: 'the state is not JSON' };
  }
}
