// Incidents as GitHub issues. A Claw (or the service) is in an incident after `confirm` failing runs
// in a row, counted from the history and this run, or at once when the watch after a deployment
// finds its behaviour regressed; one issue per incident, found again by a sealed state in an issue
// this action's own identity wrote (another author's issue, or a state whose seal does not check
// out, is ignored with one warning naming it, and never edited). While it lasts, a comment only
// when what fails changes; after `recover` healthy runs in a row it closes with its duration;
// failing again within `reopen-within` of the close reopens the same issue. `unknown` opens and
// closes nothing. The rules are a pure function (incident-plan.ts); this file reads the issues and
// does the writes. A failure to talk to GitHub is a warning, never the step's; a refused write (a
// permission the token lacks) stops this run's issue writes after one warning. One run opens at
// most `maxNew` issues; the others open on the next runs.
import type { Logger } from '../shared/clock.js';
import type { SealKey } from '../shared/seal.js';
import { type IncidentIssue, type IssueHost, hostError, isQuiet, isRefused } from './host.js';
import {
  type IncidentOptions,
  type IssueCall,
  type Observation,
  type PlannedWrite,
  planIncidents,
} from './incident-plan.js';
import { INCIDENT_LABEL, type KnownIncident, type Subject, keyOf, readIssues, sealedText } from './incident-state.js';
import type { IncidentSpan } from './dora.js';
import type { RunRecord } from './records.js';

export { INCIDENT_LABEL, type Subject } from './incident-state.js';
export type { DeploymentFacts, IncidentOptions, Observation } from './incident-plan.js';

export interface IncidentDeps {
  issues: IssueHost;
  log: Logger;
  seal: SealKey;
  /** The run's redactor: every title, body and comment passes through it. */
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

/** An incident open after this run. */
export interface OpenIncident {
  number: number;
  url: string;
  title: string;
  /** When its episode began. */
  since: number;
  /** The deployment it names (from its sealed state); null: nothing was deployed in the window. */
  suspect?: string | null;
}

export interface IncidentOutcome {
  actions: IncidentAction[];
  /** Incidents open after this run, by subject key (`claw:<id>` or `service`). */
  open: Map<string, OpenIncident>;
  /** What the run did that the team should notice (state sealed again under the state-secret). */
  notices: string[];
  /** The Claws' incidents this action's own issues tell of (and those this run opened), as the DORA figures read them (dora.ts). */
  spans: IncidentSpan[];
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
  const read = readIssues(found, { ...deps, warn: (text) => log.warning(text) });
  for (const [key, { issue, state }] of read.known) {
    if (issue.state !== 'open') continue;
    const suspect = state.suspect === undefined ? {} : { suspect: state.suspect };
    outcome.open.set(key, { number: issue.number, url: issue.url, title: issue.title, since: state.since, ...suspect });
  }
  outcome.spans = spansOf(read.known.values());
  const plan = planIncidents({
    ...read,
    options,
    observations,
    past,
    listedAll,
    now,
    runId: deps.runId,
    runUrl: deps.runUrl,
    redact: deps.redact,
  });
  const writer = new IssueWriter(deps);
  let resealed = 0;
  for (const step of plan.steps) {
    if ('info' in step) {
      log.info(step.info);
      continue;
    }
    const written = await writer.write(step);
    if (!written) continue;
    if (step.kind === 'resealed') resealed++;
    record(outcome, step, written);
    if (step.done) log.info(step.done.replace('#{number}', `#${written.number}`));
  }
  if (resealed) {
    const left = read.older.length - resealed;
    outcome.notices.push(
      `Incidents: re-sealed ${resealed} issue(s) under the state-secret (they were sealed under the API key); ${left ? `${left} more on the next run(s): rotate the API key once none are left` : 'the API key can now be rotated without losing them'}.`,
    );
  }
  for (const line of plan.end) log.info(line);
  writer.finish();
  return outcome;
}

/** What a write that went through means for the run's outcome. */
function record(outcome: IncidentOutcome, step: PlannedWrite, issue: { number: number; url: string }): void {
  const key = keyOf(step.subject);
  if (step.after === null) outcome.open.delete(key);
  else if (step.after) outcome.open.set(key, { number: issue.number, url: issue.url, ...step.after });
  // An incident this run opened is a span too, naming its suspect.
  if (step.kind === 'opened' && 'claw' in step.subject && step.after)
    outcome.spans.push({
      claw: step.subject.claw,
      openedAt: step.after.since,
      ...(step.after.suspect ? { suspect: step.after.suspect } : {}),
    });
  if (step.kind !== 'resealed' && step.kind !== 'duplicate')
    outcome.actions.push({ subject: step.subject, action: step.kind, number: issue.number, url: issue.url });
}

/**
 * Does a planned write's calls, each text through the redactor and each state sealed. After a
 * refused write (or GitHub's calls stopped), every later write would fail the same way: they are
 * counted, not tried, and one warning says so at the end.
 */
class IssueWriter {
  private refused: { what: string; err: unknown } | undefined;
  private stopped = false;
  private held = 0;

  constructor(private readonly deps: IncidentDeps) {}

  /** The issue written (the new one for a create), or undefined when the write did not go through. */
  async write(step: PlannedWrite): Promise<{ number: number; url: string } | undefined> {
    if (this.refused || this.stopped) {
      this.held++;
      return undefined;
    }
    let issue = step.issue;
    try {
      for (const call of step.calls) issue = (await this.call(call, issue)) ?? issue;
      return issue;
    } catch (err) {
      if (isQuiet(err)) this.stopped = true;
      else if (isRefused(err)) this.refused = { what: step.what, err };
      else this.deps.log.warning(`Incidents: could not ${step.what} (${hostError(err, 'issues: write')}).`);
      return undefined;
    }
  }

  private async call(call: IssueCall, issue: { number: number } | undefined) {
    const { issues, redact } = this.deps;
    const body = (b: { text: string; state: Parameters<typeof sealedText>[2] } | undefined) =>
      b && { body: sealedText(this.deps, b.text, b.state) };
    if (call.call === 'create')
      return issues.create({
        title: redact(call.title),
        ...body(call.body)!,
        labels: call.labels,
        assignees: call.assignees,
      });
    if (!issue) throw new Error(`no issue to ${call.call}`);
    if (call.call === 'comment') await issues.comment(issue.number, redact(call.text));
    else
      await issues.update(issue.number, {
        ...(call.state ? { state: call.state } : {}),
        ...(call.title === undefined ? {} : { title: redact(call.title) }),
        ...body(call.body),
      });
    return undefined;
  }

  /** The one warning (or line) for the writes held back. */
  finish(): void {
    if (this.refused) {
      this.deps.log.warning(
        `Incidents: could not ${this.refused.what} (${hostError(this.refused.err, 'issues: write')}); no more issue writes in this run (${this.held} more held back).`,
      );
    } else if (this.stopped && this.held) {
      this.deps.log.info(`Incidents: ${this.held} issue write(s) wait for the next run.`);
    }
  }
}

/** Each Claw incident as a span, from its first failing run to its close (open: no end), with its sealed suspect. */
function spansOf(known: Iterable<KnownIncident>): IncidentSpan[] {
  const spans: IncidentSpan[] = [];
  for (const { state } of known) {
    if (!('claw' in state.subject)) continue;
    spans.push({
      claw: state.subject.claw,
      openedAt: state.since,
      ...(state.closedAt !== undefined ? { closedAt: state.closedAt } : {}),
      ...(state.suspect ? { suspect: state.suspect } : {}),
    });
  }
  return spans;
}
