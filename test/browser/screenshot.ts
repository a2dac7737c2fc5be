// The screenshot in docs/health.md: the status page of a realistic Claw set (the browser test's
// fixture, with names a team would use) in Debian's chromium, at a desktop's width, light.
// `node test/browser/screenshot.ts` writes docs/status-page.png. Erasable TypeScript.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { statusPage } from '../../src/report/status-page.ts';
import { ROOT } from '../e2e/harness.ts';
import { REALISTIC, fixtureModel } from './fixture.ts';

const site = mkdtempSync(join(tmpdir(), 'claw-page-'));
writeFileSync(join(site, 'index.html'), statusPage(fixtureModel(REALISTIC)));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1100, height: 1700 }, colorScheme: 'light' });
await page.goto(pathToFileURL(join(site, 'index.html')).href);
await page.screenshot({ path: join(ROOT, 'docs', 'status-page.png') });
await browser.close();
rmSync(site, { recursive: true, force: true });
process.stdout.write('wrote docs/status-page.png\n');
