// Incidents as GitHub issues. A Claw (or the service) is in an incident after `confirm` failing runs
// in a row, counted from the history and this run; one issue per incident, found again by a sealed
// state in an issue this action's own identity wrote (another author's issue, or a state whose
// seal does not check out, is ignored with one warning naming it, and never edited). While it
// lasts, a comment only when what fails changes; after `recover` healthy runs in a row it closes
// with its duration; failing again within `reopen-within` of the close reopens the same issue.
// `unknown` opens and closes nothing. A failure to talk to GitHub is a warning, never the step's;
// a refused write (a permission the token lacks) stops this run's issue writes after one warning.
// The sealed state is small whatever the checks are called: what fails is kept as a digest (the
// names are in the body), so the action always reads its own issue back. One run opens at most
// `maxNew` issues; the others open on the next runs.
import { createHash } from 'node:crypto';
import type { Logger } from '../clock.js';
import { clip } from '../format.js';
import { isValidId } from '../identifiers.js';
import {
  type FailureView,
  type IncidentView,
  type RunRef,
  changedComment,
  closeComment,
  incidentBody,
  reopenComment,
  runText,
} from '../report/incident-report.js';
import { code } from '../report/markdown.js';
import { type SealKey, readSealed, sealedMarker } from '../seal.js';
import { type IncidentIssue, type IssueHost, hostError, isQuiet, isRefused } from './host.js';
import { type RunRecord, type RunStatus, isClawRecord } from './records.js';
import type { IncidentSpan } from './dora.js';

export const INCIDENT_LABEL = 'claw-incident';
const SERVICE_LABEL = 'claw-service';
const KIND = 'incident';
/** GitHub's longest label and title. */
const MAX_LABEL = 50;
const MAX_TITLE = 256;

export type Subject = { claw: string } | { service: true };
const keyOf = (s: Subject): string => ('claw' in s ? `claw:${s.claw}` : 'service');

/** What this run saw of one Claw, or of the service. */
export interface Observation {
  subject: Subject;
  status: RunStatus;
  /** For a failing one: what fails, in a stable form (a change is worth a comment), a title, details. */
  failing?: { signature: string; title: string; view: FailureView };
}

/** What an issue's sealed state remembers. */
interface IncidentState {
  v: 1;
  subject: Subject;
  /** What fails, as a digest of the observation's signature: its size never depends on the checks. */
  signature: string;
  /** The first failing run of this episode (reset on a reopen). */
  since: number;
  sinceRun: string;
  reopened: number;
  closedAt?: number;
}

export interface IncidentOptions {
  confirm: number;
  recover: number;
  reopenWithinMs: number;
  assignees: string[];
  mention: string;
  /** The most issues one run opens. */
  maxNew: number;
}

export interface IncidentDeps {
  issues: IssueHost;
  log: Logger;
  seal: SealKey;
  /** The run's redactor: every body and comment passes through it. */
  redact: (text: string) => string;
  now: number;
  runId: string;
  runUrl: (runId: string) => string | undefined;
}

export interface IncidentAction {
  subject: Subject;
  action: 'opened' | 'commented' | 'reopened' | 'closed';
  number: number;
  url: string;
}

export interface IncidentOutcome {
  actions: IncidentAction[];
  /** Incidents open after this run, by subject key (`claw:<id>` or `service`). */
  open: Map<string, { number: number; url: string; title: string }>;
  /** What the run did that the team should notice (state sealed again under the state-secret). */
  notices: string[];
  /** The Claws' incidents this action's own issues tell of, as the DORA figures read them (dora.ts). */
  spans: IncidentSpan[];
}

/** A signature as the state keeps it: a digest, so a state's size is the same whatever fails. */
const DIGEST = /^sha256:[A-Za-z0-9_-]{43}$/;
function digest(signature: string): string {
  return DIGEST.test(signature) ? signature : `sha256:${createHash('sha256').update(signature).digest('base64url')}`;
}

function readState(data: unknown): IncidentState | undefined {
  const s = data as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || s.v !== 1) return undefined;
  const subject = s.subject as Record<string, unknown> | undefined;
  let parsed: Subject;
  if (subject && typeof subject.claw === 'string' && isValidId(subject.claw)) parsed = { claw: subject.claw };
  else if (subject && subject.service === true) parsed = { service: true };
  else return undefined;
  const time = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;
  // The seal bounds the whole state; an older state's signature in full is read as its digest.
  if (typeof s.signature !== 'string') return undefined;
  if (!time(s.since) || typeof s.sinceRun !== 'string' || !/^\d{0,20}$/.test(s.sinceRun)) return undefined;
  if (!Number.isSafeInteger(s.reopened) || (s.reopened as number) < 0) return undefined;
  if (s.closedAt !== undefined && !time(s.closedAt)) return undefined;
  return {
    v: 1,
    subject: parsed,
    signature: digest(s.signature),
    since: s.since,
    sinceRun: s.sinceRun,
    reopened: s.reopened as number,
    ...(s.closedAt === undefined ? {} : { closedAt: s.closedAt as number }),
  };
}

