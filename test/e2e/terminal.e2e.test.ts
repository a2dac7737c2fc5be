// The command line in a real terminal: `claw-deploy` under a pseudo-terminal (test/support/pseudo-terminal.py)
// at 40, 80 and 200 columns, its bytes drawn by a terminal emulator (@xterm/headless) into the
// screen a person sees. While a deployment waits, the live line redraws many times and the
// terminal is narrowed and widened; at the end the screen holds the lines the tool wrote, each
// once, and nothing of the live line: no copies, no wrapped remains, whatever the width.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { ROOT } from './harness.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });
const CLI = join(ROOT, 'bin', 'claw-deploy.cjs');
const PTY = join(ROOT, 'test', 'support', 'pseudo-terminal.py');
// The marker pseudo-terminal.py writes where the terminal was resized.
// eslint-disable-next-line no-control-regex
const RESIZE = /\u001b\]7777;resize (\d+) (\d+)\u0007/;
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

interface Screen {
  /** The screen and its scrollback as logical lines (a row the terminal wrapped joins the one before). */
  lines: string[];
  /** The rows as drawn, for what a person sees at this width. */
  rows: string[];
}

/** Draws `bytes` (with pseudo-terminal.py's resize markers) on an emulated terminal of `columns`. */
async function draw(bytes: string, columns: number, rowCount = 200): Promise<Screen> {
  const term = new xterm.Terminal({ cols: columns, rows: rowCount, allowProposedApi: true, scrollback: 1000 });
  const write = (data: string) => new Promise<void>((resolve) => term.write(data, resolve));
  let rest = bytes;
  for (let m = RESIZE.exec(rest); m; m = RESIZE.exec(rest)) {
    await write(rest.slice(0, m.index));
    term.resize(Number(m[1]), rowCount);
    rest = rest.slice(m.index + m[0].length);
  }
  await write(rest);
  const buffer = term.buffer.active;
  const lines: string[] = [];
  const rows: string[] = [];
  for (let i = 0; i < buffer.length; i += 1) {
    const line = buffer.getLine(i)!;
    const text = line.translateToString(true);
    rows.push(text);
    if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  while (rows.length && rows[rows.length - 1] === '') rows.pop();
  term.dispose();
  return { lines, rows };
}

/**
 * The lines the tool meant to leave: each newline-ended piece (the terminal sends a newline as
 * CR LF), after its last carriage return, without colour.
 */
function linesWritten(bytes: string): string[] {
  const pieces = bytes.replace(new RegExp(RESIZE.source, 'g'), '').split('\r\n');
  pieces.pop(); // what follows the last newline is the live line, or nothing
  // eslint-disable-next-line no-control-regex
  return pieces.map((p) => p.slice(p.lastIndexOf('\r') + 1).replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''));
}

/** Runs the CLI under a pseudo-terminal of `columns`; `steer` gets each chunk and may resize or interrupt. */
async function inTerminal(
  columns: number,
  args: string[],
  steer: (output: string, send: (line: string) => void) => void = () => {},
): Promise<{ bytes: string; exit: string }> {
  const child = spawn('python3', [PTY, String(columns), '50', '--', process.execPath, CLI, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'claw-tty-')),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TERM: 'xterm-256color',
      CLAW_DEPLOY_API_KEY: DEMO_KEY,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let bytes = '';
  let stderr = '';
  const send = (line: string) => child.stdin.write(`${line}\n`);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    bytes += chunk;
    steer(bytes, send);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(guard);
  return { bytes, exit: stderr.trim().split('\n').pop() ?? '' };
}

const deployArgs = (s: Simulator, clawId: string, extra: string[] = []) => [
  'deploy',
  '--claw-id',
  clawId,
  '--base-url',
  `${s.url}/v1`,
  '--poll-interval',
  '50ms',
  '--timeout',
  '30s',
  ...extra,
];

/** Counts live-line draws (spinner frames) in what was written. */
const draws = (bytes: string): number => bytes.split(SPINNER).length - 1;

