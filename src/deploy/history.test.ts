// The history reader, the schedule it sets, and the fallback, on a fake clock with the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { toDeployment } from '../api/client.js';
import { statusClassifier } from '../shared/status.js';
import { deployClaw } from './deploy.js';
import { DeploymentHistory, type Expectation, nextPollDelay, successfulDurations } from './history.js';

const classify = statusClassifier();
const T0 = Date.parse('2026-11-20T10:00:00Z');

/** A list entry as the service might send it. */
const entry = (fields: Record<string, unknown>) => toDeployment({ id: `d${Math.random()}`, ...fields })!;

describe('successfulDurations', () => {
  const start = new Date(T0).toISOString();
  const end = new Date(T0 + 20_000).toISOString();

  it.each([
    ['createdAt', 'finishedAt'],
    ['created_at', 'finished_at'],
    ['startedAt', 'completedAt'],
    ['started_at', 'completed_at'],
    ['createdAt', 'endedAt'],
    ['createdAt', 'ended_at'],
    ['createdAt', 'updatedAt'],
    ['created_at', 'updated_at'],
  ])('reads %s → %s', (from, to) => {
    const d = entry({ clawId: 'c1', status: 'succeeded', [from]: start, [to]: end });
    expect(successfulDurations([d], 'c1', classify)).toEqual([20_000]);
  });

  it.each([
    ['ISO 8601', start, end],
    ['epoch seconds', T0 / 1000, T0 / 1000 + 20],
    ['epoch milliseconds', T0, T0 + 20_000],
    ['epoch seconds as text', String(T0 / 1000), String(T0 / 1000 + 20)],
  ])('reads times in %s', (_, from, to) => {
    const d = entry({ clawId: 'c1', status: 'live', createdAt: from, finishedAt: to });
    expect(successfulDurations([d], 'c1', classify)).toEqual([20_000]);
  });

  it('prefers an end field over updatedAt', () => {
    const d = entry({
      clawId: 'c1',
      status: 'succeeded',
      createdAt: T0,
      updatedAt: T0 / 1000 + 90,
      finishedAt: T0 / 1000 + 20,
    });
    expect(successfulDurations([d], 'c1', classify)).toEqual([20_000]);
  });

  it('leaves out missing and garbage times, other Claws, failed and unfinished deployments', () => {
    const list = [
      entry({ clawId: 'c1', status: 'succeeded', createdAt: start }), // no end
      entry({ clawId: 'c1', status: 'succeeded', finishedAt: end }), // no start
      entry({ clawId: 'c1', status: 'succeeded', createdAt: 'soon', finishedAt: 'later' }),
      entry({ clawId: 'c1', status: 'succeeded', createdAt: 5, finishedAt: 25 }), // not epoch times
      entry({ clawId: 'c1', status: 'succeeded', createdAt: end, finishedAt: start }), // ends before it starts
      entry({ clawId: 'c1', status: 'succeeded', createdAt: T0, finishedAt: T0 + 3 * 86_400_000 }), // three days
      entry({ clawId: 'c2', status: 'succeeded', createdAt: start, finishedAt: end }),
      entry({ clawId: 'c1', status: 'failed', createdAt: start, finishedAt: end }),
      entry({ clawId: 'c1', status: 'deploying', createdAt: start, updatedAt: end }),
      entry({ status: 'succeeded', createdAt: start, finishedAt: end }), // no Claw
    ];
    expect(successfulDurations(list, 'c1', classify)).toEqual([]);
  });

  it('keeps the newest twenty', () => {
    const list = Array.from({ length: 30 }, (_, i) =>
      entry({ clawId: 'c1', status: 'done', createdAt: T0, finishedAt: T0 + 1000 * (i + 1) }),
    );
    expect(successfulDurations(list, 'c1', classify)).toHaveLength(20);
  });
});

describe('nextPollDelay', () => {
  const usual: Expectation = { count: 12, shortestMs: 180_000, longestMs: 200_000 };

  it('is the interval without history', () => {
    for (const elapsed of [0, 10_000, 600_000]) expect(nextPollDelay(5000, elapsed)).toBe(5000);
  });

  it('grows with the time elapsed, never beyond a third of it, never below the interval', () => {
    for (let elapsed = 0; elapsed < 150_000; elapsed += 1000) {
      const delay = nextPollDelay(5000, elapsed, usual);
      expect(delay).toBeGreaterThanOrEqual(5000);
      expect(delay).toBeLessThanOrEqual(Math.max(5000, elapsed / 3));
    }
    expect(nextPollDelay(5000, 60_000, usual)).toBe(20_000);
  });

  it('lands on the moment polling returns to the interval, one interval before the shortest duration', () => {
    // Closes from 180 s − 5 s = 175 s: a poll at 150 s waits 25 s, not 50 s.
    expect(nextPollDelay(5000, 150_000, usual)).toBe(25_000);
    for (const elapsed of [175_000, 180_000, 250_000, 3_600_000])
      expect(nextPollDelay(5000, elapsed, usual)).toBe(5000);
  });

  it('sees a usual deployment within the interval, an early crash within a third of the time elapsed', () => {
    /** Poll times from the trigger, as the schedule sets them, up to `until`. */
    const polls = (until: number): number[] => {
      const times = [];
      for (let t = nextPollDelay(5000, 0, usual); t < until + 60_000; t += nextPollDelay(5000, t, usual)) times.push(t);
      return times;
    };
    const lag = (endsAt: number) => polls(endsAt).find((t) => t >= endsAt)! - endsAt;
    expect(lag(180_000)).toBeLessThanOrEqual(5000);
    expect(lag(30_000)).toBeLessThanOrEqual(5000 + 30_000 / 3);
    expect(lag(288_000)).toBeLessThanOrEqual(5000);
    // 13 polls where a fixed 5 s poller needs 36.
    expect(polls(180_000).filter((t) => t <= 180_000)).toHaveLength(13);
  });
});

