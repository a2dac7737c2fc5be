// SVG badges for a README, in the familiar two-part form: a label and a message on a colour that
// says how things are. Self-contained (no fonts or images from elsewhere); every value escaped.
import { type ClawStatus, percent } from './uptime.js';
import { escapeHtml } from '../shared/markup.js';

const COLOURS = { up: '#1a7f37', down: '#cf222e', unknown: '#59636e', label: '#444d56' } as const;
const MAX_LABEL = 40;

/** Approximate width of text in 11px Verdana: good enough to size the badge's halves. */
function textWidth(text: string): number {
  let width = 0;
  for (const c of text) width += /[ilj.,:;|!'1]/.test(c) ? 4 : /[mwMW@%]/.test(c) ? 10 : /[A-Z]/.test(c) ? 8 : 7;
  return width;
}

export function badge(label: string, message: string, colour: keyof typeof COLOURS): string {
  const shown = label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
  const left = textWidth(shown) + 12;
  const right = textWidth(message) + 12;
  const total = left + right;
  const text = escapeHtml(`${shown}: ${message}`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" role="img" aria-label="${text}">`,
    `<title>${text}</title>`,
    `<rect width="${left}" height="20" rx="3" fill="${COLOURS.label}"/>`,
    `<rect x="${left}" width="${right}" height="20" rx="3" fill="${COLOURS[colour]}"/>`,
    `<rect x="${left}" width="4" height="20" fill="${COLOURS[colour]}"/>`,
    `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`,
    `<text x="${left / 2}" y="14">${escapeHtml(shown)}</text>`,
    `<text x="${left + right / 2}" y="14">${escapeHtml(message)}</text>`,
    '</g>',
    '</svg>',
    '',
  ].join('');
}

const STATE = { healthy: 'up', unhealthy: 'down', unknown: 'unknown' } as const;

/** A Claw's badge: its state now and its uptime over 30 days. */
export function clawBadge(claw: ClawStatus): string {
  const state = STATE[claw.current ?? 'unknown'];
  const uptime = claw.uptime.month === undefined ? '' : ` · ${percent(claw.uptime.month)}`;
  return badge(claw.claw, `${state}${uptime}`, state);
}

/** The badge for all Claws: how many are down, or that all are up. */
export function allBadge(claws: ClawStatus[]): string {
  const down = claws.filter((c) => c.current === 'unhealthy').length;
  const unknown = claws.filter((c) => c.current !== 'healthy' && c.current !== 'unhealthy').length;
  if (claws.length === 0) return badge('Claws', 'no data', 'unknown');
  if (down) return badge('Claws', `${down} of ${claws.length} down`, 'down');
  if (unknown) return badge('Claws', `${unknown} of ${claws.length} unknown`, 'unknown');
  return badge('Claws', `all ${claws.length} up`, 'up');
}
