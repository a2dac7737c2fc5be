// The figures teams track (health/dora.ts), as each reader sees them: the job summary (Markdown),
// the status page (a small HTML section), status.json's `dora` key (bounded in size) and the
// command line's text. Every rate is shown with its numerator and denominator; an open recovery is
// counted as open, never as a time.
import type { DoraFigures, DoraReport } from './dora.js';
import { formatDuration } from '../shared/format.js';
import { code, table } from '../report/markdown.js';

/** The most bytes status.json's `dora` takes: past it, Claws are left out (`clawsLeftOut`), the overall figures never. */
export const MAX_DORA_JSON_BYTES = 200 * 1024;
/** Claws listed by name in the summary, the page and the terminal (the busiest first); status.json has more. */
export const MAX_DORA_CLAWS_SHOWN = 20;
/** The window the per-Claw tables show. */
const CLAW_WINDOW = '30';

const DAY_MS = 24 * 3600_000;

/** A duration for a person: `3h20m`, or `2.5 days` past two days; `—` for none. */
export function doraDuration(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 2 * DAY_MS ? `${Number((ms / DAY_MS).toFixed(1))} days` : formatDuration(ms);
}

/** Each figure as one short cell: frequency, lead time, failure rate (n / N), recovery. */
export function doraCells(f: DoraFigures): string[] {
  const rate = f.changeFailureRate;
  const pct = rate.rate === null ? '—' : `${Math.round(rate.rate * 100)}%`;
  const recovery = f.recoveryMs;
  const open = recovery.open
    ? `${recovery.n ? ', ' : ''}${recovery.n ? `${recovery.open} open` : `open (${recovery.open})`}`
    : '';
  return [
    `${f.deployments} (${f.perWeek}/week)${f.notLive ? `, ${f.notLive} not live` : ''}`,
    f.leadTimeMs.n ? `${doraDuration(f.leadTimeMs.median)} (n=${f.leadTimeMs.n})` : '—',
    `${rate.failed} / ${rate.total} (${pct})`,
    `${recovery.n ? `${doraDuration(recovery.median)} (n=${recovery.n})` : recovery.open ? '' : '—'}${open}`,
  ];
}

const HEAD = ['Deployments', 'Lead time (median)', 'Change failure rate', 'Recovery (median)'];

/** The Claws with a deployment in the widest window, the busiest first, at most `max`. */
function shownClaws(report: DoraReport, max = MAX_DORA_CLAWS_SHOWN): string[] {
  const widest = String(Math.max(...report.windowsDays));
  return Object.keys(report.claws)
    .filter((claw) => (report.claws[claw][CLAW_WINDOW]?.deployments ?? 0) > 0)
    .sort((a, b) => report.claws[b][widest].deployments - report.claws[a][widest].deployments || a.localeCompare(b))
    .slice(0, max);
}

/** The job summary's section; '' when no deployment was recorded in the widest window. */
export function doraSummary(report: DoraReport | undefined): string {
  if (!report || !hasDeployments(report)) return '';
  const overall = report.windowsDays.map((d) => [`${d} days`, ...doraCells(report.overall[String(d)])]);
  const claws = shownClaws(report);
  const perClaw = claws.map((claw) => [code(claw), ...doraCells(report.claws[claw][CLAW_WINDOW])]);
  const more = Object.keys(report.claws).length - claws.length;
  return [
    '#### Deployments: the figures teams track',
    '',
    table(['Window', ...HEAD], overall),
    ...(perClaw.length ? ['', `Per Claw, last ${CLAW_WINDOW} days:`, '', table(['Claw', ...HEAD], perClaw)] : []),
    ...(more > 0 ? ['', `${more} more Claw(s) in status.json.`] : []),
    '',
  ].join('\n');
}

export function hasDeployments(report: DoraReport): boolean {
  return report.overall[String(Math.max(...report.windowsDays))]?.deployments > 0;
}

