// The command line's own parts: flags read into the action's settings (one reader, two sources),
// and the terminal boundary: escapes shown as text, colour only when asked for.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../settings.js';
import { cliReader, parseCli } from './args.js';
import { Terminal, terminalLine } from './terminal.js';

const ENV = { CLAW_DEPLOY_API_KEY: 'k-123', CLAW_DEPLOY_BASE_URL: 'https://api.example.com/v1' };

describe('flags into settings', () => {
  it('reads long flags, bare booleans, --junit and the environment; defaults from the table', () => {
    const args = parseCli([
      'deploy',
      '--claw-id',
      'c1',
      '--auto-rollback',
      '--poll-interval=2s',
      '--junit',
      'r.xml',
      '--checks',
      'c.yml',
    ]);
    const settings = readSettings(cliReader(args, ENV));
    expect(settings).toMatchObject({
      command: 'deploy',
      clawId: 'c1',
      autoRollback: true,
      pollIntervalMs: 2000,
      timeoutMs: 30 * 60_000,
      checksJunit: 'r.xml',
      apiKey: 'k-123',
      baseUrl: 'https://api.example.com',
    });
  });

  it('AMS_API_KEY when CLAW_DEPLOY_API_KEY is unset; --base-url over the environment', () => {
    const args = parseCli(['health', '--claw-id', 'c1', '--base-url', 'https://other.example.com']);
    const settings = readSettings(
      cliReader(args, { AMS_API_KEY: 'k-2', CLAW_DEPLOY_BASE_URL: 'https://api.example.com' }),
    );
    expect(settings).toMatchObject({ apiKey: 'k-2', baseUrl: 'https://other.example.com' });
  });

  it("a bad value gets the action's own message", () => {
    expect(() => readSettings(cliReader(parseCli(['deploy', '--claw-id', 'c1', '--timeout', 'soon']), ENV))).toThrow(
      /^Input 'timeout' is "soon": expected a duration such as 90s/,
    );
  });

  it('refuses the key as a flag, unknown flags and a second command', () => {
    expect(() => parseCli(['deploy', '--api-key=x'])).toThrow(/read only from the environment/);
    expect(() => parseCli(['deploy', '--claws', 'c1'])).toThrow(/Unknown option '--claws'/);
    expect(() => parseCli(['deploy', 'wait'])).toThrow(/Unexpected argument "wait"/);
  });
});

describe('the terminal', () => {
  const capture = () => {
    let text = '';
    const out = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
    return { out, text: () => text };
  };

  it('shows control characters as escapes: \\x1b[ is text', () => {
    expect(terminalLine('a\u001b[31mred\u0007\nnext\u202e')).toBe('a\\x1b[31mred\\x07\\nnext\\u202e');
  });

  it('colours its own words only when told (a TTY without NO_COLOR), never the service text', () => {
    const plain = capture();
    new Terminal({ out: plain.out, color: false, progress: false, verbose: false }).warning('slow \u001b[2J');
    expect(plain.text()).toBe('warning: slow \\x1b[2J\n');
    const coloured = capture();
    new Terminal({ out: coloured.out, color: true, progress: false, verbose: false }).warning('slow');
    expect(coloured.text()).toBe('\u001b[33mwarning: slow\u001b[0m\n');
  });

  it('draws no live line without progress, and clears it before each line with it', async () => {
    const quiet = capture();
    const t = new Terminal({ out: quiet.out, color: false, progress: false, verbose: false });
    await t.whileWaiting('deploy c1', Promise.resolve(1));
    expect(quiet.text()).toBe('');
    const live = capture();
    const l = new Terminal({ out: live.out, color: true, progress: true, verbose: false });
    await l.whileWaiting(
      'deploy c1',
      new Promise<void>((resolve) => setImmediate(() => resolve(l.info('status: live')))),
    );
    // Erased from its start to the end of the screen before the line, drawn again after it.
    expect(live.text()).toContain('\r\u001b[Jstatus: live\n');
    expect(live.text().endsWith('\r\u001b[J')).toBe(true);
  });
});
