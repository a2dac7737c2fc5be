// What an incident issue remembers, and how this action finds its own issues again: the sealed
// state (subject, a digest of what fails, the episode's first run, the suspect deployment), the
// label naming the subject, and the rules for reading issues anyone may have edited. Only a state
// this action's identity sealed is read; the rest of an issue's body is never read back.
import { createHash } from 'node:crypto';
import { clip } from '../shared/format.js';
import { isValidId } from '../shared/identifiers.js';
import { type SealKey, readSealed, sealedMarker } from '../shared/seal.js';
import type { IncidentIssue } from './host.js';

export const INCIDENT_LABEL = 'claw-incident';
const SERVICE_LABEL = 'claw-service';
export const KIND = 'incident';
/** GitHub's longest label and title. */
const MAX_LABEL = 50;
const MAX_TITLE = 256;

export type Subject = { claw: string } | { service: true };
export const keyOf = (s: Subject): string => ('claw' in s ? `claw:${s.claw}` : 'service');

/** What an issue's sealed state remembers. */
export interface IncidentState {
  v: 1;
  subject: Subject;
  /** What fails, as a digest of the observation's signature: its size never depends on the checks. */
  signature: string;
  /** The first failing run of this episode (reset on a reopen). */
  since: number;
  sinceRun: string;
  reopened: number;
  closedAt?: number;
  /**
   * The deployment this episode names as its suspect, decided from the sealed deployment records
   * when it opened (or reopened); null when nothing was deployed in the window then; absent for the
   * service and for states written before suspects were named.
   */
  suspect?: string | null;
}

/** A known incident: the issue and the state this action sealed in it. */
export interface KnownIncident {
  issue: IncidentIssue;
  state: IncidentState;
}

/** A signature as the state keeps it: a digest, so a state's size is the same whatever fails. */
const DIGEST = /^sha256:[A-Za-z0-9_-]{43}$/;
export function digest(signature: string): string {
  return DIGEST.test(signature) ? signature : `sha256:${createHash('sha256').update(signature).digest('base64url')}`;
}

function readSubject(data: unknown): Subject | undefined {
  const subject = data as Record<string, unknown> | undefined;
  if (subject && typeof subject.claw === 'string' && isValidId(subject.claw)) return { claw: subject.claw };
  if (subject && subject.service === true) return { service: true };
  return undefined;
}

export function readState(data: unknown): IncidentState | undefined {
  const s = data as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || s.v !== 1) return undefined;
  const subject = readSubject(s.subject);
  if (!subject) return undefined;
  const time = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;
  // The seal bounds the whole state; an older state's signature in full is read as its digest.
  if (typeof s.signature !== 'string') return undefined;
  if (!time(s.since) || typeof s.sinceRun !== 'string' || !/^\d{0,20}$/.test(s.sinceRun)) return undefined;
  if (!Number.isSafeInteger(s.reopened) || (s.reopened as number) < 0) return undefined;
  if (s.closedAt !== undefined && !time(s.closedAt)) return undefined;
  const suspect = s.suspect;
  if (suspect !== undefined && suspect !== null && !(typeof suspect === 'string' && isValidId(suspect)))
    return undefined;
  return {
    v: 1,
    subject,
    signature: digest(s.signature),
    since: s.since,
    sinceRun: s.sinceRun,
    reopened: s.reopened as number,
    ...(s.closedAt === undefined ? {} : { closedAt: s.closedAt as number }),
    ...(suspect === undefined ? {} : { suspect: suspect as string | null }),
  };
}

export interface ReadIssues {
  known: Map<string, KnownIncident>;
  duplicates: (KnownIncident & { of: number })[];
  /** Ours, sealed under an older key: to be sealed again under the current one. */
  older: KnownIncident[];
}

/**
 * Our incidents by subject: the newest open one, else the newest closed; other open ones of the
 * same subject are duplicates. Warns once for each issue that is not ours. Where two of ours name
 * the same subject and only one carries its label, that one is the subject's: a collaborator can
 * paste one issue's sealed state into another (the seal holds), and the other is ignored, never
 * closed as a duplicate. A label alone decides nothing (GitHub may keep a label as it likes).
 */
