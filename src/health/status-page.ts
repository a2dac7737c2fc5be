// The status page, for GitHub Pages: one HTML file with inline CSS and SVG. No JavaScript, nothing
// loaded from elsewhere, one column that fits a phone, the system's dark mode, and a text
// equivalent for every chart. Every value from the service or a Claw (ids, deployment ids) and
// from GitHub (the repository, links) is escaped for HTML; links only to http(s) URLs.
import { doraJson, doraSection } from './dora-report.js';
import {
  type ClawStatus,
  DAY_CLASS_TEXT,
  type DayStat,
  type StatusModel,
  STRIP_DAYS,
  dayClass,
  percent,
} from './uptime.js';
import { type DeploymentRow, MAX_DEPLOYMENT_ROWS } from './deployment-watch.js';
import { counted } from '../shared/format.js';
import { escapeHtml } from '../shared/markup.js';
import { httpUrl } from '../shared/identifiers.js';

/** GitHub Pages serves it whole; the page stays well under the branch's 1 MiB per file. */
export const MAX_PAGE_BYTES = 900 * 1024;
/** Charts stop here; the figures of the next Claws follow, up to MAX_PAGE_BYTES. */
const CHARTS_BYTES = 600 * 1024;

const STATE_TEXT = { healthy: 'up', unhealthy: 'down', unknown: 'unknown' } as const;

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--up:#1a7f37;--minor:#bf8700;--major:#cf222e;--none:#d1d9e0;--p50:#0969da;--p95:#8250df;--dep:#59636e;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--up:#3fb950;--minor:#d29922;--major:#f85149;--none:#3d444d;--p50:#4493f8;--p95:#ab7df8;--dep:#9198a1;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:60rem;margin:0 auto;padding:1rem}
a{color:var(--link)}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.15rem;margin:0;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.banner{padding:.75rem 1rem;border-radius:.5rem;border:1px solid var(--line);border-left:.5rem solid var(--none);background:var(--card);font-weight:600}
.banner.up{border-color:var(--up)}.banner.down{border-color:var(--major)}.banner.unknown{border-color:var(--minor)}
p.empty{display:flex;align-items:center;justify-content:center;height:8rem;margin:0;border:1px dashed var(--line);border-radius:.375rem;color:var(--muted)}
section.claw{border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:1rem 0}
.head{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline;justify-content:space-between}
.state::before{content:"";display:inline-block;width:.7em;height:.7em;border-radius:50%;margin-right:.35em;background:var(--none)}
.state.healthy::before{background:var(--up)}.state.unhealthy::before{background:var(--major)}
dl.uptime{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:.5rem;margin:.75rem 0}
dl.uptime div{background:var(--card);border-radius:.375rem;padding:.4rem .5rem}
dl.uptime dt{font-size:.8rem;color:var(--muted)}dl.uptime dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
figure{margin:.75rem 0}
figcaption{font-size:.875rem;color:var(--muted)}
svg{display:block;width:100%}svg.strip{height:2.25rem}svg.chart{height:8rem}svg path{vector-effect:non-scaling-stroke}
.b-up{fill:var(--up)}.b-minor{fill:var(--minor)}.b-major{fill:var(--major)}.b-none{fill:var(--none)}
.grid{stroke:var(--line);stroke-width:1}.l50{stroke:var(--p50)}.l95{stroke:var(--p95)}.l50,.l95{fill:none;stroke-width:2}
.dep{stroke:var(--dep);stroke-width:1.5;stroke-dasharray:4 3}.dep.v-regressed{stroke:var(--major);stroke-width:2.5;stroke-dasharray:none}.dep.v-improved{stroke:var(--up)}.dep.v-inconclusive{stroke:var(--minor)}
.verdict::before{content:"";display:inline-block;width:.7em;height:.7em;border-radius:50%;margin-right:.35em;background:var(--dep)}.verdict.v-regressed::before{background:var(--major)}.verdict.v-improved::before{background:var(--up)}.verdict.v-inconclusive::before{background:var(--minor)}
tr.suspect td{font-weight:600}.table-wrap{overflow-x:auto}
.key{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.875rem;color:var(--muted);margin:.25rem 0}
.key em{font-style:normal;margin-left:auto}.key span::before{content:"";display:inline-block;width:1rem;height:.2rem;vertical-align:middle;margin-right:.35rem;background:var(--c)}
.ends{display:flex;justify-content:space-between;font-size:.8rem;color:var(--muted)}
.plot{display:grid;grid-template-columns:auto minmax(0,1fr);column-gap:.4rem}
.yaxis{display:flex;flex-direction:column;justify-content:space-between;font-size:.75rem;color:var(--muted);text-align:right;font-variant-numeric:tabular-nums;height:8rem}
.xaxis{position:relative;height:1.2rem;font-size:.75rem;color:var(--muted)}.xaxis span{position:absolute;transform:translateX(-50%);white-space:nowrap}
.xaxis span:first-child{transform:none}.xaxis span:last-child{transform:translateX(-100%)}
details{margin:.25rem 0}summary{cursor:pointer;font-size:.875rem}
table{border-collapse:collapse;font-size:.875rem;margin:.5rem 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:.2rem .6rem .2rem 0;text-align:left}
@media (max-width:30rem){dl.uptime{grid-template-columns:repeat(2,minmax(0,1fr))}main{padding:.75rem}}
`.trim();

function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

const uptimeOfDay = (d: DayStat): string =>
  percent(d.healthy + d.unhealthy ? d.healthy / (d.healthy + d.unhealthy) : undefined);

/** The 90-day strip: one bar per day, bars of a class drawn as one path. */
function strip(claw: ClawStatus, labelId: string): string {
  const bars: Record<string, string[]> = { up: [], minor: [], major: [], none: [] };
  claw.days.forEach((d, i) => bars[dayClass(d)].push(`M${i * 10} 0h8v34h-8z`));
  const paths = Object.entries(bars)
    .filter(([, d]) => d.length)
    .map(([c, d]) => `<path class="b-${c}" d="${d.join('')}"/>`)
    .join('');
  return `<svg class="strip" viewBox="0 0 ${STRIP_DAYS * 10 - 2} 34" preserveAspectRatio="none" role="img" aria-labelledby="${labelId}">${paths}</svg>`;
}

function stripText(claw: ClawStatus): { caption: string; table: string } {
  const counts = { up: 0, minor: 0, major: 0, none: 0 };
  for (const d of claw.days) counts[dayClass(d)] += 1;
  const caption = `Last ${STRIP_DAYS} days, oldest first: ${counts.up} all up, ${counts.minor} partly down, ${counts.major} mostly down, ${counts.none} without data (a day partly down had half its runs or more up).`;
  const bad = claw.days.filter((d) => d.unhealthy > 0);
  const rows = bad
    .map(
      (d) =>
        `<tr><td>${d.day}</td><td>${DAY_CLASS_TEXT[dayClass(d)]}</td><td>${uptimeOfDay(d)}</td><td>${d.unhealthy} of ${d.runs}</td></tr>`,
    )
    .join('');
  const table = bad.length
    ? `<details><summary>Days with failures (${counted(bad.length, 'day')})</summary><table><thead><tr><th scope="col">Day</th><th scope="col">Bar</th><th scope="col">Uptime</th><th scope="col">Failing runs</th></tr></thead><tbody>${rows}</tbody></table></details>`
    : '';
  return { caption, table };
}

/** The top of the latency chart's scale: a round figure above the highest p95. */
function chartScale(claw: ClawStatus): number {
  return niceCeiling(Math.max(1, ...claw.days.map((d) => d.latencyP95 ?? d.latencyP50 ?? 0)));
}

/** Days of replies before the latency chart draws lines. */
const MIN_CHART_DAYS = 2;

/** The days the latency chart spans: from the first with a reply or a deployment mark to today. */
function chartDays(claw: ClawStatus, marks: Mark[]): number {
  const first = claw.days.findIndex((d) => d.latencyP50 !== undefined);
  const firstMark = marks.length ? Math.min(...marks.map((m) => m.index)) : -1;
  const from = [first, firstMark].filter((i) => i >= 0);
  return from.length ? Math.min(...from) : claw.days.length - 1;
}

/**
 * p50 and p95 per day as two lines over the days that have data (not 90 days of empty width), each
 * deployment a mark on its day coloured by its verdict; a time axis of dates below and the scale
 * beside it, in HTML (the chart stretches to its width, so text in it would stretch too).
 */
function latencyChart(claw: ClawStatus, labelId: string, marks: Mark[]): string {
  // One day is a dot in an empty box: say so instead, until there is a line to draw.
  const drawn = claw.days.filter((d) => d.latencyP50 !== undefined).length;
  if (drawn < MIN_CHART_DAYS) {
    return `<p class="empty" role="img" aria-labelledby="${labelId}">Not enough data yet: the chart starts at ${MIN_CHART_DAYS} days of replies (${counted(drawn, 'day')} so far).</p>`;
  }
  const from = chartDays(claw, marks);
  const days = claw.days.slice(from);
  const width = days.length * 10;
  const height = 120;
  const top = 6;
  const scale = chartScale(claw);
  const y = (ms: number): number => Math.round((top + (height - top) * (1 - ms / scale)) * 10) / 10;
  const x = (index: number): number => (index - from) * 10 + 5;
  const line = (key: 'latencyP50' | 'latencyP95'): string => {
    let d = '';
    let drawing = false;
    days.forEach((day, i) => {
      const value = day[key];
      if (value === undefined) return void (drawing = false);
      d += `${drawing ? 'L' : 'M'}${x(i + from)} ${y(value)}`;
      drawing = true;
    });
    // A lone day is a dot: a zero-length segment with round caps would vanish, so draw a tick.
    return d.replace(/M([\d.]+) ([\d.]+)(?=M|$)/g, 'M$1 $2h0.01');
  };
  // One path per verdict, each deployment a vertical mark on its day: the colour says its verdict.
  const byVerdict = new Map<string, Set<number>>();
  for (const m of marks) byVerdict.set(m.verdict ?? '', (byVerdict.get(m.verdict ?? '') ?? new Set()).add(m.index));
  const deployments = [...byVerdict]
    .map(([verdict, at]) => {
      const d = [...at].map((i) => `M${x(i)} 0V${height}`).join('');
      return `<path class="dep${verdict ? ` v-${verdict}` : ''}" d="${d}"/>`;
    })
    .join('');
  // Dates under the chart: the first day, the middle one and today, each under its own day.
  const ticks = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])];
  const dates = ticks
    .map((i) => `<span style="left:${(((i + 0.5) / days.length) * 100).toFixed(2)}%">${days[i].day.slice(5)}</span>`)
    .join('');
  const yAxis = [scale, scale / 2, 0].map((ms) => `<span>${ms ? escapeHtml(formatMs(ms)) : '0'}</span>`).join('');
  return [
    `<div class="plot"><div class="yaxis" aria-hidden="true">${yAxis}</div>`,
    `<svg class="chart" viewBox="0 0 ${width} ${height + 2}" preserveAspectRatio="none" role="img" aria-labelledby="${labelId}">`,
    `<path class="grid" d="M0 ${top}H${width}M0 ${y(scale / 2)}H${width}M0 ${height}H${width}"/>`,
    deployments,
    `<path class="l95" stroke-linecap="round" d="${line('latencyP95')}"/>`,
    `<path class="l50" stroke-linecap="round" d="${line('latencyP50')}"/>`,
    '</svg>',
    `<div></div><div class="xaxis" aria-hidden="true">${dates}</div></div>`,
  ].join('');
}

function niceCeiling(ms: number): number {
  const steps = [100, 200, 250, 500];
  for (let unit = 1; ; unit *= 10) for (const s of steps) if (s * unit >= ms) return s * unit;
}

const checksOfDay = (d: DayStat): string => {
  if (!d.checks) return '—';
  const total = d.checks.passed + d.checks.failed + d.checks.errors;
  return total ? `${percent(d.checks.passed / total)} (${d.checks.passed} of ${total})` : '—';
};

/** A deployment on the chart: its day's index, its id and the verdict it is coloured by. */
interface Mark {
  index: number;
  id: string;
  verdict: DeploymentRow['verdict'];
}

/** The chart's deployments: those the health runs saw go live, and those the records name, each once. */
function marksOf(claw: ClawStatus, rows: DeploymentRow[]): Mark[] {
  const index = new Map(claw.days.map((d, i) => [d.day, i]));
  const marks = new Map<string, Mark>();
  claw.days.forEach((d, i) => d.newDeployments.forEach((id) => marks.set(id, { index: i, id, verdict: null })));
  for (const r of rows) {
    const i = index.get(new Date(r.at).toISOString().slice(0, 10));
    if (i !== undefined) marks.set(r.id, { index: i, id: r.id, verdict: r.verdict });
  }
  return [...marks.values()].sort((a, b) => a.index - b.index || a.id.localeCompare(b.id));
}

function latencyText(claw: ClawStatus, marksShown: Mark[]): { caption: string; table: string } {
  const days = claw.days.filter((d) => d.latencyP50 !== undefined || d.newDeployments.length || d.checks);
  const week = claw.days.slice(-7).filter((d) => d.latencyP50 !== undefined);
  const named = (m: Mark): string => (m.verdict ? `${m.id}: ${m.verdict}` : m.id);
  const deployed = [...new Set(marksShown.map((m) => m.index))].map((i) => ({
    day: claw.days[i].day,
    newDeployments: marksShown.filter((m) => m.index === i).map(named),
  }));
  const median = week.length
    ? week.map((d) => d.latencyP50!).sort((a, b) => a - b)[Math.floor(week.length / 2)]
    : undefined;
  const marks = deployed.length
    ? `New deployment on ${deployed.map((d) => `${d.day} (${d.newDeployments.join(', ')})`).join('; ')}.`
    : `No new deployment in ${STRIP_DAYS} days.`;
  const caption = days.length
    ? `Reply latency of the probe and checks per day. Median of the daily p50 over the last 7 days: ${formatMs(median)}. ${marks}`
    : `No reply latency recorded in the last ${STRIP_DAYS} days. ${marks}`;
  const rows = days
    .map(
      (d) =>
        `<tr><td>${d.day}</td><td>${formatMs(d.latencyP50)}</td><td>${formatMs(d.latencyP95)}</td><td>${escapeHtml(checksOfDay(d))}</td><td>${d.newDeployments.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ') || '—'}</td></tr>`,
    )
    .join('');
  const table = days.length
    ? `<details><summary>Latency, checks and deployments per day (${counted(days.length, 'day')})</summary><table><thead><tr><th scope="col">Day</th><th scope="col">p50</th><th scope="col">p95</th><th scope="col">Checks passed</th><th scope="col">New deployment</th></tr></thead><tbody>${rows}</tbody></table></details>`
    : '';
  return { caption: escapeHtml(caption), table };
}

