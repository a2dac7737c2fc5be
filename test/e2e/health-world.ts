// The world of a scheduled health step, for the end-to-end tests of health over time: the
// simulator and the fake GitHub API on one clock the test moves, and dist/index.js run as the
// `health` step of a given moment (incidents on, every Claw of the workspace).
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, type SimOptions, Simulator } from '../sim/server.ts';
import { type ActionRun, type RunOptions, runAction } from './harness.ts';

export class HealthWorld {
  sim: Simulator | undefined;
  github: FakeGitHub | undefined;
  private offset = 0;
  private runId: number;

  /** `inputs` over the health step's own; `options` for every run (a run's own go over them). */
  constructor(
    private readonly inputs: Record<string, string>,
    private readonly options: RunOptions = {},
    firstRunId = 100,
  ) {
    this.runId = firstRunId;
  }

  /** The simulator and the fake GitHub, started on the world's clock. */
  async start(simOptions: Partial<SimOptions> = {}): Promise<{ sim: Simulator; github: FakeGitHub }> {
    const now = (): number => Date.now() + this.offset;
    this.sim = new Simulator({ now, ...simOptions });
    await this.sim.start();
    this.github = new FakeGitHub({ now });
    await this.github.start();
    return { sim: this.sim, github: this.github };
  }

  /** The health step run at `when` (the clock moved there for the servers and the child alike). */
  run(when: number, extra: Record<string, string> = {}, options: RunOptions = {}): Promise<ActionRun> {
    this.offset = when - Date.now();
    return runAction(
      {
        command: 'health',
        'api-key': DEMO_KEY,
        'base-url': `${this.sim!.url}/v1`,
        'claw-id': '*',
        'poll-interval': '100ms',
        incidents: 'true',
        ...this.inputs,
        ...extra,
      },
      {
        ...this.options,
        ...options,
        clockAt: when,
        env: { GITHUB_API_URL: this.github!.url, GITHUB_RUN_ID: String(++this.runId), ...options.env },
      },
    );
  }

  async stop(): Promise<void> {
    await this.sim?.stop();
    await this.github?.stop();
    this.sim = undefined;
    this.github = undefined;
  }
}
