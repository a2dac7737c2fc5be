// Previews as a sticky pull-request comment, a job summary and outputs. Per Claw: the preview's id
// and dashboard link, the commit it runs, when it was updated (UTC), and a table of checks with
// production's and the preview's pass counts; under it, collapsed, the replies side by side. Replies
// come from a Claw the pull request may have reconfigured: escaped, capped, and redacted of every
// secret this run knows.
import type { CheckEntry } from '../checks/result.js';
import type { RowVerdict } from './compare.js';
import type { PreviewResult } from './result.js';
import { MAX_REPORT_BYTES, reportOutput } from '../report/report-output.js';
import { comparisonSummary } from '../checks/comparison-report.js';
import { code, escapeText, link, table } from '../report/markdown.js';

/** The longest stretch of one reply shown in the comment. */
const REPLY_CELL_CHARS = 300;
/** GitHub refuses comments over 65,536 characters. */
const MAX_COMMENT_CHARS = 60_000;

const VERDICT: Record<RowVerdict, string> = {
  regression: '🔴 **regression**',
  fixed: '🟢 **fixed**',
  unchanged: 'unchanged',
  error: '⚠️ **error**',
};

const counts = (e: CheckEntry | undefined): string =>
  e ? `${e.passed ? '✅' : e.failures > 0 ? '❌' : '⚠️'} ${e.passes}/${e.attempts}` : '—';

/**
 * What the comment shows: a headline, one section per Claw. Capped so that `reserve` characters
 * (the caller's hidden marker and state) still fit under GitHub's limit.
 */
export function previewComment(
  manifest: string,
  result: PreviewResult,
  now: number,
  redact: (text: string) => string = (t) => t,
  reserve = 0,
): string {
  const when = `${new Date(now).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const commit = result.headSha ? ` · commit ${code(result.headSha.slice(0, 12))}` : '';
  const parts: string[] = [];
  if (result.mode === 'down') {
    parts.push(
      `### 🧹 Previews removed for ${code(manifest)}`,
      '',
      `Pull request #${result.pr} closed · ${when}`,
      '',
      ...(result.removed.length ? result.removed.map((r) => `- ${code(r.id)} deleted`) : ['- nothing to remove']),
    );
  } else {
    const regressions = result.regressions ? `: ${result.regressions} regression(s)` : '';
    parts.push(
      `### 🔍 Preview Claws for ${code(manifest)}${regressions}`,
      '',
      `Pull request #${result.pr}${commit} · updated ${when}`,
    );
    if (result.entries.length === 0) parts.push('', escapeText(result.message));
    for (const entry of result.entries) {
      const preview = entry.previewId ? link(code(entry.previewId), entry.url) : '(none)';
      parts.push('', `#### ${code(entry.claw)} → ${preview}`, '');
      const deployment = entry.deploymentId ? `deployment ${code(entry.deploymentId)}: ` : '';
      parts.push(`${deployment}**${escapeText(entry.outcome)}**`);
      for (const note of entry.notes) parts.push('', `> ${escapeText(redact(note))}`);
      if (entry.comparison && entry.previewId) {
        const compared = [{ clawId: entry.previewId, compared: entry.comparison }];
        parts.push('', comparisonSummary(compared, 'Compared with production').trimEnd());
      }
      if (entry.rows.length === 0) continue;
      parts.push(
        '',
        table(
          ['Check', 'Production', 'Preview', 'Result'],
          entry.rows.map((r) => [escapeText(r.check), counts(r.production), counts(r.preview), VERDICT[r.verdict]]),
        ),
        '',
        '<details><summary>Replies side by side</summary>',
        '',
        table(
          ['Check', 'Attempt', 'Production', 'Preview'],
          entry.rows.flatMap((r) => {
            const n = Math.max(r.production?.replies.length ?? 0, r.preview?.replies.length ?? 0);
            return Array.from({ length: n }, (_, i) => [
              escapeText(r.check),
              String(i + 1),
              reply(r.production?.replies[i], redact),
              reply(r.preview?.replies[i], redact),
            ]);
          }),
        ),
        '',
        '</details>',
      );
    }
  }
  let body = parts.join('\n');
  const room = MAX_COMMENT_CHARS - reserve - 200;
  if (body.length > room)
    body = `${body.slice(0, body.lastIndexOf('\n', room))}\n\n_The comment is cut here; the job summary of this run has every row._`;
  return body;
}

function reply(text: string | undefined, redact: (text: string) => string): string {
  if (text === undefined) return '—';
  const shown = redact(text);
  const cut = shown.length > REPLY_CELL_CHARS ? `${shown.slice(0, REPLY_CELL_CHARS)}…` : shown;
  return `<code>${escapeText(cut)}</code>`;
}

/** The job summary: the comment's sections (without its state), and the sweep's table. */
export function previewSummary(
  manifest: string,
  result: PreviewResult,
  now: number,
  redact?: (t: string) => string,
): string {
  if (result.mode === 'sweep') {
    const rows = [
      ...result.removed.map((r) => [code(r.id), '🗑️ deleted', escapeText(r.why)]),
      ...result.kept.map((k) => [code(k.id), 'kept', escapeText(k.why)]),
    ];
    return [
      `### 🧹 Preview sweep for ${code(manifest)}`,
      '',
      escapeText(result.message),
      '',
      ...(rows.length ? [table(['Claw', 'Action', 'Why'], rows)] : ['No preview Claws in the workspace.']),
      '',
    ].join('\n');
  }
  if (result.mode === 'none') return `### Preview for ${code(manifest)}\n\n${escapeText(result.message)}\n`;
  return `${previewComment(manifest, result, now, redact)}\n`;
}

/** `previews` (JSON, per Claw) and `regressions` (a count). */
export function previewOutputs(result: PreviewResult): { outputs: Record<string, string>; notes: string[] } {
  const previews = result.entries.map((e) => ({
    clawId: e.claw,
    previewId: e.previewId ?? null,
    url: e.url ?? null,
    deploymentId: e.deploymentId ?? null,
    outcome: e.outcome,
    checksPassed: e.checksPassed ?? null,
    regressions: e.regressions,
  }));
  const { json, notes } = reportOutput(previews, MAX_REPORT_BYTES, 'previews');
  return { outputs: { previews: json, regressions: String(result.regressions) }, notes };
}