function incidentLink(incident: { number: number; url: string } | undefined, text: string): string {
  if (!incident) return '';
  const href = httpUrl(incident.url);
  const label = `${escapeHtml(text)} #${incident.number}`;
  return href ? `<a href="${escapeHtml(href)}">${label}</a>` : label;
}

function uptimeList(claw: ClawStatus): string {
  const items: [string, number | undefined][] = [
    ['24 hours', claw.uptime.day],
    ['7 days', claw.uptime.week],
    ['30 days', claw.uptime.month],
    ['90 days', claw.uptime.quarter],
  ];
  return `<dl class="uptime">${items.map(([label, value]) => `<div><dt>Uptime ${label}</dt><dd>${percent(value)}</dd></div>`).join('')}</dl>`;
}

function checksLine(claw: ClawStatus): string {
  if (!claw.checks) return '<p class="muted">No conversation checks ran in the last 90 days.</p>';
  const { rate, passed, total } = claw.checks;
  return `<p>Checks passed: <strong>${percent(rate)}</strong> <span class="muted">(${passed} of ${total} in ${STRIP_DAYS} days)</span></p>`;
}

function head(claw: ClawStatus, id: string): string {
  const state = claw.current ?? 'unknown';
  const checked =
    claw.lastCheckedAt === undefined ? '' : ` <span class="muted">· checked ${formatTime(claw.lastCheckedAt)}</span>`;
  const incident = incidentLink(claw.incident, 'Incident');
  return `<div class="head"><h2 id="${id}">${escapeHtml(claw.claw)}</h2><p><span class="state ${state}">${STATE_TEXT[state]}</span>${checked}${incident ? ` · ${incident}` : ''}</p></div>`;
}

