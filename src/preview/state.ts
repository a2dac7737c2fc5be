// The hidden state a preview comment keeps: which Claw each preview is (the service may have given
// it another id than the one asked for), for which pull request and commit. It is the register of
// previews: up, down and the sweep write to or delete only a Claw a state names. It comes back from
// a comment anyone with write access can edit, so it is sealed (../seal.ts) and read only from a
// comment this action's identity wrote; even then it is validated record by record: a record that
// fails a test costs only itself (one warning names it), the others are kept. A register is
// written only when it reads back whole: at most MAX_PREVIEW_RECORDS records, within the seal's
// payload; past that no preview is created (one line says why), so none is ever left unnamed.
import { isValidId } from '../shared/identifiers.js';
import { MAX_SEALED_PAYLOAD, type SealKey, readSealed, sealedFits, sealedMarker } from '../shared/seal.js';

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

/** The most previews one pull request's register holds (and so the most it may have). */
export const MAX_PREVIEW_RECORDS = 100;

const KIND = 'preview-state';

/** Why `state` would not read back whole (too many records, or past the seal's payload), or undefined. */
export function registerProblem(state: PreviewState): string | undefined {
  if (state.previews.length > MAX_PREVIEW_RECORDS) {
    return `a pull request's register of previews holds at most ${MAX_PREVIEW_RECORDS}, and this one would hold ${state.previews.length}`;
  }
  if (!sealedFits({ v: 1, ...state })) {
    return `the register of previews would pass ${MAX_SEALED_PAYLOAD.toLocaleString('en-US')} sealed characters, the most that is read back`;
  }
  return undefined;
}

/** The sealed register; throws rather than write one that would not read back whole. */
export function encodeState(state: PreviewState, key: SealKey): string {
  const problem = registerProblem(state);
  if (problem) throw new Error(`the register of previews was not written: ${problem}`);
  return sealedMarker(KIND, { v: 1, ...state }, key);
}

/** A register as read: its usable records, and those sealed but left alone (see `held`). */
export interface DecodedState {
  state?: PreviewState;
  /** Why the whole state cannot be used (no seal, another pull request): nothing in it is read. */
  problem?: string;
  /** One line per record skipped or held, naming it (absent when none). */
  skipped?: string[];
  /**
   * Records this action sealed whose preview the manifest now declares as a Claw of its own: never
   * written to or deleted while it does, and kept in the register so a later run can remove them.
   */
  held?: PreviewRecord[];
}

const named = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : 'none');

/**
 * The state in a comment's body. The seal, the version, the pull request and the head decide for
 * the whole state; then each record alone: a usable Claw and preview id, not production's.
 */
export function decodeState(body: string, expect: { pr: number; declared: string[] }, key: SealKey): DecodedState {
  const read = readSealed(body, KIND, key);
  if (!read.found) return {};
  if ('problem' in read) return { problem: read.problem };
  const data = read.state;
  const record = data as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || record.v !== 1) return { problem: 'the state has no known version' };
  if (record.pr !== expect.pr)
    return { problem: `the state is for pull request ${String(record.pr).slice(0, 20)}, not #${expect.pr}` };
  const head = typeof record.head === 'string' && /^[0-9a-f]{0,64}$/i.test(record.head) ? record.head : undefined;
  // The seal's payload bounds how many records there can be: every one of them is read.
  if (head === undefined || !Array.isArray(record.previews)) {
    return { problem: 'the state has no usable head or previews' };
  }
  const previews: PreviewRecord[] = [];
  const skipped: string[] = [];
  const held: PreviewRecord[] = [];
  for (const [index, raw] of (record.previews as unknown[]).entries()) {
    const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const { claw, id } = item;
    const which = `record ${index + 1} (Claw ${named(claw)}, preview ${named(id)})`;
    // A Claw the manifest no longer declares (the pull request renamed or dropped it) keeps its
    // record: the seal says this action made the preview, and only the register can delete it.
    if (typeof claw !== 'string' || !isValidId(claw)) {
      skipped.push(`${which} names no usable Claw: skipped`);
      continue;
    }
    if (typeof id !== 'string' || !isValidId(id)) {
      skipped.push(`${which} names no usable preview id: skipped`);
      continue;
    }
    if (previews.some((p) => p.id === id) || held.some((p) => p.id === id)) {
      skipped.push(`${which} repeats a preview named before: skipped`);
      continue;
    }
    const github = item.githubDeployment;
    const kept: PreviewRecord = {
      claw,
      id,
      ...(Number.isSafeInteger(github) && (github as number) > 0 ? { githubDeployment: github as number } : {}),
    };
    if (expect.declared.includes(id)) {
      skipped.push(
        `${which}: the manifest declares ${id} as a Claw of its own, so it is left alone (kept in the register)`,
      );
      held.push(kept);
      continue;
    }
    previews.push(kept);
  }
  return {
    state: { pr: expect.pr, head, previews },
    ...(skipped.length ? { skipped } : {}),
    ...(held.length ? { held } : {}),
  };
}

/** The one warning for the records a read skipped or held, naming each; undefined when none. */
export function skippedWarning(read: DecodedState, pr: number): string | undefined {
  const skipped = read.skipped ?? [];
  if (skipped.length === 0) return undefined;
  const shown = skipped.slice(0, 5).join('; ');
  const more = skipped.length > 5 ? `; and ${skipped.length - 5} more` : '';
  return `The preview comment's hidden state of #${pr}: ${shown}${more}. The other ${read.state?.previews.length ?? 0} record(s) are kept.`;
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
