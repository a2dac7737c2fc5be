// A gate's saved run: the checks' every attempt on the version a deploy left live, kept in the
// history store (sealed there by health/saved-runs.ts) so that the next deploy of the Claw compares
// with it and asks the live Claw nothing (`baseline: saved`). It is evidence of the live version
// only when nothing it rests on changed: the same checks and judges (hashes), the Claw still on the
// deployment it was run on with the same configuration, and younger than SAVED_RUN_MAX_AGE_MS.
// Read back as untrusted text: bounded in bytes, parsed as JSON in linear time, every field checked
// by what is allowed; any mistake refuses the whole run (the gate asks the live Claw instead).
import { createHash } from 'node:crypto';
import { isValidId } from '../shared/identifiers.js';
import type { CheckSuite } from './check.js';
import { MAX_CHECKS, MAX_REPEAT } from './check.js';
import { judgeIdentity } from './judge-spec.js';
import type { JudgeSpec } from './judge-spec.js';
import { savedEntry, savedSample } from './baseline-file.js';
import type { CheckEntry } from './result.js';

/** The oldest saved run a gate compares with: a Claw's model or tools drift under a fixed version. */
export const SAVED_RUN_MAX_AGE_MS = 7 * 24 * 3600_000;
/** The most of a saved run read or written (500 checks × 100 attempts fit, at ~60 bytes each). */
export const MAX_SAVED_RUN_BYTES = 4 * 1024 * 1024;

/** What a saved run rests on: the suite's and the judges' hashes, the Claw's deployment and configuration. */
export interface SavedRunBasis {
  claw: string;
  deployment: string;
  /** SHA-256 of the checks as the suite reads them (repeats, minimums and where they are written aside). */
  checks: string;
  /** SHA-256 of the judges' identities (address, model, parameters, header names; never a key). */
  judges: string;
  /** SHA-256 of the Claw's configuration as the service showed it after the deployment. */
  config: string;
}

export interface SavedGateRun extends SavedRunBasis {
  /** When the run ended (epoch ms). */
  at: number;
  entries: CheckEntry[];
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const HASH = /^[0-9a-f]{64}$/;

/** Keys of a check that do not change what an attempt means: how often it is asked, and where it is written. */
const NOT_MEANING = new Set(['repeat', 'minPass', 'timeoutMs', 'where', 'origin']);

/** The hashes of the suite's checks (for one Claw) and of its judges. */
export function suiteHashes(suite: CheckSuite, clawId: string): { checks: string; judges: string } {
  const checks = suite.checks.filter((c) => !c.claws || c.claws.includes(clawId));
  const text = JSON.stringify(checks, (key, value: unknown) => {
    if (NOT_MEANING.has(key)) return undefined;
    // A judge by its identity: its key and header values never enter the hash.
    if (key === 'judge' && isRecord(value) && typeof value.kind === 'string')
      return judgeIdentity(value as unknown as JudgeSpec);
    return value;
  });
  return { checks: sha256(text), judges: sha256(JSON.stringify(suite.judges.map(judgeIdentity).sort())) };
}

/** Fields of a Claw that change with its deployment's progress or its own state, not its configuration. */
const VOLATILE =
  /^(status|deploymentStatus|deployment|currentDeployment|current_deployment|latestDeployment|activeDeployment|currentDeploymentId|deploymentId|url|updatedAt|updated_at|lastSeenAt|last_seen_at|createdAt|created_at)$/;
/** The keys a service may wrap a Claw in: volatile fields are left out there too, and nowhere deeper. */
const WRAPPERS = new Set(['claw', 'data']);

/**
 * The hash of a Claw's configuration as the service showed it: every field but its status, its
 * deployment's and times, on the Claw itself (or inside the `claw`/`data` it is wrapped in). A
 * field of the same name deeper is configuration: a connection's `url` changed under the same
 * deployment changes what the Claw does.
 */
export function configHash(raw: unknown): string {
  return sha256(JSON.stringify(sorted(raw, true)));
}

function sorted(value: unknown, onClaw: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => sorted(item, false));
  if (!isRecord(value)) return value;
  const keys = Object.keys(value)
    .filter((k) => !(onClaw && VOLATILE.test(k)))
    .sort();
  return Object.fromEntries(keys.map((k) => [k, sorted(value[k], onClaw && WRAPPERS.has(k))]));
}