function section(claw: ClawStatus, index: number, rows: DeploymentRow[]): string {
  const id = `claw-${index}`;
  const s = stripText(claw);
  const marks = marksOf(claw, rows);
  const l = latencyText(claw, marks);
  return [
    `<section class="claw" aria-labelledby="${id}">`,
    head(claw, id),
    uptimeList(claw),
    `<figure>${strip(claw, `${id}-strip`)}<div class="ends" aria-hidden="true"><span>${STRIP_DAYS} days ago</span><span>today</span></div><figcaption id="${id}-strip">${s.caption}</figcaption>${s.table}</figure>`,
    `<figure>${latencyChart(claw, `${id}-latency`, marks)}<div class="key" aria-hidden="true"><span style="--c:var(--p50)">p50</span><span style="--c:var(--p95)">p95</span><span style="--c:var(--dep)">new deployment</span><span style="--c:var(--major)">regressed</span><span style="--c:var(--up)">improved</span><em>dates in UTC; scale 0 to ${escapeHtml(formatMs(chartScale(claw)))}</em></div><figcaption id="${id}-latency">${l.caption}</figcaption>${l.table}</figure>`,
    checksLine(claw),
    '</section>',
  ].join('\n');
}

/** A Claw past the page's size budget: its figures, without the charts. */
function shortSection(claw: ClawStatus, index: number): string {
  const id = `claw-${index}`;
  return `<section class="claw" aria-labelledby="${id}">${head(claw, id)}${uptimeList(claw)}${checksLine(claw)}</section>`;
}

