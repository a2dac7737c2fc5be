// The hidden state a preview comment keeps: which Claw each preview is (the service may have given
// it another id than the one asked for), for which pull request and commit. It is the register of
// previews: up, down and the sweep write to or delete only a Claw a state names. It comes back from
// a comment anyone with write access can edit, so it is sealed (../seal.ts) and read only from a
// comment this action's identity wrote; even then it is validated field by field, and a state
// that fails any test is ignored, never trusted.
import { isValidId } from '../identifiers.js';
import { type SealKey, readSealed, sealedMarker } from '../seal.js';

export interface PreviewRecord {
  /** The production Claw (declared in the manifest). */
  claw: string;
  /** The preview's id, as the service returned it. */
  id: string;
  /** Its GitHub Deployment, when `environment` is set. */
  githubDeployment?: number;
}

export interface PreviewState {
  pr: number;
  head: string;
  previews: PreviewRecord[];
}

const KIND = 'preview-state';

export function encodeState(state: PreviewState, key: SealKey): string {
  return sealedMarker(KIND, { v: 1, ...state }, key);
}

/**
 * The state in a comment's body, or why it cannot be used: the seal must hold, and only usable ids
 * that are not production's, and only this pull request's.
 */
export function decodeState(
  body: string,
  expect: { pr: number; declared: string[] },
  key: SealKey,
): { state?: PreviewState; problem?: string } {
  const read = readSealed(body, KIND, key);
  if (!read.found) return {};
  if ('problem' in read) return { problem: read.problem };
  const data = read.state;
  const record = data as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || record.v !== 1) return { problem: 'the state has no known version' };
  if (record.pr !== expect.pr)
    return { problem: `the state is for pull request ${String(record.pr).slice(0, 20)}, not #${expect.pr}` };
  const head = typeof record.head === 'string' && /^[0-9a-f]{0,64}$/i.test(record.head) ? record.head : undefined;
  if (head === undefined || !Array.isArray(record.previews) || record.previews.length > 100) {
    return { problem: 'the state has no usable head or previews' };
  }
  const previews: PreviewRecord[] = [];
  for (const item of record.previews as Record<string, unknown>[]) {
    const claw = item?.claw;
    const id = item?.id;
    // A Claw the manifest no longer declares (the pull request renamed or dropped it) keeps its
    // record: the seal says this action made the preview, and only the register can delete it.
    if (typeof claw !== 'string' || !isValidId(claw)) return { problem: 'the state names no usable Claw' };
    if (typeof id !== 'string' || !isValidId(id) || expect.declared.includes(id)) {
      return { problem: `the state names an unusable preview id for ${claw}` };
    }
    const github = item.githubDeployment;
    previews.push({
      claw,
      id,
      ...(Number.isSafeInteger(github) && (github as number) > 0 ? { githubDeployment: github as number } : {}),
    });
  }
  return { state: { pr: expect.pr, head, previews } };
}

/** The id a preview asks for: `<claw>-pr-<number>` (the service may assign another). */
export function previewId(claw: string, pr: number): string {
  return `${claw}-pr-${pr}`;
}

/**
 * The pull request a Claw id hints it previews, for one of `declared`, or undefined. A hint only:
 * it says which pull request's comment to read, never that the Claw is a preview.
 */
export function previewOf(id: string, declared: string[]): { claw: string; pr: number } | undefined {
  const match = /^(.+)-pr-(\d{1,9})(?:-\d)?$/.exec(id);
  if (!match || !declared.includes(match[1])) return undefined;
  return { claw: match[1], pr: Number(match[2]) };
}

/** The marker that finds a manifest's preview comment (apart from its plan comment). */
export function previewMarker(manifest: string): string {
  return `<!-- claw-deploy preview: ${encodeURIComponent(manifest)} -->`;
}

/** The comment as written: the marker that finds it, what it shows, and the sealed state. */
export function commentWithState(manifest: string, shown: string, sealedState: string): string {
  return `${previewMarker(manifest)}\n${shown}\n\n${sealedState}\n`;
}
