// The command line's own parts: flags read into the action's settings (one reader, two sources,
// its own words), help per command, --json's typed values, a stream whose reader went away, and
// the terminal boundary: escapes shown as text, colour only when asked for, a live line that fits.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { explainErrorResponse } from '../api/errors.js';
import { INPUTS } from '../contract/inputs.js';
import { COMMANDS, readSettings } from '../core/run.js';
import { ACTION_ONLY, checkCommand, cliReader, cliWords, nearest, parseCli, wantsHelp } from './args.js';
import { commandFlags, commandHelp } from './help.js';
import { Output, jsonResult } from './output.js';
import { Terminal, columnsOf, fitColumns, terminalLine, wrapColumns } from './terminal.js';

/** Each command's summary, from its definition. */
const COMMAND_SUMMARIES = Object.fromEntries(COMMANDS.map((c) => [c.name, c.summary]));

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
      '--output=out.json',
    ]);
    const settings = readSettings(cliReader(args, ENV));
    expect(cliWords(args, ENV).input('checks-output')).toBe('--output');
    expect(settings).toMatchObject({
      checksOutput: 'out.json',
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

  it('a bad value is named as the user gave it: the flag, or the variable it came from; the action keeps its words', () => {
    const read = (argv: string[], env: NodeJS.ProcessEnv = ENV) => {
      const args = parseCli(argv);
      return () => readSettings(cliReader(args, env), cliWords(args, env));
    };
    expect(read(['deploy', '--claw-id', 'c1', '--timeout', 'soon'])).toThrow(
      /^--timeout is "soon": expected a duration such as 90s/,
    );
    expect(read(['health', '--claw-id', 'c1'], { ...ENV, CLAW_DEPLOY_BASE_URL: 'ftp://x' })).toThrow(
      /^CLAW_DEPLOY_BASE_URL is "ftp:\/\/x": expected/,
    );
    expect(read(['health', '--claw-id', 'c1', '--base-url', 'ftp://x'])).toThrow(/^--base-url is "ftp:\/\/x"/);
    expect(read(['health', '--claw-id', 'c1'], { CLAW_DEPLOY_API_KEY: 'k' })).toThrow(
      /^--base-url \(or CLAW_DEPLOY_BASE_URL\) is "": expected the service address/,
    );
    expect(read(['deploy', '--claw-id', 'a,b', '--wait=false'])).toThrow(
      /^--wait is "false": expected true when --claw-id names several Claws/,
    );
    // The action's reader, with no words given, says what it always said.
    const args = parseCli(['deploy', '--claw-id', 'c1', '--timeout', 'soon']);
    expect(() => readSettings(cliReader(args, ENV))).toThrow(/^Input 'timeout' is "soon": expected a duration/);
  });

  it("the key's advice names the variable the key came from", () => {
    const words = cliWords(parseCli(['health']), { AMS_API_KEY: 'k' });
    const refused = explainErrorResponse(
      {
        status: 401,
        method: 'GET',
        route: '/v1/claws',
        what: 'Claws',
        scope: 'claws:read',
        envelope: undefined,
        excerpt: '',
      },
      words,
    );
    expect(refused.message).toContain('Check AMS_API_KEY and --auth-scheme.');
    expect(
      explainErrorResponse({
        status: 401,
        method: 'GET',
        route: '/v1/claws',
        what: 'Claws',
        scope: 'claws:read',
        envelope: undefined,
        excerpt: '',
      }).message,
    ).toContain("Check the secret passed as 'api-key' and 'auth-scheme'.");
  });
});