function banner(model: StatusModel): string {
  const down = model.claws.filter((c) => c.current === 'unhealthy').map((c) => c.claw);
  const unknown = model.claws.filter((c) => c.current !== 'unhealthy' && c.current !== 'healthy').map((c) => c.claw);
  const service = model.serviceIncident
    ? `<p class="banner down">${escapeHtml(model.serviceIncident.title)} · ${incidentLink(model.serviceIncident, 'Incident')}</p>`
    : '';
  const n = model.claws.length;
  const some = (ids: string[]): string =>
    ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
  const state = down.length ? 'down' : unknown.length || n === 0 ? 'unknown' : 'up';
  const text =
    n === 0
      ? 'No Claw has been checked yet.'
      : down.length === 0 && unknown.length === 0
        ? n === 1
          ? 'The Claw is up.'
          : `All ${n} Claws are up.`
        : [
            down.length ? `Down: ${some(down)} (${down.length} of ${n}).` : 'No Claw is down.',
            unknown.length ? `Not known (the last run could not tell): ${some(unknown)}.` : '',
          ]
            .filter(Boolean)
            .join(' ');
  return `${service}<p class="banner ${state}">${escapeHtml(text)}</p>`;
}

/** The most incidents the list at the top shows: the page has a size to keep. */
const MAX_INCIDENTS_LISTED = 20;

