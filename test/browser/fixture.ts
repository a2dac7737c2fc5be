// Ninety days of a small fleet, made deterministically: what the status page looks like after a
// quarter (a few bad days, a week-long outage, deployments, checks), for the browser test and the
// screenshot in the docs. Erasable TypeScript.
import type { DeploymentRow } from '../../src/health/deployment-watch.ts';
import type { HistoryView } from '../../src/health/history.ts';
import type { ClawRecord, DailyRecord } from '../../src/health/records.ts';
import { type StatusModel, clawStatuses } from '../../src/health/uptime.ts';

export const NOW = Date.parse('2026-11-22T12:00:00Z');
const DAY = 24 * 3600_000;

/** A small linear congruential generator: the same numbers on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

export const CLAWS = ['claw-support-bot', 'claw-billing', 'claw-"quoted"&<b>bold</b>', 'claw-onboarding'];
/** A team's Claws as they are named in practice, for the screenshot in the docs. */
export const REALISTIC = ['support-bot', 'billing-assistant', 'sales-qualifier', 'onboarding-guide'];

/**
 * The second Claw had a week-long outage 3 weeks ago and is down now (an incident open); the fourth
 * is new (40 days of data); every Claw gets slower 30 days ago, when a deployment landed.
 */
export function fixtureModel(names: string[] = CLAWS): StatusModel {
  const rand = random(42);
  const daily: DailyRecord[] = [];
  const recent: ClawRecord[] = [];
  const today = new Date(NOW).toISOString().slice(0, 10);
  for (const [c, claw] of names.entries()) {
    let deployment = 1;
    for (let d = 89; d >= 0; d--) {
      const day = new Date(NOW - d * DAY).toISOString().slice(0, 10);
      if (c === 3 && d > 40) continue; // a newer Claw: no data before
      const runs = 48;
      const outage = c === 1 && d >= 20 && d < 24;
      const unhealthy = outage ? 30 + Math.floor(rand() * 10) : rand() < 0.08 ? 1 + Math.floor(rand() * 3) : 0;
      const unknown = rand() < 0.05 ? 1 : 0;
      if (rand() < 0.06 || d === 30) deployment += 1;
      const base = 300 + c * 150 + (d < 30 ? 100 : 0);
      const record: DailyRecord = {
        day,
        claw,
        runs,
        healthy: runs - unhealthy - unknown,
        unhealthy,
        unknown,
        latencyP50: Math.round(base + rand() * 80),
        latencyP95: Math.round(base * 2.2 + rand() * 400),
        checks: { passed: 4 * runs - (outage ? 40 : unhealthy), failed: outage ? 40 : unhealthy, errors: 0 },
        // Each run records the Claw's current deployment; the page marks the days it changed.
        deployments: [`dep_${c}${String(deployment).padStart(3, '0')}`],
      };
      if (day === today) {
        for (let r = 0; r < 24; r++) {
          recent.push({
            at: NOW - r * 1800_000,
            run: String(9000 + r),
            claw,
            status: c === 1 && r < 2 ? 'unhealthy' : 'healthy',
            latencyMs: Math.round(base * (1 + 1.2 * rand() ** 3)),
            deployment: `dep_${c}${String(deployment).padStart(3, '0')}`,
          });
        }
      } else daily.push(record);
    }
  }
  const view: HistoryView = { recent: recent.sort((a, b) => a.at - b.at), daily, deployments: [], paths: [] };
  const incident = { number: 42, url: 'https://github.com/octo/claws/issues/42' };
  const claws = clawStatuses(view, NOW).map((c) => (c.claw === names[1] ? { ...c, incident } : c));
  return {
    generatedAt: NOW,
    repository: 'octo/claws',
    claws,
    incidents: [{ ...incident, title: `${names[1]} is down`, state: 'open' }],
    deployments: { windowDays: 7, rows: deploymentRows(names[1], incident) },
  };
}

/** The window's deployments: one the watch found regressed (the incident's suspect), one harmless. */
function deploymentRows(claw: string, incident: { number: number; url: string }): DeploymentRow[] {
  const commit = (c: string) => ({
    commit: c.repeat(40),
    commitUrl: `https://github.com/octo/claws/commit/${c.repeat(40)}`,
  });
  const run = { run: '9001', runUrl: 'https://github.com/octo/claws/actions/runs/9001' };
  return [
    {
      claw,
      id: 'dep_1042',
      at: NOW - 2 * DAY,
      outcome: 'succeeded',
      ...commit('b'),
      ...run,
      watch: 'regressed',
      verdict: 'regressed',
      figures: {
        before: { passRate: 0.9, n: 840, runs: 28 },
        after: { passRate: 0.72, n: 90, runs: 3 },
        change: -0.18,
        low: -0.27,
        high: -0.09,
      },
      suspect: true,
      incident,
    },
    {
      claw: CLAWS[0],
      id: 'dep_0041',
      at: NOW - 5 * DAY,
      outcome: 'succeeded',
      ...commit('a'),
      ...run,
      gate: 'unchanged',
      watch: 'unchanged',
      verdict: 'unchanged',
      suspect: false,
    },
  ];
}
