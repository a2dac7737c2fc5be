// An incident as GitHub issue text: the body (what fails, the replies, links to the runs) and the
// comments when what fails changes, when it fails again after a close, and when it recovers.
// Plain data in; every value from the service or a Claw is escaped (replies as literal text), and
// the caller passes the final text through the run's redactor. The body stays under GitHub's
// 65,536 characters.
import { clip, formatDuration } from '../shared/format.js';
import { code, escapeText, link } from '../report/markdown.js';

/** GitHub refuses issue bodies and comments past 65,536 characters; stay well below. */
export const MAX_ISSUE_CHARS = 60_000;
const MAX_REPLY_CHARS = 1000;

/** What fails, as the run saw it. */
export interface FailureView {
  /** One line: the status read, the probe's verdict, or the checks that failed. */
  summary: string;
  /** The Claw's status words. */
  status?: string;
  /** The probe's reply. */
  reply?: string;
  /** Failed checks: name, the first failing assertion, the last reply. */
  checks?: { name: string; failure?: string; reply?: string }[];
}

export interface RunRef {
  id: string;
  url?: string;
  at: number;
}

/** A watch's figures: the pass rate before and after a deployment (or an anchor), and the change's bounds. */
export interface WatchFigures {
  before: { passRate: number | null; n: number; runs: number };
  after: { passRate: number | null; n: number; runs: number };
  /** After minus before, and its sequential bounds (each one-sided at the watch's level, valid at every look). */
  change: number | null;
  low: number | null;
  high: number | null;
}

/** A deployment an incident names, from its sealed record. */
export interface SuspectView {
  id: string;
  at: number;
  outcome: string;
  commit?: string;
  commitUrl?: string;
  /** The previous deployment's commit of the same Claw, and a link comparing it with this one. */
  previousCommit?: string;
  compareUrl?: string;
  /** The run that deployed it. */
  run: { id: string; url?: string };
  /** Its watch's figures, once health ran on both sides of it. */
  figures?: WatchFigures;
}

/**
 * What an incident says of its cause: a deployment (its record in the window, or only its id), that
 * nothing was deployed, or the window's deployment and why it is not named (no evidence ties it).
 */
export type SuspectLine =
  | { deployment: SuspectView; evidence?: string }
  | { id: string }
  | { nothingDeployed: { windowDays: number } }
  | { notNamed: { deployment: SuspectView; failureAt: number } };

const HOUR_MS = 3600_000;

/**
 * Why a deployment of the window is not named as the cause, in the words the issue, the page and
 * status.json all use: the failure began after it ran healthy (or unchanged) for a while, or before it.
 */
export function notNamedText(deployedAt: number, failureAt: number): string {
  if (failureAt < deployedAt) return 'the failure began before it was deployed; not named as the cause';
  const hours = (failureAt - deployedAt) / HOUR_MS;
  const [n, unit] = hours >= 24 ? [Math.round(hours / 24), 'day'] : [Math.max(1, Math.round(hours)), 'hour'];
  const ago = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return `deployed ${ago} earlier and healthy since; not named as the cause`;
}

export interface IncidentView {
  /** `Claw \`bot-a\`` or `The service`: already Markdown. */
  who: string;
  title: string;
  failure: FailureView;
  run: RunRef;
  /** The first failing run of this episode. */
  first: RunRef;
  /** Failing runs in a row; 0 when the Claw does not fail outright and only the watch found a regression. */
  confirm: number;
  recover: number;
  mention: string;
  /** The watch's regression, when it found one. */
  regression?: { figures: WatchFigures; deployment?: string };
  suspect?: SuspectLine;
}

const time = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A run as a link when it has a page: `run 4242` (2026-11-22 12:00 UTC). */
export function runText(run: RunRef): string {
  const name = run.id ? `run ${escapeText(run.id)}` : 'a run outside GitHub';
  return `${link(name, run.url)} (${time(run.at)})`;
}

function failureText(failure: FailureView): string {
  const lines = [`**What fails:** ${escapeText(failure.summary)}`];
  if (failure.status) lines.push(`**Status:** ${code(failure.status)}`);
  if (failure.reply !== undefined) lines.push(`**Reply:** ${code(clip(failure.reply, MAX_REPLY_CHARS))}`);
  for (const check of failure.checks ?? []) {
    const why = check.failure ? `: ${escapeText(clip(check.failure, 300))}` : '';
    const reply = check.reply === undefined ? '' : `\n  Reply: ${code(clip(check.reply, MAX_REPLY_CHARS))}`;
    lines.push(`- Check ${code(check.name)} failed${why}${reply}`);
  }
  return lines.join('\n');
}

/** Cuts text to `max` characters at a line boundary, saying so. */
export function capIssueText(text: string, max = MAX_ISSUE_CHARS): string {
  if (text.length <= max) return text;
  const note = '\n\n_Cut to stay under GitHub’s limit; the run’s summary has the rest._';
  const cut = text.slice(0, max - note.length);
  return `${cut.slice(0, Math.max(0, cut.lastIndexOf('\n')))}${note}`;
}

