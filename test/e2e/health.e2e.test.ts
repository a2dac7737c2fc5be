// The health command through dist/index.js.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const startSimulator = simulatorPerTest({ pageSize: 2 });

async function start(): Promise<Simulator> {
  const sim = await startSimulator();
  sim.addClaw('bot-a', { chat: { mode: 'sync', reply: 'pong' } });
  sim.addDeployment('bot-a', [['live']]);
  sim.addClaw('bot-b', { chat: { mode: 'task', taskMs: 2000, reply: 'pong, slowly' } });
  return sim;
}

/** Every Claw, at a base URL written with its trailing slash. */
const inputs = (s: Simulator, extra: Record<string, string> = {}) =>
  inputsFor(s, { command: 'health', 'base-url': `${s.url}/v1/`, 'claw-id': '*', ...extra });

describe('health through dist/index.js', () => {
  it('checks every Claw with a chat probe: outputs, report, summary', async () => {
    const s = await start();
    const run = await runAction(inputs(s, { 'probe-message': 'ping', 'probe-expect': '^pong' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs.healthy).toBe('true');
    const report = JSON.parse(run.outputs.report) as Record<string, unknown>[];
    expect(report).toHaveLength(2);
    expect(report[0]).toMatchObject({ clawId: 'bot-a', healthy: true, status: 'online / live', reply: 'pong' });
    expect(report[1]).toMatchObject({ clawId: 'bot-b', healthy: true, reply: 'pong, slowly' });
    expect(report[1].latencyMs).toEqual(expect.any(Number));
    expect(run.summary).toContain('### ✅ Claw health');
    expect(run.summary).toMatch(/\| ✅ \| `bot-a` \| healthy \|/);
  });

  it('fails the step when a Claw is unhealthy, naming it', async () => {
    const s = await start();
    s.addClaw('bot-c', { status: 'offline' });
    const run = await runAction(inputs(s, { 'claw-id': 'bot-a, bot-c' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.healthy).toBe('false');
    expect(run.errors).toEqual(['1 of 2 Claws is not healthy: bot-c (unhealthy).']);
    expect(run.summary).toMatch(/\| ❌ \| `bot-c` \| unhealthy \|/);
  });

  it('only warns when fail-on-unhealthy is false', async () => {
    const s = await start();
    s.addClaw('bot-c', { status: 'offline' });
    const run = await runAction(inputs(s, { 'claw-id': 'bot-c', 'fail-on-unhealthy': 'false' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs.healthy).toBe('false');
    expect(run.warnings).toContain('The Claw is not healthy: bot-c (unhealthy).');
  });

  it('fails a probe whose reply does not match', async () => {
    const s = await start();
    const run = await runAction(inputs(s, { 'claw-id': 'bot-a', 'probe-message': 'ping', 'probe-expect': 'hello' }));
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.outputs.report)[0]).toMatchObject({
      healthy: false,
      reply: 'pong',
      detail: 'probe: reply does not match /hello/',
    });
  });
});
