// The incident rules as a pure function: from what health knows (this run's observations, the
// runs before, the incident issues this action sealed, the deployment records) it returns what to
// write, in order, with the texts; it writes nothing. The executor (incidents.ts) does the writes.
// The suspect an incident names is decided here from sealed facts only: the deployment records and
// the issue's own sealed state, never an issue's body.
import {
  type FailureView,
  type IncidentView,
  type RunRef,
  type SuspectLine,
  type SuspectView,
  type WatchFigures,
  changedComment,
  closeComment,
  incidentBody,
  reopenComment,
  runText,
} from './incident-report.js';
import { code } from '../report/markdown.js';
import {
  HOLE,
  INCIDENT_LABEL,
  type IncidentState,
  type KnownIncident,
  type ReadIssues,
  type Subject,
  digest,
  issueTitle,
  keyOf,
  replaceMarker,
  subjectLabel,
} from './incident-state.js';
import { type RunRecord, type RunStatus, isClawRecord } from './records.js';

/**
 * A failure that begins after the Claw's latest deployment ran this many health runs healthy does
 * not name it (as deployment-watch.ts's CLEAR_AFTER_RUNS for a change of behaviour).
 */
export const HEALTHY_RUNS_CLEAR = 3;

/** What the deployment records and the watch say of one Claw at this run. */
export interface DeploymentFacts {
  windowDays: number;
  /** The deployment an incident opening now names; absent when nothing was deployed in the window. */
  suspect?: SuspectView;
  /** The window's deployments: a suspect an incident's sealed state names is shown from these. */
  known: SuspectView[];
  /**
   * A regression the watch found that still holds: it opens (or joins) an incident by itself. It
   * names `deployment` only when the change began at it; `cleared`: the latest deployment's watch
   * found it, but the change began later (or earlier) than the deployment's first runs.
   */
  regression?: {
    figures: WatchFigures;
    deployment?: string;
    cleared?: { deployment: string; deployedAt: number; changeAt: number };
    signature: string;
  };
}

