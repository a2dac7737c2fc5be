// What a preview run is asked to do and runs with: the request, the event, the enumerations the
// settings parse, and the guard every write goes through. Below the command and its steps (up,
// cleanup), which all use it.
import type { Json } from '../api/shapes.js';
import type { CheckSuite } from '../checks/check.js';
import type { ChecksResult, RunMode } from '../checks/result.js';
import type { CommandDeps, Policy } from '../deploy/deploy.js';
import type { Manifest } from '../manifest/manifest.js';
import type { SealKey } from '../shared/seal.js';
import type { PreviewHost } from './host.js';

/** `inconclusive`: a regressed or an inconclusive comparison fails (deploy with a baseline, compare). */
export type FailOn = 'regression' | 'failure' | 'inconclusive' | 'never';
export const FAIL_ON: readonly FailOn[] = ['regression', 'failure', 'inconclusive', 'never'];
export const PREVIEW_CLAWS = ['changed', 'all'] as const;

/** What started the workflow, as far as a preview cares. */
export interface PreviewEvent {
  name: string;
  /** `opened`, `synchronize`, `closed`, … for a pull request. */
  action: string;
  pr?: number;
  headSha: string;
}

export interface PreviewRequest {
  manifest: Manifest;
  suite?: CheckSuite;
  event: PreviewEvent;
  previewClaws: (typeof PREVIEW_CLAWS)[number];
  ttlMs: number;
  maxPreviews: number;
  failOn: FailOn;
  /** With a GitHub environment: a transient GitHub Deployment per preview. */
  environment: string;
  strategy: string;
  payload: Json;
  policy: Policy;
  /** Removes every secret this run knows (the key, a judge's, the manifest's) from replies shown. */
  redact: (text: string) => string;
  /** Seals the comment's state, so only this action (with this key, in this repository) can name a preview. */
  seal: SealKey;
}

export interface PreviewDeps {
  ctx: CommandDeps;
  host: PreviewHost;
  /**
   * Runs checks on some Claws (the gate, with its judges); absent without a checks file. `groups`:
   * the Claws that compare for select-best and max-score (each production Claw with its preview).
   */
  runChecks?: (suite: CheckSuite, clawIds: string[], groups?: string[][], mode?: RunMode) => Promise<ChecksResult>;
}

/** The id a write may use: never a production Claw the manifest declares. */
export function guardedId(manifest: Manifest, id: string): string {
  if (manifest.claws.some((c) => c.id === id)) {
    throw new Error(
      `refused to write to ${id}: it is a production Claw of ${manifest.file}, and previews never write to one`,
    );
  }
  return id;
}
