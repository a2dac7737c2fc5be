// State this action keeps in something it wrote on GitHub (a preview comment, an incident issue),
// sealed: an HMAC-SHA256 over the kind and the state's bytes, keyed from a secret (the
// `state-secret` when set, else the API key) and the repository. Anyone who can edit the comment
// can change the text, but not forge the seal without the secret, so a state that names another
// Claw is seen for what it is and never acted on. The secret never leaves the run: only a MAC
// derived from it is written. A state sealed under the API key still reads once a state-secret is
// set (and is sealed again under it): so the API key can be rotated without orphaning state.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The key a run seals with: the same for every run of this repository with this secret. */
export interface SealKey {
  readonly bytes: Buffer;
  /** Keys whose seals still read, older than `bytes` (the API key's, when a state-secret seals). */
  readonly older?: readonly Buffer[];
}

/** Derives the sealing key; another repository (or another secret) cannot read or forge the seal. */
export function sealKey(secret: string, repository: string): SealKey {
  return { bytes: createHmac('sha256', secret).update(`claw-deploy seal v1\n${repository}`).digest() };
}

/**
 * The key state on GitHub is sealed with: the `state-secret`'s when set (what the API key sealed
 * still reads, so it can be sealed again), else the API key's.
 */
export function stateSealKey(secrets: { stateSecret: string; apiKey: string }, repository: string): SealKey {
  const api = sealKey(secrets.apiKey, repository);
  if (!secrets.stateSecret) return api;
  return { bytes: sealKey(secrets.stateSecret, repository).bytes, older: [api.bytes] };
}

/**
 * The longest payload `readSealed` reads (characters of base64url). A writer checks it before it
 * writes (`sealedFits`): a state that would not read back whole is never written.
 */
export const MAX_SEALED_PAYLOAD = 40_000;
/** A state's body as written: base64url JSON, so it can never end the HTML comment it sits in. */
const PAYLOAD = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_SEALED_PAYLOAD}}$`);
const MAC = /^[A-Za-z0-9_-]{43}$/;

function mac(key: Buffer, kind: string, payload: string): Buffer {
  return createHmac('sha256', key).update(`${kind}\n${payload}`).digest();
}

/** Which of the run's keys `seal` (base64url) is the MAC of `payload` under: 'current', 'older', or none. */
export function checkSeal(key: SealKey, kind: string, payload: string, seal: string): 'current' | 'older' | undefined {
  const given = Buffer.from(seal, 'base64url');
  const holds = (bytes: Buffer): boolean => {
    const expected = mac(bytes, kind, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  if (holds(key.bytes)) return 'current';
  return (key.older ?? []).some(holds) ? 'older' : undefined;
}

const prefix = (kind: string): string => `<!-- claw-deploy ${kind}: `;

const payloadOf = (state: unknown): string => Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');

/** Whether `state`, sealed, reads back whole: its payload within what `readSealed` reads. */
export function sealedFits(state: unknown): boolean {
  return payloadOf(state).length <= MAX_SEALED_PAYLOAD;
}

/** The hidden marker holding `state`, sealed: `<!-- claw-deploy <kind>: <payload>.<mac> -->`. */
export function sealedMarker(kind: string, state: unknown, key: SealKey): string {
  const payload = payloadOf(state);
  return `${prefix(kind)}${payload}.${mac(key.bytes, kind, payload).toString('base64url')} -->`;
}

/** `older`: sealed under an older key of the run (write it again to seal it under the current one). */
export type Unsealed =
  { found: false } | { found: true; state: unknown; older?: true } | { found: true; problem: string };

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
  const holds = checkSeal(key, kind, payload, seal);
  if (!holds) {
    return {
      found: true,
      problem: key.older
        ? 'the seal does not match (the state was edited, or sealed with another key)'
        : 'the seal does not match (the state was edited, or sealed with another key: set state-secret before rotating the API key)',
    };
  }
  try {
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    return holds === 'older' ? { found: true, state, older: true } : { found: true, state };
  } catch {
    return { found: true, problem: 'the state is not JSON' };
  }
}