/** Incidents open now, and those the last run closed, each a link to its issue. */
function incidentList(model: StatusModel): string {
  const incidents = model.incidents ?? [];
  if (!incidents.length) return '';
  const items = incidents
    .slice(0, MAX_INCIDENTS_LISTED)
    .map((i) => `<li>${incidentLink(i, i.state === 'open' ? 'Open' : 'Closed')}: ${escapeHtml(i.title)}</li>`)
    .join('');
  const more =
    incidents.length > MAX_INCIDENTS_LISTED
      ? `<p class="muted">And ${incidents.length - MAX_INCIDENTS_LISTED} more; each Claw's section links its own.</p>`
      : '';
  return `<section aria-labelledby="incidents"><h2 id="incidents">Incidents</h2><ul>${items}</ul>${more}</section>`;
}

const rate = (r: number | null | undefined): string => (r === null || r === undefined ? '—' : percent(r));

/** A change in points with its bounds: "−18.0 (−27.1 to −9.0)". */
function changeText(f: DeploymentRow['figures']): string {
  if (!f || f.change === null) return '—';
  const pts = (v: number): string => `${v < 0 ? '−' : '+'}${Math.abs(v * 100).toFixed(1)}`;
  const bounds = f.low === null || f.high === null ? '' : ` (${pts(f.low)} to ${pts(f.high)})`;
  return `${pts(f.change)}${bounds}`;
}