/** A subject's statuses that could tell, oldest first: the past's, then this run's. */
function told(past: RunRecord[], subject: Subject): { status: 'healthy' | 'unhealthy'; at: number; run: string }[] {
  const out: { status: 'healthy' | 'unhealthy'; at: number; run: string }[] = [];
  for (const r of past) {
    if ('claw' in subject) {
      if (!isClawRecord(r) || r.claw !== subject.claw || r.status === 'unknown') continue;
      out.push({ status: r.status, at: r.at, run: r.run });
    } else if (!isClawRecord(r)) {
      out.push({ status: r.service === 'up' ? 'healthy' : 'unhealthy', at: r.at, run: r.run });
    }
  }
  return out;
}

function streak(statuses: { status: string }[], status: string): number {
  let n = 0;
  for (let i = statuses.length - 1; i >= 0 && statuses[i].status === status; i--) n++;
  return n;
}

export async function trackIncidents(
  deps: IncidentDeps,
  options: IncidentOptions,
  observations: Observation[],
  past: RunRecord[],
  /** The run listed every Claw of the workspace (`*`): a Claw it did not see is gone. */
  listedAll = false,
): Promise<IncidentOutcome> {
  const { log, issues, now } = deps;
  const outcome: IncidentOutcome = { actions: [], open: new Map(), notices: [], spans: [] };
  let found: IncidentIssue[];
  try {
    found = await issues.list(INCIDENT_LABEL, now - options.reopenWithinMs);
  } catch (err) {
    if (!isQuiet(err)) {
      log.warning(
        `Incidents: could not read the issues (${hostError(err, 'issues: write')}); no incident was opened or closed in this run.`,
      );
    }
    return outcome;
  }
  const { known, duplicates, older } = readIssues(found, deps);
  for (const [key, { issue }] of known) {
    if (issue.state === 'open') outcome.open.set(key, { number: issue.number, url: issue.url, title: issue.title });
  }
  outcome.spans = spansOf(known.values());
  const run: RunRef = { id: deps.runId, url: deps.runUrl(deps.runId), at: now };
  const refOf = (r: { at: number; run: string }): RunRef => ({ id: r.run, url: deps.runUrl(r.run), at: r.at });
  // After a refused write (or GitHub's calls stopped), every later write would fail the same way:
  // they are counted, not tried, and one warning says so at the end.
  let refused: { what: string; err: unknown } | undefined;
  let stopped = false;
  let held = 0;
  const act = async (what: string, call: () => Promise<void>): Promise<boolean> => {
    if (refused || stopped) {
      held++;
      return false;
    }
    try {
      await call();
      return true;
    } catch (err) {
      if (isQuiet(err)) stopped = true;
      else if (isRefused(err)) refused = { what, err };
      else log.warning(`Incidents: could not ${what} (${hostError(err, 'issues: write')}).`);
      return false;
    }
  };
  // State sealed under an older key (the API key, before a state-secret was set): sealed again,
  // as many a run as it may open (GitHub limits how fast content is written).
  let resealed = 0;
  for (const { issue, state } of older.slice(0, options.maxNew)) {
    const done = await act(`seal incident #${issue.number} again`, async () => {
      await issues.update(issue.number, { body: sealedText(deps, (hole) => replaceMarker(issue.body, hole), state) });
    });
    if (done) resealed++;
  }
  if (resealed) {
    const left = older.length - resealed;
    outcome.notices.push(
      `Incidents: re-sealed ${resealed} issue(s) under the state-secret (they were sealed under the API key); ${left ? `${left} more on the next run(s): rotate the API key once none are left` : 'the API key can now be rotated without losing them'}.`,
    );
  }
  let tried = 0;
  let waiting = 0;
  // Two runs that overlap may each open the incident: one issue is kept, the others closed.
  for (const { issue, state, of } of duplicates) {
    const closed = await act(`close duplicate incident #${issue.number}`, async () => {
      await issues.comment(
        issue.number,
        deps.redact(`Closed as a duplicate of #${of}: two runs opened this incident at once (${runText(run)}).`),
      );
      await issues.update(issue.number, {
        state: 'closed',
        body: sealedText(deps, (hole) => replaceMarker(issue.body, hole), { ...state, closedAt: now }),
      });
    });
    if (closed) log.info(`Incidents: closed #${issue.number}, a duplicate of #${of}.`);
  }

  for (const seen of observations) {
    if (seen.status === 'unknown') continue; // neither opens nor closes anything
    const key = keyOf(seen.subject);
    const current = known.get(key);
    const history = [...told(past, seen.subject), { status: seen.status, at: now, run: deps.runId }];
    const who = 'claw' in seen.subject ? `Claw ${code(seen.subject.claw)}` : 'The Agent Management Service';
    if (seen.status === 'healthy') {
      if (current?.issue.state !== 'open' || streak(history, 'healthy') < options.recover) continue;
      const healthy = streak(history, 'healthy');
      const lastFailing = history[history.length - 1 - healthy];
      const recovered = history[history.length - healthy];
      const state: IncidentState = { ...current.state, closedAt: now };
      const closed = await act(`close incident #${current.issue.number}`, async () => {
        await issues.comment(
          current.issue.number,
          deps.redact(
            closeComment({
              who,
              recover: options.recover,
              first: { id: state.sinceRun, url: deps.runUrl(state.sinceRun), at: state.since },
              last: lastFailing ? refOf(lastFailing) : refOf({ at: state.since, run: state.sinceRun }),
              recoveredAt: recovered.at,
            }),
          ),
        );
        await issues.update(current.issue.number, {
          state: 'closed',
          body: sealedText(deps, (hole) => replaceMarker(current.issue.body, hole), state),
        });
      });
      if (closed) {
        outcome.open.delete(key);
        outcome.actions.push({ subject: seen.subject, action: 'closed', ...current.issue });
        log.info(`Incidents: closed #${current.issue.number} (${key}): healthy ${healthy} run(s) in a row.`);
      }
      continue;
    }

    const failing = seen.failing ?? { signature: 'failing', title: `${key} is failing`, view: { summary: 'failing' } };
    const issueTitle = deps.redact(title(failing.title));
    const failingRuns = streak(history, 'unhealthy');
    const first = history[history.length - failingRuns];
    const view = (firstRun: RunRef): IncidentView => ({
      who,
      title: failing.title,
      failure: failing.view,
      run,
      first: firstRun,
      confirm: Math.max(options.confirm, failingRuns),
      recover: options.recover,
      mention: options.mention,
    });
    if (current?.issue.state === 'open') {
      if (current.state.signature === digest(failing.signature)) continue; // nothing new to say
      const state: IncidentState = { ...current.state, signature: digest(failing.signature) };
      const firstRun = { id: state.sinceRun, url: deps.runUrl(state.sinceRun), at: state.since };
      const done = await act(`comment on incident #${current.issue.number}`, async () => {
        await issues.comment(current.issue.number, deps.redact(changedComment(view(firstRun))));
        await issues.update(current.issue.number, {
          title: issueTitle,
          body: sealedText(deps, (hole) => incidentBody(view(firstRun), hole), state),
        });
      });
      if (done) {
        outcome.actions.push({ subject: seen.subject, action: 'commented', ...current.issue });
        outcome.open.set(key, { number: current.issue.number, url: current.issue.url, title: failing.title });
      }
      continue;
    }
    if (failingRuns < options.confirm) {
      log.info(`Incidents: ${key} failed ${failingRuns} of the ${options.confirm} run(s) in a row that open one.`);
      continue;
    }
    const firstRun = refOf(first);
    const closedAt = current?.state.closedAt;
    if (current && closedAt !== undefined && now - closedAt <= options.reopenWithinMs) {
      const state: IncidentState = {
        ...current.state,
        signature: digest(failing.signature),
        since: first.at,
        sinceRun: first.run,
        reopened: current.state.reopened + 1,
      };
      delete state.closedAt;
      const done = await act(`reopen incident #${current.issue.number}`, async () => {
        await issues.update(current.issue.number, {
          state: 'open',
          title: issueTitle,
          body: sealedText(deps, (hole) => incidentBody(view(firstRun), hole), state),
        });
        await issues.comment(current.issue.number, deps.redact(reopenComment(view(firstRun), now - closedAt)));
      });
      if (done) {
        outcome.actions.push({ subject: seen.subject, action: 'reopened', ...current.issue });
        outcome.open.set(key, { number: current.issue.number, url: current.issue.url, title: failing.title });
        log.info(`Incidents: reopened #${current.issue.number} (${key}).`);
      }
      continue;
    }
    // Tries count, not successes: a GitHub failing every create is tried `maxNew` times at most.
    if (tried >= options.maxNew) {
      waiting++;
      continue;
    }
    tried++;
    const state: IncidentState = {
      v: 1,
      subject: seen.subject,
      signature: digest(failing.signature),
      since: first.at,
      sinceRun: first.run,
      reopened: 0,
    };
    const labels = [INCIDENT_LABEL, subjectLabel(seen.subject, deps.redact)];
    let created: { number: number; url: string } | undefined;
    await act('open an incident issue', async () => {
      created = await issues.create({
        title: issueTitle,
        body: sealedText(deps, (hole) => incidentBody(view(firstRun), hole), state),
        labels,
        assignees: options.assignees,
      });
    });
    if (created) {
      outcome.actions.push({ subject: seen.subject, action: 'opened', ...created });
      outcome.open.set(key, { ...created, title: failing.title });
      log.info(`Incidents: opened #${created.number} (${key}): ${failing.title}.`);
    }
  }
  if (listedAll) {
    // An incident of a Claw the workspace no longer has would never close: close it, saying why.
    const seen = new Set(observations.map((o) => keyOf(o.subject)));
    for (const [key, { issue, state }] of known) {
      if (issue.state !== 'open' || seen.has(key) || !('claw' in state.subject)) continue;
      const closed = await act(`close incident #${issue.number}`, async () => {
        await issues.comment(
          issue.number,
          deps.redact(
            `Closed: Claw ${code((state.subject as { claw: string }).claw)} is no longer in the workspace (${runText(run)}).`,
          ),
        );
        await issues.update(issue.number, {
          state: 'closed',
          body: sealedText(deps, (hole) => replaceMarker(issue.body, hole), { ...state, closedAt: now }),
        });
      });
      if (closed) {
        outcome.open.delete(key);
        outcome.actions.push({ subject: state.subject, action: 'closed', number: issue.number, url: issue.url });
        log.info(`Incidents: closed #${issue.number} (${key}): the Claw is no longer in the workspace.`);
      }
    }
  }
  if (waiting) {
    log.info(
      `Incidents: ${waiting} new incident(s) held back by max-new-incidents (${options.maxNew}); they open on the next run(s).`,
    );
  }
  if (refused) {
    log.warning(
      `Incidents: could not ${refused.what} (${hostError(refused.err, 'issues: write')}); no more issue writes in this run (${held} more held back).`,
    );
  } else if (stopped && held) {
    log.info(`Incidents: ${held} issue write(s) wait for the next run.`);
  }
  return outcome;
}

