// A new command is one definition and one line in the table: a command defined here, with no other
// file touched, has its inputs read and checked, is listed by --help, and runs through both
// entries' dispatch (the command line's and the action's) as the table's own commands do.
import { Writable } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandDefinition } from '../contract/command.js';
import { INPUTS } from '../contract/inputs.js';
import { COMMANDS } from './run.js';
import { COMMON_INPUTS } from '../contract/settings.js';
import { run as runCli } from '../cli/cli.js';

// The action's runner, as main.ts sees it: inputs in, outputs and failures out.
const runner = vi.hoisted(() => ({
  inputs: {} as Record<string, string>,
  outputs: {} as Record<string, string>,
  failed: [] as string[],
  info: [] as string[],
}));
vi.mock('@actions/core', () => ({
  getInput: (name: string) => runner.inputs[name] ?? '',
  setSecret: () => undefined,
  setOutput: (name: string, value: string) => void (runner.outputs[name] = value),
  setFailed: (message: string) => void runner.failed.push(message),
  saveState: () => undefined,
  getState: () => '',
  notice: () => undefined,
  info: (message: string) => void runner.info.push(message),
  warning: () => undefined,
  debug: () => undefined,
  startGroup: () => undefined,
  endGroup: () => undefined,
}));
const { run: runAction } = await import('../action/main.js');

/** Names the Claw it is given, with no request: all a dispatch test needs. */
const echo: CommandDefinition = {
  name: 'echo',
  summary: 'name the Claw given, sending nothing',
  inputs: ['claw-id'],
  rules: {
    requires: { 'claw-id': 'the Claw to name' },
  },
  run: async ({ settings }) => ({
    ok: true,
    message: `Echo ${settings.clawId}.`,
    outputs: { outcome: 'succeeded', 'claw-id': settings.clawId },
    summary: '',
    notes: [],
    failStep: true,
  }),
};
const TABLE = [...COMMANDS, echo];

const ENV = { CLAW_DEPLOY_API_KEY: 'k-123456', CLAW_DEPLOY_BASE_URL: 'https://api.example.com/v1', NO_COLOR: '1' };

async function cli(argv: string[], table: readonly CommandDefinition[] = TABLE) {
  let stdout = '';
  let stderr = '';
  const stream = (add: (text: string) => void) =>
    new Writable({ write: (chunk, _encoding, done) => (add(String(chunk)), done()) });
  const code = await runCli(
    argv,
    {
      stdout: stream((text) => (stdout += text)),
      stderr: stream((text) => (stderr += text)),
      env: ENV,
      cwd: process.cwd(),
    },
    table,
  );
  return { code, stdout, stderr };
}

describe('a command defined in a test', () => {
  it('runs from the command line, its inputs checked as the table says', async () => {
    const ran = await cli(['echo', '--claw-id', 'c1', '--json']);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ outcome: 'succeeded', message: 'Echo c1.' });
    const missing = await cli(['echo']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: --claw-id is "": expected the Claw to name.\n');
    // An input only other commands read is refused with their names, in the table's order.
    const manifest = await cli(['echo', '--claw-id', 'c1', '--manifest', 'claws.yml']);
    expect(manifest.stderr).toBe(
      'error: --manifest is "claws.yml": expected to be set only with the plan, apply, drift and preview commands.\n',
    );
    // Without the line in the table, there is no such command.
    expect((await cli(['echo', '--claw-id', 'c1'], COMMANDS)).stderr).toMatch(/^error: Unknown command "echo"/);
  });

  it('is in --help, with the flags it reads', async () => {
    expect((await cli(['--help'])).stdout).toMatch(/\n {2}echo +name the Claw given, sending nothing\n/);
    const help = (await cli(['echo', '--help'])).stdout;
    expect(help).toContain('echo: name the Claw given, sending nothing.');
    expect(help).toMatch(/Which Claw:\n {2}--claw-id/);
    expect(help).not.toContain('--manifest');
  });

  describe('in the action', () => {
    beforeEach(() => {
      // The runner fills in action.yml's defaults (the token's expression it expands; here there is none).
      const defaults = Object.fromEntries(INPUTS.map((i) => [i.name, i.default ?? '']));
      runner.inputs = {
        ...defaults,
        'github-token': '',
        command: 'echo',
        'api-key': 'k-123456',
        'base-url': 'https://api.example.com',
        'claw-id': 'c1',
      };
      runner.outputs = {};
      runner.failed = [];
      runner.info = [];
    });

    it('runs through the same table', async () => {
      await runAction(TABLE);
      expect(runner.failed).toEqual([]);
      expect(runner.outputs).toMatchObject({ outcome: 'succeeded', 'claw-id': 'c1' });
      expect(runner.info).toContain('Echo c1.');
    });

    it('is an unknown command without its line', async () => {
      await runAction(COMMANDS);
      expect(runner.failed).toEqual([
        `Input 'command' is "echo": expected one of ${COMMANDS.map((c) => c.name).join(', ')}.`,
      ]);
      expect(runner.outputs.outcome).toBe('error');
    });
  });
});

describe('the table', () => {
  it("types a command's settings by its inputs: its run sees only what they fill (npm run build checks it)", () => {
    const named: CommandDefinition<'claw-id'> = {
      name: 'named',
      summary: 'reads what it does not declare',
      inputs: ['claw-id'],
      run: async ({ settings }) => {
        // @ts-expect-error: it does not read `manifest`, so its settings have none.
        const manifest: string = settings.manifest;
        return {
          ok: true,
          message: `${settings.clawId} ${manifest}`,
          outputs: {},
          summary: '',
          notes: [],
          failStep: true,
        };
      },
    };
    expect(named.inputs).toEqual(['claw-id']);
  });

  it('names each command once, and each reads only inputs of the input table, every one read by some command', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const table = INPUTS.map((i) => i.name);
    for (const command of COMMANDS) {
      expect(command.summary, command.name).toMatch(/^[^\n]+$/);
      expect(
        command.inputs.filter((name) => !table.includes(name)),
        command.name,
      ).toEqual([]);
    }
    const read = new Set([...COMMON_INPUTS, ...COMMANDS.flatMap((c) => c.inputs)]);
    expect(table.filter((name) => !read.has(name))).toEqual([]);
  });
});
