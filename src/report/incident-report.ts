// An incident as GitHub issue text: the body (what fails, the replies, links to the runs) and the
// comments when what fails changes, when it fails again after a close, and when it recovers.
// Plain data in; every value from the service or a Claw is escaped (replies as literal text), and
// the caller passes the final text through the run's redactor. The body stays under GitHub's
// 65,536 characters.
import { clip, formatDuration } from '../format.js';
import { code, escapeText, link } from './markdown.js';

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

export interface IncidentView {
  /** `Claw \`bot-a\`` or `The service`: already Markdown. */
  who: string;
  title: string;
  failure: FailureView;
  run: RunRef;
  /** The first failing run of this episode. */
  first: RunRef;
  confirm: number;
  recover: number;
  mention: string;
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

/** The issue's body: the sealed marker first (so no cut can lose it), then what fails and the runs. */
export function incidentBody(view: IncidentView, marker: string): string {
  const body = [
    marker,
    `### ${escapeText(view.title)}`,
    '',
    `${view.who} has failed ${view.confirm} run(s) in a row. Seen in ${runText(view.run)}.`,
    '',
    failureText(view.failure),
    '',
    `**First failing run:** ${runText(view.first)}`,
    '',
    `This issue is kept by claw-deploy's scheduled health check: it is commented when what fails changes and closed after ${view.recover} healthy run(s) in a row.`,
    view.mention ? `\n${view.mention}` : '',
  ].join('\n');
  return capIssueText(body);
}

export function changedComment(view: IncidentView): string {
  return capIssueText(`What fails has changed, in ${runText(view.run)}.\n\n${failureText(view.failure)}`);
}

export function reopenComment(view: IncidentView, closedAgoMs: number): string {
  const mention = view.mention ? `\n\n${view.mention}` : '';
  return capIssueText(
    `Failing again ${formatDuration(closedAgoMs)} after this incident closed, in ${runText(view.run)}: reopened rather than a new issue.\n\n${failureText(view.failure)}${mention}`,
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
