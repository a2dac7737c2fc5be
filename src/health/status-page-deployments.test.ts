// The page's deployments: each marker coloured by its verdict, the window's table (verdict, pass
// rate before and after, run and commit links, the suspect and its incident), and status.json's
// `deployments`; every text from a record escaped.
import { describe, expect, it } from 'vitest';
import type { DeploymentRow } from './deployment-watch.js';
import type { ClawStatus, StatusModel } from './uptime.js';
import { statusJson, statusPage } from './status-page.js';

const NOW = Date.UTC(2026, 10, 25, 12);
const DAY = 86_400_000;
const COMMIT = 'c'.repeat(40);

function claw(id: string): ClawStatus {
  return {
    claw: id,
    current: 'healthy',
    lastCheckedAt: NOW,
    uptime: { day: 1, week: 1 },
    days: Array.from({ length: 90 }, (_, i) => ({
      day: new Date(NOW - (89 - i) * DAY).toISOString().slice(0, 10),
      runs: 4,
      healthy: 4,
      unhealthy: 0,
      unknown: 0,
      latencyP50: 200,
      latencyP95: 400,
      deployments: [],
      newDeployments: [],
    })),
  };
}

const figures = {
  before: { passRate: 0.9, n: 840, runs: 28 },
  after: { passRate: 0.7, n: 90, runs: 3 },
  change: -0.2,
  low: -0.3,
  high: -0.1,
};
const row = (id: string, verdict: DeploymentRow['verdict'], extra: Partial<DeploymentRow> = {}): DeploymentRow => ({
  claw: 'bot',
  id,
  at: NOW - 2 * DAY,
  outcome: 'succeeded',
  run: '4242',
  runUrl: 'https://github.com/octo/claws/actions/runs/4242',
  commit: COMMIT,
  commitUrl: `https://github.com/octo/claws/commit/${COMMIT}`,
  verdict,
  suspect: false,
  ...extra,
});

const model = (rows: DeploymentRow[]): StatusModel => ({
  generatedAt: NOW,
  repository: 'octo/claws',
  claws: [claw('bot')],
  deployments: { windowDays: 7, rows },
});

describe('the deployments on the status page', () => {
  const rows = [
    row('dep-bad', 'regressed', {
      watch: 'regressed',
      figures,
      suspect: true,
      incident: { number: 7, url: 'https://github.com/octo/claws/issues/7' },
    }),
    row('dep-<b>"x"', 'unchanged', { at: NOW - 5 * DAY, gate: 'unchanged' }),
  ];

  it('colours each marker by its verdict and says it in the caption', () => {
    const html = statusPage(model(rows));
    const chart = html.slice(
      html.indexOf('<svg class="chart"'),
      html.indexOf('</svg>', html.indexOf('<svg class="chart"')),
    );
    expect(chart).toMatch(/<path class="dep v-regressed" d="M875 0V120"\/>/);
    expect(chart).toMatch(/<path class="dep v-unchanged" d="M845 0V120"\/>/);
    expect(html).toContain('(dep-bad: regressed)');
  });

  it('lists the window: verdict, figures before and after, run and commit links, the suspect and its incident', () => {
    const html = statusPage(model(rows));
    expect(html).toContain('<h2 id="deployments">Deployments in the last 7 days</h2>');
    const suspect = html.slice(
      html.indexOf('<tr class="suspect">'),
      html.indexOf('</tr>', html.indexOf('<tr class="suspect">')),
    );
    expect(suspect).toContain('<code>dep-bad</code>');
    expect(suspect).toContain('<span class="verdict v-regressed">regressed</span>');
    expect(suspect).toContain('90.0%');
    expect(suspect).toContain('70.0%');
    expect(suspect).toContain('−20.0 (−30.0 to −10.0)');
    expect(suspect).toContain('<a href="https://github.com/octo/claws/actions/runs/4242">run 4242</a>');
    expect(suspect).toContain(
      `<a href="https://github.com/octo/claws/commit/${COMMIT}"><code>${COMMIT.slice(0, 12)}</code></a>`,
    );
    expect(suspect).toContain(
      '<strong>Suspect</strong> · <a href="https://github.com/octo/claws/issues/7">Incident #7</a>',
    );
    // A record's text never opens markup.
    expect(html).toContain('<code>dep-&lt;b&gt;&quot;x&quot;</code>');
    expect(html).not.toContain('dep-<b>');
  });

  it('status.json lists them under `deployments`', () => {
    const json = JSON.parse(statusJson(model(rows)));
    expect(json.deploymentWindowDays).toBe(7);
    expect(json.deployments[0]).toEqual({
      claw: 'bot',
      id: 'dep-bad',
      time: new Date(NOW - 2 * DAY).toISOString(),
      commit: COMMIT,
      outcome: 'succeeded',
      verdict: 'regressed',
      gate: null,
      watch: 'regressed',
      before: { passRate: 0.9, n: 840, runs: 28 },
      after: { passRate: 0.7, n: 90, runs: 3 },
      run: '4242',
      suspect: true,
      notNamed: null,
      incident: { number: 7, url: 'https://github.com/octo/claws/issues/7' },
    });
    expect(json.deployments[1]).toMatchObject({
      id: 'dep-<b>"x"',
      verdict: 'unchanged',
      gate: 'unchanged',
      suspect: false,
    });
  });

  it('says so when nothing was deployed in the window', () => {
    expect(statusPage(model([]))).toContain('No deployment recorded in the window.');
    expect(JSON.parse(statusJson(model([]))).deployments).toEqual([]);
  });
});