function deploymentRow(r: DeploymentRow): string {
  const link = (text: string, url: string | undefined): string => {
    const href = httpUrl(url);
    return href ? `<a href="${escapeHtml(href)}">${text}</a>` : text;
  };
  const verdict = r.verdict ?? 'not watched';
  const said = [r.gate ? `gate: ${r.gate}` : '', r.watch ? `watch: ${r.watch}` : ''].filter(Boolean).join(', ');
  const suspect = r.suspect
    ? `<strong>Suspect</strong>${r.incident ? ` · ${incidentLink(r.incident, 'Incident')}` : ''}`
    : r.notNamed
      ? `<span class="muted">Not the suspect: ${escapeHtml(r.notNamed)}</span>`
      : '';
  const cells = [
    escapeHtml(r.claw),
    `<code>${escapeHtml(r.id)}</code>`,
    formatTime(r.at),
    escapeHtml(r.outcome),
    `<span class="verdict v-${escapeHtml(verdict.replace(/ /g, '-'))}">${escapeHtml(verdict)}</span>${said ? ` <span class="muted">(${escapeHtml(said)})</span>` : ''}`,
    r.figures ? `${rate(r.figures.before.passRate)} <span class="muted">(${r.figures.before.runs} runs)</span>` : '—',
    r.figures ? `${rate(r.figures.after.passRate)} <span class="muted">(${r.figures.after.runs} runs)</span>` : '—',
    escapeHtml(changeText(r.figures)),
    r.run ? link(`run ${escapeHtml(r.run)}`, r.runUrl) : '—',
    r.commit ? link(`<code>${escapeHtml(r.commit.slice(0, 12))}</code>`, r.commitUrl) : '—',
    suspect,
  ];
  return `<tr${r.suspect ? ' class="suspect"' : ''}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** The window's deployments: each one's verdict, its pass rate before and after, its run and commit; a suspect marked. */
function deploymentTable(model: StatusModel): string {
  if (!model.deployments) return '';
  const { windowDays, rows } = model.deployments;
  const heading = `<h2 id="deployments">Deployments in the last ${windowDays} days</h2>`;
  if (!rows.length)
    return `<section aria-labelledby="deployments">${heading}<p class="muted">No deployment recorded in the window.</p></section>`;
  const head = [
    'Claw',
    'Deployment',
    'When',
    'Outcome',
    'Verdict',
    'Pass rate before',
    'After',
    'Change (points)',
    'Run',
    'Commit',
    'Suspect',
  ];
  const shown = rows.slice(0, MAX_DEPLOYMENT_ROWS);
  const more =
    rows.length > shown.length
      ? `<p class="muted">And ${rows.length - shown.length} older; status.json lists the same ${shown.length}.</p>`
      : '';
  return [
    `<section aria-labelledby="deployments">${heading}`,
    `<p class="muted">Each deployment that went live is watched for ${windowDays} days: the health runs since against those of the ${windowDays} days before, with a sequential rule whose false alarms stay at or under 5% per deployment however many runs look. The verdict is the gate's or the watch's (regressed when either says so).</p>`,
    `<div class="table-wrap" role="region" aria-labelledby="deployments" tabindex="0"><table><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${shown.map(deploymentRow).join('')}</tbody></table></div>${more}</section>`,
  ].join('');
}

/** index.html for the model. */
export function statusPage(model: StatusModel): string {
  const title = model.repository ? `Claw status · ${model.repository}` : 'Claw status';
  const top = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<header><h1>${escapeHtml(title)}</h1><p class="muted">Updated <time datetime="${new Date(model.generatedAt).toISOString()}">${formatTime(model.generatedAt)}</time>. Times are UTC; uptime counts the runs that could tell.</p></header>`,
    banner(model),
    incidentList(model),
    deploymentTable(model),
    doraSection(model.dora, escapeHtml),
  ]
    .filter(Boolean)
    .join('\n');
  const end = ['</main>', '</body>', '</html>', ''].join('\n');
  const parts: string[] = [];
  const size = (text: string): number => Buffer.byteLength(text, 'utf8') + 1;
  // Room for the notes below, whatever the counts in them.
  let bytes = size(top + end) + 1024;
  let short = 0;
  let omitted = 0;
  // Each Claw's deployments, grouped once (the rows hold every Claw's).
  const rowsOf = new Map<string, DeploymentRow[]>();
  for (const r of model.deployments?.rows ?? []) {
    const own = rowsOf.get(r.claw);
    if (own) own.push(r);
    else rowsOf.set(r.claw, [r]);
  }
  model.claws.forEach((claw, i) => {
    const full = section(claw, i + 1, rowsOf.get(claw.claw) ?? []);
    const charts = short === 0 && omitted === 0 && bytes + size(full) <= CHARTS_BYTES;
    const part = charts ? full : shortSection(claw, i + 1);
    if (omitted > 0 || bytes + size(part) > MAX_PAGE_BYTES) {
      omitted += 1;
      return;
    }
    if (!charts) short += 1;
    parts.push(part);
    bytes += size(part);
  });
  omitted += model.leftOut ?? 0;
  const kib = Math.round(MAX_PAGE_BYTES / 1024);
  const notes = [
    short
      ? `The charts of the last ${counted(short, 'Claw')} are left out to keep this page under ${kib} KiB; status.json has their figures.`
      : '',
    omitted
      ? `${counted(omitted, 'more Claw', 'more Claws')} of the history are left out altogether, to keep this page under ${kib} KiB.`
      : '',
  ].filter(Boolean);
  const note = notes.length ? `<p class="muted">${notes.join(' ')}</p>` : '';
  return [top, ...parts, note, end].filter(Boolean).join('\n');
}