describe('polling from history, against the simulator', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.sim.stop();
    h = undefined;
  });

  async function withHistory(durations: number[], options: { timestamps?: boolean } = {}): Promise<Harness> {
    h = await setup({ timestamps: options.timestamps ?? true });
    h.sim.addClaw('c1', { plan: [['deploying', 180_000], ['live']] });
    h.sim.addClaw('other', { plan: [['live']] });
    for (const ms of durations) h.sim.addPastDeployment('c1', ms);
    h.sim.addPastDeployment('other', 1000);
    h.deps.history = new DeploymentHistory(h.client, h.log, { deadline: h.deps.deadline });
    return h;
  }
  const deploy = (harness: Harness) =>
    deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy());
  const polls = (harness: Harness) => harness.sim.routeCounts()['GET /v1/deployments/:id'] ?? 0;

  it('reads one page as its first poll, says what it learned, and polls about a third as often', async () => {
    const harness = await withHistory([180_000, 190_000, 200_000, 185_000]);
    const result = await deploy(harness);
    expect(result.outcome).toBe('succeeded');
    // The list, an interval after the trigger, is the first poll: it shows the new deployment too.
    const [post, list, secondPoll] = harness.sim.requests;
    expect([post.method, list.path, secondPoll.path]).toEqual(['POST', '/v1/deployments', '/v1/deployments/dep_0006']);
    expect(list.at - post.at).toBe(5000);
    expect(result.timeline[0]).toMatchObject({ atMs: 0, status: 'deploying' });
    expect(harness.sim.routeCounts()['GET /v1/deployments']).toBe(1);
    expect(harness.log.text('info')).toContain(
      'The last 4 deployments of c1 took 3m–3m20s: polling every 5s from 2m55s, less often before.',
    );
    expect(polls(harness)).toBeLessThanOrEqual(14);
    // Seen within the interval of its end.
    expect(result.durationMs).toBeLessThanOrEqual(180_000 + 5000);
  });

  it.each([
    ['no timestamps in the list', { timestamps: false }, [180_000, 190_000, 200_000], 'fewer than 3'],
    ['too few deployments', {}, [180_000, 190_000], '2 recent successful deployment(s)'],
  ])(
    'falls back to the plain schedule with %s, at no cost: the list was the first poll',
    async (_, options, durations, why) => {
      const harness = await withHistory(durations, options);
      await deploy(harness);
      // A note on the schedule, not a warning: at debug level only (--verbose).
      expect(harness.log.text('debug')).toContain(`No deployment history for c1 (`);
      expect(harness.log.text('debug')).toContain(why);
      expect(harness.log.text('info')).not.toContain('No deployment history');
      // 36 polls in all, as the plain schedule: the first of them the list.
      expect(harness.sim.routeCounts()['GET /v1/deployments']).toBe(1);
      expect(polls(harness)).toBe(35);
    },
  );

  it('falls back when the list is refused (403), retrying nothing', async () => {
    const harness = await withHistory([180_000, 190_000, 200_000]);
    harness.sim.fault({ kind: 'error', status: 403, method: 'GET', path: /^\/deployments$/, times: 5 });
    const result = await deploy(harness);
    expect(result.outcome).toBe('succeeded');
    expect(harness.log.text('debug')).toMatch(/No deployment history for c1 \(the list could not be read \(.*403/);
    expect(harness.sim.requests.filter((r) => r.path === '/v1/deployments' && r.method === 'GET')).toHaveLength(1);
    expect(polls(harness)).toBe(36);
  });

  it('falls back after one failed attempt of a list that errors, without a retry episode', async () => {
    const harness = await withHistory([180_000, 190_000, 200_000]);
    harness.sim.fault({ kind: '500', method: 'GET', path: /^\/deployments$/, times: 5 });
    await deploy(harness);
    expect(harness.sim.requests.filter((r) => r.path === '/v1/deployments' && r.method === 'GET')).toHaveLength(1);
    expect(harness.log.text('warning')).toBe('');
  });
});
