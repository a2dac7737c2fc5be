import { describe, expect, it } from 'vitest';
import { doraReport } from './dora.js';
import type { DeploymentRecord } from './deployment-records.js';
import { doraCells, doraJson, doraSection, doraSummary, doraText } from './dora-report.js';
import { escapeHtml } from '../shared/markup.js';

const DAY = 24 * 3600_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const record = (
  claw: string,
  deployment: string,
  daysAgo: number,
  extra: Partial<DeploymentRecord> = {},
): DeploymentRecord => ({
  at: NOW - daysAgo * DAY,
  claw,
  deployment,
  outcome: 'succeeded',
  run: '1',
  committedAt: NOW - daysAgo * DAY - 2 * 3600_000,
  ...extra,
});

const report = doraReport(
  [
    record('bot-a', 'd1', 3),
    record('bot-a', 'd2', 2, { outcome: 'failed' }),
    // Went live in its run, regressed at its gate and rolled back there, 3 hours after the run began.
    record('<b>bot</b>', 'd3', 20, {
      outcome: 'rolled-back',
      behaviour: 'regressed',
      rollback: 'r3',
      durationMs: 3 * 3600_000,
      committedAt: NOW - 20 * DAY - 5 * 3600_000,
    }),
  ],
  [],
  NOW,
);

describe('the figures as each reader sees them', () => {
  it('show every rate as numerator / denominator, and an open recovery as open', () => {
    // d2 failed before going live: not a deployment, shown apart.
    expect(doraCells(report.overall['7'])).toEqual(['1 (1/week), 1 not live', '2h (n=1)', '0 / 1 (0%)', '—']);
    expect(doraCells(report.overall['30'])).toEqual([
      '2 (0.47/week), 1 not live',
      '2h (n=2)',
      '1 / 2 (50%)',
      '3h (n=1)',
    ]);
    const open = doraReport([record('a', 'd1', 1, { behaviour: 'regressed' })], [], NOW).overall['7'];
    expect(doraCells(open)).toEqual(['1 (1/week)', '2h (n=1)', '1 / 1 (100%)', 'open (1)']);
  });

  it('escape Claw ids on the page, and say nothing without deployments', () => {
    const html = doraSection(report, escapeHtml);
    expect(html).toContain('&lt;b&gt;bot&lt;/b&gt;');
    expect(html).not.toContain('<b>bot</b>');
    expect(doraSection(doraReport([], [], NOW), escapeHtml)).toBe('');
    expect(doraSummary(doraReport([], [], NOW))).toBe('');
    expect(doraSummary(report)).toContain(
      '| 30 days | 2 (0.47/week), 1 not live | 2h (n=2) | 1 / 2 (50%) | 3h (n=1) |',
    );
    expect(doraText(report)).toContain(
      '30 days  2 (0.47/week), 1 not live; lead time 2h (n=2); change failure rate 1 / 2 (50%)',
    );
  });

  it('keep status.json’s dora under its cap: Claws left out, the overall figures never', () => {
    const many = doraReport(
      Array.from({ length: 3000 }, (_, i) => record(`claw-${i}`, `d${i}`, 1)),
      [],
      NOW,
    );
    const json = doraJson(many);
    expect(Buffer.byteLength(JSON.stringify(json))).toBeLessThan(210 * 1024);
    expect(json.overall).toEqual(many.overall);
    expect(json.clawsLeftOut).toBe(3000 - Object.keys(json.claws as object).length);
    expect(json.clawsLeftOut).toBeGreaterThan(0);
  });
});