/** status.json's `dora`: every window overall, and per Claw while it fits MAX_DORA_JSON_BYTES. */
export function doraJson(report: DoraReport, maxBytes = MAX_DORA_JSON_BYTES): Record<string, unknown> {
  const claws: Record<string, unknown> = {};
  let bytes = Buffer.byteLength(JSON.stringify(report.overall), 'utf8') + 256;
  let leftOut = 0;
  for (const claw of Object.keys(report.claws).sort()) {
    const size = Buffer.byteLength(JSON.stringify({ [claw]: report.claws[claw] }), 'utf8');
    if (leftOut || bytes + size > maxBytes) {
      leftOut += 1;
      continue;
    }
    bytes += size;
    claws[claw] = report.claws[claw];
  }
  return {
    windowsDays: report.windowsDays,
    overall: report.overall,
    claws,
    ...(leftOut ? { clawsLeftOut: leftOut } : {}),
  };
}

/**
 * The status page's section: the figures overall per window, then per Claw over 30 days. `escape`
 * is the page's HTML escaper (every Claw id is untrusted text).
 */
export function doraSection(report: DoraReport | undefined, escape: (text: string) => string): string {
  if (!report || !hasDeployments(report)) return '';
  const row = (label: string, f: DoraFigures): string =>
    `<tr><th scope="row">${escape(label)}</th>${doraCells(f)
      .map((cell) => `<td>${escape(cell)}</td>`)
      .join('')}</tr>`;
  const head = (first: string): string =>
    `<thead><tr><th scope="col">${first}</th>${HEAD.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>`;
  const overall = report.windowsDays.map((d) => row(`${d} days`, report.overall[String(d)])).join('');
  const claws = shownClaws(report);
  const perClaw = claws.length
    ? `<details><summary>Per Claw, last ${CLAW_WINDOW} days (${claws.length})</summary><table>${head('Claw')}<tbody>${claws
        .map((claw) => row(claw, report.claws[claw][CLAW_WINDOW]))
        .join('')}</tbody></table></details>`
    : '';
  return `<section aria-labelledby="dora"><h2 id="dora">Delivery: the four DORA figures</h2><p class="muted">By DORA's definitions, from this action's deployment records and incidents: a deployment is one that went live (those that never did are shown apart); a change failure is one rolled back, regressed, or named with evidence as an incident's suspect; recovery runs from going live to the remedy, and one not yet over is counted as open.</p><table>${head('Window')}<tbody>${overall}</tbody></table>${leadTimeNote(report)}${perClaw}</section>`;
}

/** Why lead time reads — when it does: no record of the windows carries its commit's time. */
function leadTimeNote(report: DoraReport): string {
  const longest = report.overall[String(report.windowsDays.at(-1))];
  if (!longest || longest.leadTimeMs.n > 0) return '';
  return `<p class="muted">Lead time: not known, since no deployment record carries its commit's time. The action records it for a deployment made from a workflow run whose commit GitHub knows; the command line records none.</p>`;
}

/** The command line's lines (the overall figures per window, then the busiest Claws over 30 days). */
export function doraText(report: DoraReport | undefined): string {
  if (!report || !hasDeployments(report)) return '';
  const lines = ['Deployments (the figures teams track):'];
  for (const d of report.windowsDays) {
    const [deployments, lead, failure, recovery] = doraCells(report.overall[String(d)]);
    lines.push(
      `  ${`${d} days`.padEnd(8)} ${deployments}; lead time ${lead}; change failure rate ${failure}; recovery ${recovery}`,
    );
  }
  for (const claw of shownClaws(report, 10)) {
    const [deployments, , failure] = doraCells(report.claws[claw][CLAW_WINDOW]);
    lines.push(`  ${claw}: ${deployments} in ${CLAW_WINDOW} days; change failure rate ${failure}`);
  }
  return lines.join('\n');
}