/** status.json: the same figures for scripts; per-day series only while the file stays under the cap. */
export function statusJson(model: StatusModel): string {
  const round = (v: number | undefined): number | null => (v === undefined ? null : Math.round(v * 1e6) / 1e6);
  const dora = model.dora && doraJson(model.dora);
  let bytes = dora ? Buffer.byteLength(JSON.stringify(dora), 'utf8') : 0;
  let leftOut = model.leftOut ?? 0;
  const claws: Record<string, unknown>[] = [];
  for (const c of model.claws) {
    const entry: Record<string, unknown> = {
      id: c.claw,
      status: STATE_TEXT[c.current ?? 'unknown'],
      lastCheckedAt: c.lastCheckedAt === undefined ? null : new Date(c.lastCheckedAt).toISOString(),
      uptime: {
        '24h': round(c.uptime.day),
        '7d': round(c.uptime.week),
        '30d': round(c.uptime.month),
        '90d': round(c.uptime.quarter),
      },
      checks: c.checks ? { rate: round(c.checks.rate), passed: c.checks.passed, total: c.checks.total } : null,
      incident: c.incident ? { number: c.incident.number, url: httpUrl(c.incident.url) ?? null } : null,
    };
    const days = c.days
      .filter((d) => d.runs > 0)
      .map((d) => ({
        day: d.day,
        runs: d.runs,
        healthy: d.healthy,
        unhealthy: d.unhealthy,
        unknown: d.unknown,
        latencyP50: d.latencyP50 ?? null,
        latencyP95: d.latencyP95 ?? null,
        deployments: d.deployments,
        newDeployments: d.newDeployments,
        checks: d.checks ?? null,
      }));
    const own = Buffer.byteLength(JSON.stringify(entry), 'utf8') + 64;
    if (leftOut > (model.leftOut ?? 0) || bytes + own > MAX_PAGE_BYTES) {
      leftOut += 1;
      continue;
    }
    bytes += own;
    const size = Buffer.byteLength(JSON.stringify(days), 'utf8');
    if (bytes + size > MAX_PAGE_BYTES) entry.daysLeftOut = true;
    else {
      entry.days = days;
      bytes += size;
    }
    claws.push(entry);
  }
  const service = model.serviceIncident
    ? { number: model.serviceIncident.number, url: httpUrl(model.serviceIncident.url) ?? null }
    : null;
  const generatedAt = new Date(model.generatedAt).toISOString();
  return `${JSON.stringify({ generatedAt, serviceIncident: service, claws, ...(leftOut ? { clawsLeftOut: leftOut } : {}), ...(dora ? { dora } : {}), ...deploymentsJson(model) }, null, 1)}\n`;
}