describe('flags', () => {
  it('refuses the key as a flag, unknown flags (naming the nearest) and a second command', () => {
    expect(() => parseCli(['deploy', '--api-key=x'])).toThrow(/read only from the environment/);
    expect(() => parseCli(['deploy', '--claws', 'c1'])).toThrow(/^Unknown flag --claws; did you mean --claw-id\?$/);
    expect(() => parseCli(['deploy', '--rolback-on', 'failed'])).toThrow(/did you mean --rollback-on\?$/);
    expect(() => parseCli(['deploy', '--zzzzzzzz'])).toThrow(
      /^Unknown flag --zzzzzzzz \(claw-deploy <command> --help lists the flags\)$/,
    );
    expect(() => parseCli(['deploy', '-x'])).toThrow(/^Unknown flag -x/);
    expect(() => parseCli(['deploy', 'wait'])).toThrow(/Unexpected argument "wait"/);
    // A word after a true/false flag was meant as its value: say which values it takes.
    expect(() => parseCli(['deploy', '--wait', 'no'])).toThrow(
      /^--wait is "no": expected true or false \(--wait alone is true; --wait false, or --wait=false\)\.$/,
    );
    expect(() => parseCli(['--auto-rollback', 'yes', 'deploy'])).toThrow(/^--auto-rollback is "yes": expected true/);
    expect(parseCli(['--auto-rollback', 'deploy']).command).toBe('deploy');
    expect(() => checkCommand('helth')).toThrow(/^Unknown command "helth"; did you mean health\?$/);
  });

  it('refuses a repeated flag, a switch given a value, a flag with none, and the action-only flags', () => {
    expect(() => parseCli(['deploy', '--claw-id', 'a', '--claw-id=b'])).toThrow(/^--claw-id is given twice/);
    expect(() => parseCli(['deploy', '--verbose', '--verbose'])).toThrow(/^--verbose is given twice/);
    expect(() => parseCli(['deploy', '--junit', 'a.xml', '--checks-junit', 'b.xml'])).toThrow(/the same flag/);
    expect(() => parseCli(['deploy', '--checks-output', 'a.json', '--output', 'b.json'])).toThrow(
      /^--output and --checks-output are the same flag/,
    );
    expect(() => parseCli(['deploy', '--json=yes'])).toThrow(/^--json takes no value/);
    expect(() => parseCli(['deploy', '--timeout'])).toThrow(/^--timeout needs a value/);
    expect(() => parseCli(['deploy', '--environment', 'production'])).toThrow(
      /^--environment is not for the command line: it mirrors/,
    );
    expect(() => parseCli(['plan', '--comment'])).toThrow(/^--comment is not for the command line/);
  });

  it('reads a switch alone as true, a true/false word after it, -h, and positionals after --', () => {
    expect(parseCli(['deploy', '--auto-rollback', '--wait', 'false', '-h']).flags).toEqual({
      'auto-rollback': 'true',
      wait: 'false',
    });
    expect(parseCli(['-h']).help).toBe(true);
    expect(parseCli(['--', 'deploy']).command).toBe('deploy');
    expect(wantsHelp(['deploy', '--bogus', '--help'])).toBe(true);
    expect(wantsHelp(['deploy', '--', '--help'])).toBe(false);
    expect(nearest('clawid', ['claw-id', 'checks'])).toBe('claw-id');
  });
});

