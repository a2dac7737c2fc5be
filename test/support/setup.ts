// Builds a simulator and a client that share one fake clock, for integration tests.
import { AmsClient } from '../../src/api/client.js';
import { RateLimitPacer } from '../../src/api/rate-limit.js';
import { Transport } from '../../src/api/transport.js';
import type { Logger } from '../../src/shared/clock.js';
import { type CommandDeps, type Policy } from '../../src/deploy/deploy.js';
import { statusClassifier } from '../../src/shared/status.js';
import { DEMO_KEY, type SimOptions, Simulator } from '../sim/server.ts';
import { FakeClock } from './fake-clock.ts';

export class RecordingLogger implements Logger {
  readonly lines: { level: 'info' | 'warning' | 'debug'; message: string }[] = [];
  info = (message: string): void => void this.lines.push({ level: 'info', message });
  warning = (message: string): void => void this.lines.push({ level: 'warning', message });
  debug = (message: string): void => void this.lines.push({ level: 'debug', message });
  text(level?: 'info' | 'warning' | 'debug'): string {
    return this.lines
      .filter((l) => !level || l.level === level)
      .map((l) => l.message)
      .join('\n');
  }
}

export interface Harness {
  sim: Simulator;
  clock: FakeClock;
  log: RecordingLogger;
  client: AmsClient;
  transport: Transport;
  pacer: RateLimitPacer;
  deps: CommandDeps;
}

/** A started simulator on port 0 and a client on the same fake clock. Call `sim.stop()` after. */
export async function setup(
  options: SimOptions = {},
  client: { apiKey?: string; authScheme?: string; requestTimeoutMs?: number; random?: () => number } = {},
): Promise<Harness> {
  const clock = new FakeClock();
  const sim = new Simulator({ now: clock.now, ...options });
  const url = await sim.start();
  const log = new RecordingLogger();
  const pacer = new RateLimitPacer(clock.now, () => 0.5);
  const transport = new Transport({
    baseUrl: url,
    apiKey: client.apiKey ?? DEMO_KEY,
    authScheme: client.authScheme ?? 'Bearer',
    requestTimeoutMs: client.requestTimeoutMs ?? 2000,
    clock,
    log,
    pacer,
    random: client.random ?? (() => 0.5),
  });
  const api = new AmsClient(transport);
  const deps: CommandDeps = {
    client: api,
    clock,
    log,
    pacer,
    startedAt: clock.now(),
    deadline: clock.now() + DEFAULT_TIMEOUT_MS,
  };
  return { sim, clock, log, client: api, transport, pacer, deps };
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** Sets the run's timeout (its deadline), as the `timeout` input does; returns it for `policy`. */
export function timeout(harness: Harness, ms: number): number {
  harness.deps.deadline = harness.deps.startedAt + ms;
  return ms;
}

export function policy(overrides: Partial<Policy> = {}): Policy {
  return {
    timeoutMs: DEFAULT_TIMEOUT_MS,
    pollIntervalMs: 5000,
    classify: statusClassifier(),
    autoRollback: false,
    rollbackOn: ['failed', 'timed-out'],
    onConflict: 'wait',
    ...overrides,
  };
}