/**
 * Our incidents by subject: the newest open one, else the newest closed; other open ones of the
 * same subject are duplicates. Warns once for each issue that is not ours. Where two of ours name
 * the same subject and only one carries its label, that one is the subject's: a collaborator can
 * paste one issue's sealed state into another (the seal holds), and the other is ignored, never
 * closed as a duplicate. A label alone decides nothing (GitHub may keep a label as it likes).
 */
function readIssues(
  found: IncidentIssue[],
  deps: IncidentDeps,
): {
  known: Map<string, { issue: IncidentIssue; state: IncidentState }>;
  duplicates: { issue: IncidentIssue; state: IncidentState; of: number }[];
  /** Ours, sealed under an older key: to be sealed again under the current one. */
  older: { issue: IncidentIssue; state: IncidentState }[];
} {
  const known = new Map<string, { issue: IncidentIssue; state: IncidentState; labelled: boolean }>();
  const duplicates: { issue: IncidentIssue; state: IncidentState; of: number }[] = [];
  const older: { issue: IncidentIssue; state: IncidentState }[] = [];
  const ours: { issue: IncidentIssue; state: IncidentState; labelled: boolean; older: boolean }[] = [];
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
      deps.log.warning(`Incidents: ignored ${clip(issue.url, 300)}: ${problem}. It is never edited.`);
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
      deps.log.warning(
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
function subjectLabel(subject: Subject, redact: (text: string) => string): string {
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

/** The body with its sealed marker replaced (the rest as this action last wrote it). */
function replaceMarker(body: string, marker: string): string {
  const start = body.indexOf(`<!-- claw-deploy ${KIND}: `);
  const end = body.indexOf(' -->', start);
  if (start < 0 || end < 0) return `${marker}\n${body}`;
  return `${body.slice(0, start)}${marker}${body.slice(end + 4)}`;
}

const title = (text: string): string => clip(text, MAX_TITLE - 30);

/** Where the sealed marker goes while the body passes the redactor: shorter than any secret it looks for. */
const HOLE = '\u0000\u0001\u0000';

/**
 * An issue's body through the run's redactor, with the sealed marker put in after: a secret never
 * shows in what is written, and redaction never touches (and so never breaks) the seal.
 */
function sealedText(
  deps: { redact: (text: string) => string; seal: SealKey },
  compose: (marker: string) => string,
  state: unknown,
): string {
  return deps.redact(compose(HOLE)).replace(HOLE, () => sealedMarker(KIND, state, deps.seal));
}

/** Each Claw incident as a span: from its first failing run to its close (open: no end). */
function spansOf(known: Iterable<{ state: IncidentState }>): IncidentSpan[] {
  const spans: IncidentSpan[] = [];
  for (const { state } of known) {
    if (!('claw' in state.subject)) continue;
    spans.push({
      claw: state.subject.claw,
      openedAt: state.since,
      ...(state.closedAt !== undefined ? { closedAt: state.closedAt } : {}),
    });
  }
  return spans;
}