describe('help', () => {
  it("lists a command's flags only, in groups, and every flag input in some command", () => {
    const titles = (command: string) => commandFlags(command).map((g) => g.title);
    expect(titles('plan')).toEqual(['Claws as code', 'The service']);
    expect(titles('deploy')).toContain('A fleet (several Claws)');
    expect(commandFlags('drift').flatMap((g) => g.inputs.map((i) => i.name))).toEqual([
      'manifest',
      'fail-on-drift',
      'base-url',
      'request-timeout',
      'auth-scheme',
      'timeout',
    ]);
    const everywhere = new Set(
      Object.keys(COMMAND_SUMMARIES).flatMap((c) => commandFlags(c).flatMap((g) => g.inputs.map((i) => i.name))),
    );
    const flags = INPUTS.map((i) => i.name).filter((n) => !['command', 'api-key'].includes(n) && !(n in ACTION_ONLY));
    expect(flags.filter((n) => !everywhere.has(n))).toEqual([]);
    expect(
      commandHelp('deploy', 60)
        .split('\n')
        .every((l) => l.length <= 60),
    ).toBe(true);
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

describe('the live line', () => {
  /** A terminal of `columns` with a clock and a timer the test moves. */
  const tty = (columns: number) => {
    let now = 1_000_000;
    let tick = () => {};
    const writes: string[] = [];
    const listeners: (() => void)[] = [];
    const out = {
      isTTY: true,
      columns,
      write: (text: string) => void writes.push(text),
      on: (_: 'resize', f: () => void) => void listeners.push(f),
      off: () => {},
    };
    const terminal = new Terminal({
      out,
      color: true,
      progress: true,
      verbose: false,
      now: () => now,
      every: (_ms, f) => ((tick = f), () => (tick = () => {})),
    });
    const live = () =>
      // eslint-disable-next-line no-control-regex
      writes.filter((w) => w.endsWith('\r')).map((w) => w.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, ''));
    return {
      terminal,
      out,
      writes,
      live,
      advance: (ms: number) => ((now += ms), tick()),
      resize: () => listeners.forEach((f) => f()),
    };
  };

  it('over a minute of redraws, every live line fits the width less a column, and the time is the wait so far', async () => {
    const t = tty(40);
    let done = () => {};
    const waiting = t.terminal.whileWaiting('deploy claw-with-a-long-name', new Promise<void>((r) => (done = r)));
    t.terminal.info('[1s] deployment dep_0001: building_the_image_and_warming_the_caches (in progress)');
    for (let i = 0; i < 500; i += 1) t.advance(120);
    t.out.columns = 25;
    t.resize();
    done();
    await waiting;
    const lines = t.live();
    expect(lines.length).toBeGreaterThan(500);
    for (const line of lines.slice(0, -1)) expect(columnsOf(line)).toBeLessThanOrEqual(39);
    expect(columnsOf(lines.at(-1)!)).toBeLessThanOrEqual(24);
    // One clock: the wait so far, never the log line's own "[1s]" beside it.
    expect(lines.at(-2)).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1m00s · deployment dep_0001: buildin…$/);
    expect(columnsOf(lines.at(-2)!)).toBe(39);
    // Erased whole at the end: from its start to the end of the screen.
    expect(t.writes.at(-1)).toBe('\r\u001b[J');
  });

  it('counts wide characters as two columns, and wraps a reply at spaces to the width', () => {
    expect(columnsOf('状态良好')).toBe(8);
    // Emoji outside the CJK blocks (a status of rockets) are wide too, or the live line wraps.
    expect(columnsOf('🚀✅🛑')).toBe(6);
    expect(columnsOf(fitColumns('🚀'.repeat(30), 20))).toBeLessThanOrEqual(20);
    expect(fitColumns('状态良好状态良好', 7)).toBe('状态良…');
    expect(columnsOf(fitColumns('状态良好状态良好', 7))).toBeLessThanOrEqual(7);
    expect(wrapColumns('one two three four five', 9)).toEqual(['one two', 'three', 'four five']);
    expect(wrapColumns('x'.repeat(12), 5)).toEqual(['xxxxx', 'xxxxx', 'xx']);
  });
});

describe('results', () => {
  it('--json types the outputs: booleans, numbers, and reports as arrays and objects', () => {
    expect(
      jsonResult(
        {
          outcome: 'failed',
          'rolled-back': 'true',
          duration: '12.5',
          changes: '2',
          'checks-report': '[{"check":"a"}]',
          plan: '{"operations":[]}',
          status: 'crashed',
          url: '',
        },
        { outcome: 'failed', exitCode: 1, message: 'm' },
      ),
    ).toEqual({
      outcome: 'failed',
      'exit-code': 1,
      message: 'm',
      'rolled-back': true,
      duration: 12.5,
      changes: 2,
      'checks-report': [{ check: 'a' }],
      plan: { operations: [] },
      status: 'crashed',
    });
  });

  it('a stream whose reader went away drops the writes and never throws; every write is redacted', () => {
    const seen: string[] = [];
    const stream = new Writable({ write: (chunk, _e, done) => (seen.push(String(chunk)), done()) });
    const out = new Output(stream, (t) => t.replace('k-123', '***'));
    expect(out.write('key k-123\n')).toBe(true);
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(out.open).toBe(false);
    expect(out.write('after\n')).toBe(false);
    expect(seen).toEqual(['key ***\n']);
  });
});
