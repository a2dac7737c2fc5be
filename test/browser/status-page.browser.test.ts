// The status page in a real browser: Debian's chromium driven by playwright-core (one launch), at a
// phone's and a desktop's width, light and dark. No console errors, nothing loaded from elsewhere,
// no horizontal scrolling, and no serious or critical axe-core violations. Screenshots go to the
// OS's temporary folder for the closing note. Without the browser the test is skipped and says why.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusPage } from '../../src/health/status-page.ts';
import { Simulator } from '../sim/server.ts';
import { addDemoClaws, seedWeek } from '../sim/week.ts';
import { REALISTIC, fixtureModel } from './fixture.ts';
import { DOCS_SCREENSHOT, sourcesFingerprint, withFingerprint } from './screenshot.ts';

/** The preview week of the docs' screenshot ends here: the same dates on every run. */
const WEEK_ENDS = Date.parse('2026-11-22T12:00:00Z');

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const reason = available ? '' : ` (skipped: no browser at ${CHROMIUM}; .ci/run installs Debian's chromium)`;
export const SCREENSHOTS = join(tmpdir(), 'claw-status-page');

const VIEWS = [
  { name: 'phone-light', width: 390, height: 844, scheme: 'light' },
  { name: 'phone-dark', width: 390, height: 844, scheme: 'dark' },
  { name: 'desktop-light', width: 1280, height: 900, scheme: 'light' },
  { name: 'desktop-dark', width: 1280, height: 900, scheme: 'dark' },
] as const;

let context: BrowserContext | undefined;
let profile = '';
let site = '';
let pageUrl = '';

beforeAll(async () => {
  if (!available) return;
  profile = mkdtempSync(join(tmpdir(), 'claw-chromium-'));
  site = mkdtempSync(join(tmpdir(), 'claw-page-'));
  writeFileSync(join(site, 'index.html'), statusPage(fixtureModel()));
  pageUrl = pathToFileURL(join(site, 'index.html')).href;
  mkdirSync(SCREENSHOTS, { recursive: true });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  for (const dir of [profile, site]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the status page in chromium${reason}`, () => {
  it.skipIf(!available)(
    'renders at phone and desktop widths, light and dark: no console errors, no outside loads, no serious axe violations',
    async () => {
      const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
      const page = await context!.newPage();
      const problems: string[] = [];
      const outside: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
      page.on('pageerror', (e) => void problems.push(e.message));
      page.on('request', (r) => void (r.url() !== pageUrl && outside.push(r.url())));
      for (const view of VIEWS) {
        await page.setViewportSize({ width: view.width, height: view.height });
        await page.emulateMedia({ colorScheme: view.scheme });
        await page.goto(pageUrl);
        expect(await page.evaluate('document.scripts.length')).toBe(0);
        // Fits: nothing wider than the screen.
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect({ view: view.name, overflow }).toEqual({ view: view.name, overflow: 0 });
        // The id full of markup is shown as text, never parsed.
        expect(await page.locator('h2', { hasText: 'claw-"quoted"&<b>bold</b>' }).count()).toBe(1);
        expect(await page.locator('h2 b').count()).toBe(0);
        // The text equivalents open without JavaScript.
        await page.locator('summary').first().click();
        expect(await page.locator('details[open] table').first().isVisible()).toBe(true);
        await page.screenshot({ path: join(SCREENSHOTS, `${view.name}.png`), fullPage: true });
        await page.addScriptTag({ content: axe });
        // Run in the page (a string: the page's globals are not this file's).
        const violations = (await page.evaluate(`axe
          .run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] } })
          .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`)) as {
          id: string;
          impact: string;
          nodes: number;
        }[];
        expect({
          view: view.name,
          serious: violations.filter((v) => ['serious', 'critical'].includes(v.impact)),
        }).toEqual({ view: view.name, serious: [] });
      }
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
      process.stderr.write(
        `status page screenshots: ${VIEWS.map((v) => join(SCREENSHOTS, `${v.name}.png`)).join(', ')}\n`,
      );
    },
    60_000,
  );

  it.skipIf(!available)(
    'a realistic Claw set at a desktop width: the banner names the Claw down, its section first',
    async () => {
      const file = join(site, 'realistic.html');
      writeFileSync(file, statusPage(fixtureModel(REALISTIC)));
      const page = await context!.newPage();
      await page.setViewportSize({ width: 1100, height: 1700 });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(pathToFileURL(file).href);
      expect(await page.locator('.banner').first().textContent()).toBe('Down: billing-assistant (1 of 4).');
      expect(await page.locator('h2[id^="claw-"]').first().textContent()).toBe('billing-assistant');
      const path = join(SCREENSHOTS, 'realistic-desktop-light.png');
      await page.screenshot({ path });
      process.stderr.write(`status page screenshot: ${path}\n`);
    },
    60_000,
  );

  it.skipIf(!available)(
    "the docs' screenshot: the preview week (npm run sim -- --week), with its deployments and DORA's figures (UPDATE_SCREENSHOT=1 writes docs/status-page.png)",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'claw-week-'));
      // The simulator of `npm run sim`, its deployments 20 times faster: the week the docs show.
      const sim = new Simulator({ speed: 20, rateLimit: { limit: 60, windowMs: 60_000 } });
      addDemoClaws(sim);
      await sim.start(0);
      try {
        await seedWeek(sim, folder, () => {}, WEEK_ENDS);
      } finally {
        await sim.stop();
      }
      const html = readFileSync(join(folder, 'index.html'), 'utf8');
      // The week's deployments: claw-support's harmful one, regressed by the watch and rolled back.
      expect(html).toContain('<span class="verdict v-regressed">regressed</span>');
      expect(html).toContain('rolled-back');
      expect(html).toContain('<h2 id="dora">');
      expect(html.match(/<h2 [^>]*>Deployments/g)).toHaveLength(1);
      const page = await context!.newPage();
      await page.setViewportSize({ width: 1100, height: 1700 });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(pathToFileURL(join(folder, 'index.html')).href);
      const shot = withFingerprint(await page.screenshot({ fullPage: true }), sourcesFingerprint());
      const path = process.env.UPDATE_SCREENSHOT ? DOCS_SCREENSHOT : join(SCREENSHOTS, 'week-desktop-light.png');
      writeFileSync(path, shot);
      process.stderr.write(`status page screenshot: ${path}\n`);
      rmSync(folder, { recursive: true, force: true });
    },
    240_000,
  );
});
