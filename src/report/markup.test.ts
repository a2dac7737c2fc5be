// Every document the run writes for a browser or a parser is well formed, whatever a Claw id or a
// reply holds: each opened in a strict XML parser (the SVG badges, the page's inline SVG).
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import type { ClawStatus, StatusModel } from '../health/uptime.js';
import { markupChars } from '../shared/markup.js';
import { allBadge, clawBadge } from '../health/badge.js';
import { statusPage } from '../health/status-page.js';

/** Parses `xml` strictly; throws on the first well-formedness error. */
function parseStrict(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (err) => {
    throw err;
  });
  parser.write(xml).close();
}

const HOSTILE = [
  'claw-\uffff',
  'claw-\ufffe',
  'claw-\ud800x',
  'x\udc00',
  'c\u0000\u0001\u001b[31m',
  'c\u0085\u009f',
  'c\ufdd0',
  'c\u{1fffe}',
  'a&<>"\'b',
];

function status(claw: string): ClawStatus {
  return {
    claw,
    current: 'healthy',
    lastCheckedAt: Date.UTC(2026, 10, 1),
    uptime: { day: 1, week: 1, month: 0.99, quarter: 0.98 },
    days: Array.from({ length: 90 }, (_, i) => ({
      day: new Date(Date.UTC(2026, 7, 1) + i * 86_400_000).toISOString().slice(0, 10),
      runs: 1,
      healthy: 1,
      unhealthy: 0,
      unknown: 0,
      latencyP50: 120 + i,
      latencyP95: 300 + i,
      // A deployment id is the service's text too.
      deployments: i % 30 === 0 ? [claw] : [],
      newDeployments: i % 30 === 0 ? [claw] : [],
    })),
  };
}

describe('documents stay well formed', () => {
  it.each(HOSTILE.map((id) => [JSON.stringify(id), id]))('a badge for the Claw id %s parses as XML', (_name, id) => {
    const svg = clawBadge(status(id));
    expect(() => parseStrict(svg)).not.toThrow();
    expect(() => parseStrict(allBadge([status(id)]))).not.toThrow();
  });

  it('the page holds no character HTML or XML forbids, and its SVG parses', () => {
    const model: StatusModel = {
      generatedAt: Date.UTC(2026, 10, 1),
      repository: 'octo/claws',
      claws: HOSTILE.map(status),
    };
    const html = statusPage(model);
    expect(markupChars(html)).toBe(html);
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    for (const svg of svgs) expect(() => parseStrict(svg)).not.toThrow();
  });

  it('a plain Claw id is shown as it is', () => {
    const svg = clawBadge(status('claw-support-bot'));
    expect(svg).toContain('<title>claw-support-bot: up');
    expect(statusPage({ generatedAt: 0, repository: 'octo/claws', claws: [status('claw-support-bot')] })).toContain(
      'claw-support-bot',
    );
  });
});