export function readIssues(
  found: IncidentIssue[],
  deps: { seal: SealKey; redact: (text: string) => string; warn: (text: string) => void },
): ReadIssues {
  const known = new Map<string, KnownIncident & { labelled: boolean }>();
  const duplicates: (KnownIncident & { of: number })[] = [];
  const older: KnownIncident[] = [];
  const ours: (KnownIncident & { labelled: boolean; older: boolean })[] = [];
  for (const issue of found) {
    const sealed = readSealed(issue.body, KIND, deps.seal);
    if (!sealed.found) continue; // someone's own issue with our label: not ours to read
    const problem = !issue.own
      ? "it was not written by this action's identity"
      : 'problem' in sealed
        ? sealed.problem
        : readState(sealed.state) === undefined
          ? 'its state is not one this action writes'
          : undefined;
    if (problem) {
      deps.warn(`Incidents: ignored ${clip(issue.url, 300)}: ${problem}. It is never edited.`);
      continue;
    }
    const state = readState((sealed as { state: unknown }).state)!;
    const sealedBefore = (sealed as { older?: true }).older === true;
    ours.push({ issue, state, labelled: labelledFor(issue, state.subject, deps.redact), older: sealedBefore });
  }
  // The labelled one first, then the open one; the host's order (newest first) within.
  const rank = (o: (typeof ours)[number]): number => Number(o.labelled) * 2 + Number(o.issue.state === 'open');
  for (const entry of ours.map((o, i) => ({ o, i })).sort((a, b) => rank(b.o) - rank(a.o) || a.i - b.i)) {
    const { issue, state, labelled } = entry.o;
    const key = keyOf(state.subject);
    const kept = known.get(key);
    if (kept?.labelled && !labelled) {
      deps.warn(
        `Incidents: ignored ${clip(issue.url, 300)}: its state is #${kept.issue.number}'s, whose labels name its subject (a state copied from one issue into another). It is never edited.`,
      );
      continue;
    }
    if (entry.o.older) older.push({ issue, state });
    if (!kept) known.set(key, { issue, state, labelled });
    else if (issue.state === 'open') duplicates.push({ issue, state, of: kept.issue.number });
  }
  return { known, duplicates, older };
}

/** A Claw id its label shows whole: printable ASCII without capitals or `~`, no longer than a label. */
const WHOLE_IN_LABEL = new RegExp(`^[!-@[-}]{1,${MAX_LABEL}}$`);
const LABEL_DIGEST = 16;

/**
 * The label naming an incident's subject, one per Claw by construction. It is a display and
 * filter aid: the subject is the whole id in the sealed state, and the label only breaks a tie
 * between two of our issues claiming it. So two subjects never share one: an id GitHub keeps as
 * it is (no capitals, since labels compare without case) is its own label; any other (long,
 * capitals, a secret in it, the service's label) is cut and followed by `~` and a digest of the
 * whole id, a form no whole id shown has.
 */
export function subjectLabel(subject: Subject, redact: (text: string) => string): string {
  if (!('claw' in subject)) return SERVICE_LABEL;
  const id = subject.claw;
  const reserved = id === SERVICE_LABEL || id === INCIDENT_LABEL;
  if (WHOLE_IN_LABEL.test(id) && !reserved && redact(id) === id) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, LABEL_DIGEST);
  // Cut within GitHub's limit, never inside a surrogate pair (a label must be well formed).
  const shown = redact(id)
    .slice(0, MAX_LABEL - LABEL_DIGEST - 1)
    .replace(/[\ud800-\udbff]$/, '');
  return `${shown}~${hash}`;
}

/** Whether the issue carries its subject's label (GitHub matches label names without case); false when the host gave none. */
function labelledFor(issue: IncidentIssue, subject: Subject, redact: (text: string) => string): boolean {
  if (!issue.labels) return false;
  const wanted = subjectLabel(subject, redact).trim().toLowerCase();
  return issue.labels.some((name) => name.trim().toLowerCase() === wanted);
}

/** Where the sealed marker goes while the body passes the redactor: shorter than any secret it looks for. */
export const HOLE = '\u0000\u0001\u0000';

/** The body with its sealed marker replaced by `marker` (the rest as this action last wrote it). */
export function replaceMarker(body: string, marker = HOLE): string {
  const start = body.indexOf(`<!-- claw-deploy ${KIND}: `);
  const end = body.indexOf(' -->', start);
  if (start < 0 || end < 0) return `${marker}\n${body}`;
  return `${body.slice(0, start)}${marker}${body.slice(end + 4)}`;
}

export const issueTitle = (text: string): string => clip(text, MAX_TITLE - 30);

/**
 * An issue's body through the run's redactor, with the sealed marker put in where the HOLE is: a
 * secret never shows in what is written, and redaction never touches (and so never breaks) the seal.
 */
export function sealedText(
  deps: { redact: (text: string) => string; seal: SealKey },
  text: string,
  state: IncidentState,
): string {
  return deps.redact(text).replace(HOLE, () => sealedMarker(KIND, state, deps.seal));
}