/** The saved run's text (JSON), samples only: replies and failures are not kept. */
export function savedRunJson(run: SavedGateRun): string {
  return JSON.stringify({
    version: 1,
    claw: run.claw,
    deployment: run.deployment,
    at: new Date(run.at).toISOString(),
    checks: run.checks,
    judges: run.judges,
    config: run.config,
    entries: run.entries
      .filter((e) => e.samples?.length)
      .map((e) => ({ check: e.check, samples: e.samples!.slice(0, MAX_REPEAT) })),
  });
}

/** The saved run in `text` (the content under its seal), or what is wrong with it. */
export function parseSavedRun(text: string): SavedGateRun | string {
  if (text.length > MAX_SAVED_RUN_BYTES) return 'it is larger than the action writes';
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (!isRecord(data) || data.version !== 1) return 'it is not a saved run this version reads';
  const { claw, deployment, at, checks, judges, config, entries } = data;
  if (typeof claw !== 'string' || !isValidId(claw)) return 'no usable Claw id';
  if (typeof deployment !== 'string' || !isValidId(deployment)) return 'no usable deployment id';
  const time = typeof at === 'string' && at.length <= 40 ? Date.parse(at) : NaN;
  if (!Number.isFinite(time)) return 'no usable time';
  for (const hash of [checks, judges, config])
    if (typeof hash !== 'string' || !HASH.test(hash)) return 'no usable hash';
  if (!Array.isArray(entries) || entries.length > MAX_CHECKS) return `not 0 to ${MAX_CHECKS} checks`;
  const read: CheckEntry[] = [];
  const names = new Set<string>();
  // The first mistake ends the read: the run is refused whole, never compared in part.
  const expect = (ok: boolean, path: (string | number)[], expected: string) => {
    if (!ok) throw new SavedRunRefused(`${path.join('.')}: expected ${expected}`);
  };
  try {
    for (const [i, item] of (entries as unknown[]).entries()) {
      const check = isRecord(item) ? item.check : undefined;
      const samples = isRecord(item) ? item.samples : undefined;
      expect(
        typeof check === 'string' && check.length > 0 && check.length <= 500 && !names.has(check),
        ['entries', i, 'check'],
        'a check named once',
      );
      expect(
        Array.isArray(samples) && samples.length > 0 && samples.length <= MAX_REPEAT,
        ['entries', i, 'samples'],
        `1 to ${MAX_REPEAT} attempts`,
      );
      names.add(check as string);
      const kept = (samples as unknown[]).map((s, j) => savedSample(s, ['entries', i, 'samples', j], expect));
      read.push(savedEntry(check as string, claw, kept));
    }
  } catch (err) {
    if (err instanceof SavedRunRefused) return err.message;
    throw err;
  }
  return {
    claw,
    deployment,
    at: time,
    checks: checks as string,
    judges: judges as string,
    config: config as string,
    entries: read,
  };
}

/**
 * Whether a saved run is evidence of the live version, as `live` shows it now: undefined when it
 * is, else why not (one clause for the notice).
 */
export function savedRunProblem(run: SavedGateRun, live: SavedRunBasis, now: number): string | undefined {
  if (run.claw !== live.claw) return `it is of Claw ${run.claw}, not ${live.claw}`;
  if (run.checks !== live.checks) return 'the checks changed since it was run';
  if (run.judges !== live.judges) return 'the judge changed since it was run';
  if (run.deployment !== live.deployment)
    return `it was run on deployment ${run.deployment}, and the Claw's live one is ${live.deployment || 'none'}`;
  if (run.config !== live.config) return "the Claw's configuration changed since it was run";
  if (run.at > now + 5 * 60_000) return 'its time is in the future';
  if (now - run.at > SAVED_RUN_MAX_AGE_MS)
    return `it is ${days(now - run.at)} old, past the ${days(SAVED_RUN_MAX_AGE_MS)} a saved run is used for`;
  if (!run.entries.length) return 'it holds no attempts';
  return undefined;
}

const days = (ms: number): string => `${Number((ms / 86_400_000).toFixed(1))} days`;

class SavedRunRefused extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