const rate = (r: number | null): string => (r === null ? '—' : `${(r * 100).toFixed(1)}%`);
const points = (d: number | null): string =>
  d === null ? '—' : `${d >= 0 ? '+' : '−'}${Math.abs(d * 100).toFixed(1)}`;

/** A watch's figures in one line: before → after, the change in points and its bounds. */
export function figuresText(f: WatchFigures): string {
  const side = (s: WatchFigures['before']) => `${rate(s.passRate)} (${s.n} judged in ${s.runs} run(s))`;
  const bounds = f.low === null || f.high === null ? '' : `, bounds ${points(f.low)} to ${points(f.high)}`;
  return `pass rate ${side(f.before)} before → ${side(f.after)} after: ${points(f.change)} points${bounds}`;
}

/** The suspect, as the incident names it. */
export function suspectText(line: SuspectLine): string {
  if ('notNamed' in line) {
    const { deployment: d, failureAt } = line.notNamed;
    return `**Suspect deployment:** none. ${code(d.id)} (${time(d.at)}) was ${notNamedText(d.at, failureAt)}: the evidence does not tie them (docs/health.md, "Which deployment changed behaviour").`;
  }
  if ('nothingDeployed' in line)
    return `**Suspect deployment:** none. Nothing was deployed to this Claw in the ${line.nothingDeployed.windowDays} days before (no deployment record on the history branch): the change came from outside the deployments (the model, its tools, the judge).`;
  if (!('deployment' in line))
    return `**Suspect deployment:** ${code(line.id)} (its record is no longer in the window).`;
  const d = line.deployment;
  const commit = d.commit ? `, commit ${link(code(d.commit.slice(0, 12)), d.commitUrl)}` : '';
  const run = d.run.id ? `, deployed by ${link(`run ${escapeText(d.run.id)}`, d.run.url)}` : '';
  const compare =
    d.previousCommit && d.commit
      ? `\n**Changes since the previous deployment:** ${link(`${code(d.previousCommit.slice(0, 12))}…${code(d.commit.slice(0, 12))}`, d.compareUrl)}`
      : '';
  const figures = d.figures ? `\n**Before and after it:** ${figuresText(d.figures)}.` : '';
  const evidence = line.evidence ? `\n**Evidence:** ${escapeText(line.evidence)}.` : '';
  return `**Suspect deployment:** ${code(d.id)} (${time(d.at)}, ${escapeText(d.outcome)})${commit}${run}.${compare}${figures}${evidence}`;
}

function opening(view: IncidentView): string {
  if (view.confirm > 0) return `${view.who} has failed ${view.confirm} run(s) in a row. Seen in ${runText(view.run)}.`;
  const since = view.regression?.deployment
    ? ` since deployment ${code(view.regression.deployment)}`
    : view.suspect && 'notNamed' in view.suspect
      ? ''
      : ' with nothing deployed';
  return `${view.who} behaves worse${since}: the watch's sequential test found its checks' pass rate lower. Seen in ${runText(view.run)}.`;
}

function causeText(view: IncidentView): string {
  const lines: string[] = [];
  if (view.regression) lines.push(`**The watch:** ${figuresText(view.regression.figures)}.`);
  if (view.suspect) lines.push(suspectText(view.suspect));
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** The issue's body: the sealed marker first (so no cut can lose it), then what fails and the runs. */
export function incidentBody(view: IncidentView, marker: string): string {
  const body = [
    marker,
    `### ${escapeText(view.title)}`,
    '',
    opening(view),
    '',
    failureText(view.failure),
    causeText(view),
    `**First failing run:** ${runText(view.first)}`,
    '',
    `This issue is kept by claw-deploy's scheduled health check: it is commented when what fails changes and closed after ${view.recover} healthy run(s) in a row.`,
    view.mention ? `\n${view.mention}` : '',
  ].join('\n');
  return capIssueText(body);
}

export function changedComment(view: IncidentView): string {
  return capIssueText(
    `What fails has changed, in ${runText(view.run)}.\n\n${failureText(view.failure)}${causeText(view)}`,
  );
}

export function reopenComment(view: IncidentView, closedAgoMs: number): string {
  const mention = view.mention ? `\n\n${view.mention}` : '';
  return capIssueText(
    `Failing again ${formatDuration(closedAgoMs)} after this incident closed, in ${runText(view.run)}: reopened rather than a new issue.\n\n${failureText(view.failure)}${causeText(view)}${mention}`,
  );
}

export function closeComment(close: {
  who: string;
  recover: number;
  first: RunRef;
  last: RunRef;
  recoveredAt: number;
}): string {
  const duration = formatDuration(Math.max(0, close.recoveredAt - close.first.at));
  return capIssueText(
    [
      `✅ Recovered: ${close.who} has been healthy for ${close.recover} run(s) in a row.`,
      '',
      `**Duration:** ${duration}, from the first failing run to the first healthy one.`,
      `**First failing run:** ${runText(close.first)}`,
      `**Last failing run:** ${runText(close.last)}`,
    ].join('\n'),
  );
}