/**
 * status.json's `deployments`: the window's deployments, newest first. `verdict` is what the page
 * colours by (docs/health.md): `regressed` when the gate or the watch said so, else the watch's
 * once decided, else the gate's, else `watching`; `gate` and `watch` give each one's own.
 */
function deploymentsJson(model: StatusModel): Record<string, unknown> {
  if (!model.deployments) return {};
  const { rows, windowDays } = model.deployments;
  const side = (s: { passRate: number | null; n: number; runs: number }) => ({
    passRate: s.passRate === null ? null : Math.round(s.passRate * 1e6) / 1e6,
    n: s.n,
    runs: s.runs,
  });
  const deployments = rows.slice(0, MAX_DEPLOYMENT_ROWS).map((r) => ({
    claw: r.claw,
    id: r.id,
    time: new Date(r.at).toISOString(),
    commit: r.commit ?? null,
    outcome: r.outcome,
    verdict: r.verdict,
    gate: r.gate ?? null,
    watch: r.watch ?? null,
    before: r.figures ? side(r.figures.before) : null,
    after: r.figures ? side(r.figures.after) : null,
    run: r.run || null,
    suspect: r.suspect,
    notNamed: r.notNamed ?? null,
    incident: r.incident ? { number: r.incident.number, url: httpUrl(r.incident.url) ?? null } : null,
  }));
  const leftOut = rows.length - deployments.length;
  return { deploymentWindowDays: windowDays, deployments, ...(leftOut > 0 ? { deploymentsLeftOut: leftOut } : {}) };
}