/** A simulator whose clock moves only when the test says: a wait lasts until the test ends it. */
async function heldSimulator(): Promise<{ s: Simulator; advance: (ms: number) => void }> {
  let now = Date.now();
  const s = await start({ now: () => now, speed: 1 });
  return { s, advance: (ms) => void (now += ms) };
}

const LONG_ID = 'claw-with-a-rather-long-name-for-a-narrow-terminal';
const LONG_STATUS = 'building_the_image_and_warming_the_model_cache';

describe('the live line in a real terminal', () => {
  it.each([40, 80, 200])(
    'at %i columns: a minute of waiting, many redraws and two resizes leave the final lines only',
    async (columns) => {
      const { s, advance } = await heldSimulator();
      s.addClaw(LONG_ID, { plan: [[LONG_STATUS, 60_000], ['live']] });
      // Steps, each after 8 more redraws: narrow the terminal, widen it back, end the minute.
      const steps = [
        (send: (line: string) => void) => send(`resize ${Math.max(20, Math.floor(columns / 2))} 50`),
        (send: (line: string) => void) => send(`resize ${columns} 50`),
        () => advance(60_000),
      ];
      let from = 0;
      const run = await inTerminal(columns, deployArgs(s, LONG_ID), (output, send) => {
        if (steps.length && output.includes(LONG_STATUS) && draws(output.slice(from)) >= 8) {
          from = output.length;
          steps.shift()!(send);
        }
      });
      expect(run.exit).toBe('exit 0');
      expect(steps).toHaveLength(0);
      const screen = await draw(run.bytes, columns);
      const written = linesWritten(run.bytes);
      // The screen holds exactly the lines written, in order, once each, and no trace of the live line.
      expect(screen.lines).toEqual(written);
      expect(screen.lines.join('\n')).not.toMatch(SPINNER);
      expect(written.filter((l) => l.includes(`${LONG_STATUS} (in progress)`))).toHaveLength(1);
      expect(screen.lines.at(-1)).toMatch(/^ {2}duration +\d/);
    },
  );

  it('mid-wait, the live line fits the width (one row, a column to spare) and follows a resize', async () => {
    const { s, advance } = await heldSimulator();
    s.addClaw('c1', { plan: [[`${LONG_STATUS}_for_everyone`, 60_000], ['live']] });
    const seen: [string, number][] = [];
    let from = 0;
    const run = await inTerminal(60, deployArgs(s, 'c1'), (output, send) => {
      if (seen.length < 2 && output.includes(LONG_STATUS) && draws(output.slice(from)) >= 4) {
        from = output.length;
        seen.push([output, seen.length ? 30 : 60]);
        if (seen.length === 1) send('resize 30 50');
        else advance(60_000);
      }
    });
    expect(run.exit).toBe('exit 0');
    expect(seen).toHaveLength(2);
    for (const [bytes, columns] of seen) {
      const screen = await draw(bytes, 60);
      const live = screen.rows.filter((r) => SPINNER.test(r));
      expect(live, `at ${columns} columns`).toHaveLength(1);
      expect(live[0].length, live[0]).toBeLessThan(columns);
      expect(live[0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+s · .*…$/);
    }
  });

  it('Ctrl-C in the terminal: the rollback is sent, the live line is gone, exit 130', async () => {
    const { s } = await heldSimulator();
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    let interrupted = false;
    const run = await inTerminal(
      80,
      deployArgs(s, 'c1', ['--auto-rollback', '--rollback-on', 'failed,cancelled']),
      (output, send) => {
        if (!interrupted && output.includes('pending (in progress)') && draws(output) >= 4) {
          interrupted = true;
          send('ctrl-c');
        }
      },
    );
    expect(run.exit).toBe('exit 130');
    const screen = await draw(run.bytes, 80);
    expect(screen.lines).toEqual(linesWritten(run.bytes));
    expect(screen.lines.join('\n')).not.toMatch(SPINNER);
    expect(screen.lines.join('\n')).toContain('Received SIGINT');
    expect(s.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/rollback'))).toHaveLength(1);
  });
});