/** What this run saw of one Claw, or of the service. */
export interface Observation {
  subject: Subject;
  status: RunStatus;
  /** For a failing one: what fails, in a stable form (a change is worth a comment), a title, details. */
  failing?: { signature: string; title: string; view: FailureView };
  /** A Claw's deployments and watch, when the history was read. */
  deployments?: DeploymentFacts;
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

/** Everything the rules read. */
export interface IncidentFacts extends ReadIssues {
  options: IncidentOptions;
  observations: Observation[];
  past: RunRecord[];
  /** The run listed every Claw of the workspace (`*`): a Claw it did not see is gone. */
  listedAll: boolean;
  now: number;
  runId: string;
  runUrl: (runId: string) => string | undefined;
  /** The run's redactor, for the labels only (the executor redacts every text it writes). */
  redact: (text: string) => string;
}

/** A body to write: its text with HOLE where the sealed state goes. */
export interface SealedBody {
  text: string;
  state: IncidentState;
}

export type IssueCall =
  | { call: 'comment'; text: string }
  | { call: 'update'; state?: 'open' | 'closed'; title?: string; body?: SealedBody }
  | { call: 'create'; title: string; body: SealedBody; labels: string[]; assignees: string[] };

export type WriteKind = 'resealed' | 'duplicate' | 'opened' | 'commented' | 'reopened' | 'closed';

/** One write: its calls in order, and what it means once they all went through. */
export interface PlannedWrite {
  kind: WriteKind;
  subject: Subject;
  /** The issue written; absent for one to create. */
  issue?: { number: number; url: string };
  /** For a warning when it fails: "close incident #3". */
  what: string;
  calls: IssueCall[];
  /** The incident once written: open under this title, or closed (null); absent: no change. */
  after?: { title: string; suspect?: string | null; since: number } | null;
  /** The info line once done. */
  done?: string;
}

export type PlanStep = PlannedWrite | { info: string };

export interface IncidentPlan {
  steps: PlanStep[];
  /** Lines for the end of the run, after every write. */
  end: string[];
}

type Told = { status: 'healthy' | 'unhealthy'; at: number; run: string };

/** A subject's statuses that could tell, oldest first: the past's, then this run's. */
function told(past: RunRecord[], subject: Subject): Told[] {
  const out: Told[] = [];
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

const whoOf = (s: Subject): string => ('claw' in s ? `Claw ${code(s.claw)}` : 'The Agent Management Service');

/** The incident rules: what to write, in order. Pure. */
export function planIncidents(facts: IncidentFacts): IncidentPlan {
  const steps: PlanStep[] = [...resealSteps(facts), ...duplicateSteps(facts)];
  const budget = { left: facts.options.maxNew, waiting: 0 };
  for (const seen of facts.observations) steps.push(...observationSteps(facts, seen, budget));
  if (facts.listedAll) steps.push(...goneSteps(facts));
  const end = budget.waiting
    ? [
        `Incidents: ${budget.waiting} new incident(s) held back by max-new-incidents (${facts.options.maxNew}); they open on the next run(s).`,
      ]
    : [];
  return { steps, end };
}

/** State sealed under an older key, sealed again: as many a run as it may open (GitHub limits how fast content is written). */
function resealSteps(facts: IncidentFacts): PlannedWrite[] {
  return facts.older.slice(0, facts.options.maxNew).map(({ issue, state }) => ({
    kind: 'resealed',
    subject: state.subject,
    issue,
    what: `seal incident #${issue.number} again`,
    calls: [{ call: 'update', body: { text: replaceMarker(issue.body), state } }],
  }));
}

/** Two runs that overlap may each open the incident: one issue is kept, the others closed. */
function duplicateSteps(facts: IncidentFacts): PlannedWrite[] {
  const run: RunRef = { id: facts.runId, url: facts.runUrl(facts.runId), at: facts.now };
  return facts.duplicates.map(({ issue, state, of }) => ({
    kind: 'duplicate',
    subject: state.subject,
    issue,
    what: `close duplicate incident #${issue.number}`,
    calls: [
      {
        call: 'comment',
        text: `Closed as a duplicate of #${of}: two runs opened this incident at once (${runText(run)}).`,
      },
      {
        call: 'update',
        state: 'closed',
        body: { text: replaceMarker(issue.body), state: { ...state, closedAt: facts.now } },
      },
    ],
    done: `Incidents: closed #${issue.number}, a duplicate of #${of}.`,
  }));
}

/** An incident of a Claw the workspace no longer has would never close: close it, saying why. */
function goneSteps(facts: IncidentFacts): PlannedWrite[] {
  const run: RunRef = { id: facts.runId, url: facts.runUrl(facts.runId), at: facts.now };
  const seen = new Set(facts.observations.map((o) => keyOf(o.subject)));
  const steps: PlannedWrite[] = [];
  for (const [key, { issue, state }] of facts.known) {
    if (issue.state !== 'open' || seen.has(key) || !('claw' in state.subject)) continue;
    steps.push({
      kind: 'closed',
      subject: state.subject,
      issue,
      what: `close incident #${issue.number}`,
      calls: [
        {
          call: 'comment',
          text: `Closed: Claw ${code(state.subject.claw)} is no longer in the workspace (${runText(run)}).`,
        },
        {
          call: 'update',
          state: 'closed',
          body: { text: replaceMarker(issue.body), state: { ...state, closedAt: facts.now } },
        },
      ],
      after: null,
      done: `Incidents: closed #${issue.number} (${key}): the Claw is no longer in the workspace.`,
    });
  }
  return steps;
}

/** What this run's observation of one subject calls for. */
function observationSteps(
  facts: IncidentFacts,
  seen: Observation,
  budget: { left: number; waiting: number },
): PlanStep[] {
  if (seen.status === 'unknown') return []; // neither opens nor closes anything
  const regression = seen.deployments?.regression;
  if (seen.status === 'healthy' && !regression) return closeSteps(facts, seen);
  const history = [...told(facts.past, seen.subject), { status: seen.status, at: facts.now, run: facts.runId }];
  const key = keyOf(seen.subject);
  const current = facts.known.get(key);
  const failingRuns = seen.status === 'unhealthy' ? streak(history, 'unhealthy') : 0;
  const failing = failingOf(seen, key);
  // The watch's sequential rule is its own confirmation: a regression opens without `confirm` runs.
  if (!current || current.issue.state !== 'open') {
    if (!regression && failingRuns < facts.options.confirm)
      return [
        {
          info: `Incidents: ${key} failed ${failingRuns} of the ${facts.options.confirm} run(s) in a row that open one.`,
        },
      ];
  }
  const first = failingRuns ? history[history.length - failingRuns] : { at: facts.now, run: facts.runId };
  const episode: Episode = { facts, seen, failing, failingRuns, first };
  if (current?.issue.state === 'open') return commentSteps(episode, current);
  const closedAt = current?.state.closedAt;
  if (current && closedAt !== undefined && facts.now - closedAt <= facts.options.reopenWithinMs)
    return reopenSteps(episode, current, closedAt);
  // Tries count, not successes: a GitHub failing every create is tried `maxNew` times at most.
  if (budget.left <= 0) {
    budget.waiting++;
    return [];
  }
  budget.left--;
  return openSteps(episode);
}

interface Episode {
  facts: IncidentFacts;
  seen: Observation;
  failing: NonNullable<Observation['failing']>;
  failingRuns: number;
  first: { at: number; run: string };
}

/** What fails: the Claw's failure, the watch's regression, or both (a new regression is a change worth a comment). */
function failingOf(seen: Observation, key: string): NonNullable<Observation['failing']> {
  const regression = seen.deployments?.regression;
  const failing = seen.status === 'unhealthy' ? seen.failing : undefined;
  if (!regression) return failing ?? { signature: 'failing', title: `${key} is failing`, view: { summary: 'failing' } };
  const claw = 'claw' in seen.subject ? seen.subject.claw : key;
  const title = regression.deployment
    ? `${claw} behaves worse since deployment ${regression.deployment}`
    : regression.cleared
      ? `${claw} behaves worse, not since its latest deployment`
      : `${claw} behaves worse, with nothing deployed`;
  if (!failing) return { signature: regression.signature, title, view: { summary: 'the checks pass less often' } };
  return { ...failing, signature: `${failing.signature}|${regression.signature}` };
}

/** The suspect a sealed state names, shown from the window's records when they hold it; `why` a deployment is not named. */
function suspectLine(
  facts: DeploymentFacts | undefined,
  suspect: string | null | undefined,
  why: SuspectLine | undefined,
): SuspectLine | undefined {
  if (!facts || suspect === undefined) return undefined;
  if (suspect === null) return why ?? { nothingDeployed: { windowDays: facts.windowDays } };
  const known = facts.known.find((d) => d.id === suspect);
  const evidence = why && 'deployment' in why ? why.evidence : undefined;
  return known ? { deployment: known, ...(evidence ? { evidence } : {}) } : { id: suspect };
}

/**
 * The suspect an episode opening now names, only with evidence: the deployment whose watch found
 * the regression at it; for a failing Claw, the latest deployment of the window when the failure
 * began within its first HEALTHY_RUNS_CLEAR runs. Otherwise none (null), with why the window's
 * deployment is not named.
 */
function suspectNow(e: Episode): { id: string | null | undefined; why?: SuspectLine } {
  const facts = e.seen.deployments;
  if (!facts) return { id: undefined };
  const regression = facts.regression;
  if (regression?.deployment) {
    const known = facts.known.find((d) => d.id === regression.deployment);
    const evidence = 'its watch found the drop, beginning with its first runs (the runs before it did not differ)';
    return { id: regression.deployment, ...(known ? { why: { deployment: known, evidence } } : {}) };
  }
  if (regression?.cleared) {
    const { deployment, changeAt } = regression.cleared;
    const known = facts.known.find((d) => d.id === deployment);
    return { id: null, ...(known ? { why: { notNamed: { deployment: known, failureAt: changeAt } } } : {}) };
  }
  const candidate = facts.suspect;
  if (!candidate || regression || e.failingRuns === 0) return { id: null };
  const failureAt = e.first.at;
  const healthySince = told(e.facts.past, e.seen.subject).filter(
    (t) => t.status === 'healthy' && t.at >= candidate.at && t.at < failureAt,
  ).length;
  if (failureAt >= candidate.at && healthySince < HEALTHY_RUNS_CLEAR) {
    const evidence = `the Claw began failing ${healthySince ? `after ${healthySince} healthy run(s)` : 'at its first run'} after it (fewer than ${HEALTHY_RUNS_CLEAR} healthy runs between)`;
    return { id: candidate.id, why: { deployment: candidate, evidence } };
  }
  return { id: null, why: { notNamed: { deployment: candidate, failureAt } } };
}

function viewOf(e: Episode, firstRun: RunRef, suspect: string | null | undefined, why?: SuspectLine): IncidentView {
  const { facts, seen, failing, failingRuns } = e;
  const regression = seen.deployments?.regression;
  return {
    who: whoOf(seen.subject),
    title: failing.title,
    failure: failing.view,
    run: { id: facts.runId, url: facts.runUrl(facts.runId), at: facts.now },
    first: firstRun,
    // Opened by the watch before `confirm` failing runs in a row: the watch's words, not a streak it never reached.
    confirm:
      failingRuns && (failingRuns >= facts.options.confirm || !regression)
        ? Math.max(facts.options.confirm, failingRuns)
        : 0,
    recover: facts.options.recover,
    mention: facts.options.mention,
    ...(regression ? { regression: { figures: regression.figures, deployment: regression.deployment } } : {}),
    ...(suspectLine(seen.deployments, suspect, why) ? { suspect: suspectLine(seen.deployments, suspect, why) } : {}),
  };
}

const openAfter = (title: string, state: IncidentState) => ({
  title,
  since: state.since,
  ...(state.suspect === undefined ? {} : { suspect: state.suspect }),
});

function commentSteps(e: Episode, current: KnownIncident): PlanStep[] {
  if (current.state.signature === digest(e.failing.signature)) return []; // nothing new to say
  // The suspect stays the one sealed when the episode opened, whatever the body says now, unless
  // the watch has since found a regression after a deployment (a sealed record): that one it names.
  const suspect = e.seen.deployments?.regression?.deployment ?? current.state.suspect;
  const state: IncidentState = {
    ...current.state,
    signature: digest(e.failing.signature),
    ...(suspect === undefined ? {} : { suspect }),
  };
  const firstRun = { id: state.sinceRun, url: e.facts.runUrl(state.sinceRun), at: state.since };
  // Why a deployment is (or is not) named, when what the evidence says now agrees with the sealed suspect.
  const now = suspectNow(e);
  const agrees = now.why && (state.suspect === null ? 'notNamed' in now.why : now.id === state.suspect);
  const view = viewOf(e, firstRun, state.suspect, agrees ? now.why : undefined);
  return [
    {
      kind: 'commented',
      subject: e.seen.subject,
      issue: current.issue,
      what: `comment on incident #${current.issue.number}`,
      calls: [
        { call: 'comment', text: changedComment(view) },
        { call: 'update', title: issueTitle(e.failing.title), body: { text: incidentBody(view, HOLE), state } },
      ],
      after: openAfter(e.failing.title, state),
    },
  ];
}

function reopenSteps(e: Episode, current: KnownIncident, closedAt: number): PlanStep[] {
  const { facts, seen, failing, first } = e;
  const { id: suspect, why } = suspectNow(e);
  const state: IncidentState = {
    ...current.state,
    signature: digest(failing.signature),
    since: first.at,
    sinceRun: first.run,
    reopened: current.state.reopened + 1,
    ...(suspect === undefined ? {} : { suspect }),
  };
  delete state.closedAt;
  const view = viewOf(e, { id: first.run, url: facts.runUrl(first.run), at: first.at }, suspect, why);
  const key = keyOf(seen.subject);
  return [
    {
      kind: 'reopened',
      subject: seen.subject,
      issue: current.issue,
      what: `reopen incident #${current.issue.number}`,
      calls: [
        {
          call: 'update',
          state: 'open',
          title: issueTitle(failing.title),
          body: { text: incidentBody(view, HOLE), state },
        },
        { call: 'comment', text: reopenComment(view, facts.now - closedAt) },
      ],
      after: openAfter(failing.title, state),
      done: `Incidents: reopened #${current.issue.number} (${key}).`,
    },
  ];
}

function openSteps(e: Episode): PlanStep[] {
  const { facts, seen, failing, first } = e;
  const { id: suspect, why } = suspectNow(e);
  const state: IncidentState = {
    v: 1,
    subject: seen.subject,
    signature: digest(failing.signature),
    since: first.at,
    sinceRun: first.run,
    reopened: 0,
    ...(suspect === undefined ? {} : { suspect }),
  };
  const view = viewOf(e, { id: first.run, url: facts.runUrl(first.run), at: first.at }, suspect, why);
  const key = keyOf(seen.subject);
  return [
    {
      kind: 'opened',
      subject: seen.subject,
      what: 'open an incident issue',
      calls: [
        {
          call: 'create',
          title: issueTitle(failing.title),
          body: { text: incidentBody(view, HOLE), state },
          labels: [INCIDENT_LABEL, subjectLabel(seen.subject, facts.redact)],
          assignees: facts.options.assignees,
        },
      ],
      after: openAfter(failing.title, state),
      done: `Incidents: opened #{number} (${key}): ${failing.title}.`,
    },
  ];
}

/** A healthy run: the incident closes after `recover` healthy runs in a row. */
function closeSteps(facts: IncidentFacts, seen: Observation): PlanStep[] {
  const key = keyOf(seen.subject);
  const current = facts.known.get(key);
  const history = [...told(facts.past, seen.subject), { status: seen.status, at: facts.now, run: facts.runId }];
  const healthy = streak(history, 'healthy');
  if (current?.issue.state !== 'open' || healthy < facts.options.recover) return [];
  const lastFailing = history[history.length - 1 - healthy];
  const recovered = history[history.length - healthy];
  const state: IncidentState = { ...current.state, closedAt: facts.now };
  const refOf = (r: { at: number; run: string }): RunRef => ({ id: r.run, url: facts.runUrl(r.run), at: r.at });
  const text = closeComment({
    who: whoOf(seen.subject),
    recover: facts.options.recover,
    first: refOf({ at: state.since, run: state.sinceRun }),
    last: lastFailing ? refOf(lastFailing) : refOf({ at: state.since, run: state.sinceRun }),
    recoveredAt: recovered.at,
  });
  return [
    {
      kind: 'closed',
      subject: seen.subject,
      issue: current.issue,
      what: `close incident #${current.issue.number}`,
      calls: [
        { call: 'comment', text },
        { call: 'update', state: 'closed', body: { text: replaceMarker(current.issue.body), state } },
      ],
      after: null,
      done: `Incidents: closed #${current.issue.number} (${key}): healthy ${healthy} run(s) in a row.`,
    },
  ];
}
