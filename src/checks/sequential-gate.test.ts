// Both sides asked at once (compare of two Claws, previews beside production) are looked at after
// each round by the rule a deploy's baseline uses: each pair at its look's share of the level, its
// first decisive look its verdict, the run stopped once every pair has decided.
import { describe, expect, it } from 'vitest';
import { lookLevels } from '../compare/index.js';
import type { Logger } from '../shared/clock.js';
import type { Compared, RunSide } from './comparison.js';
import type { CheckEntry } from './result.js';
import { LiveSequential, SequentialComparison, matchRepeats } from './sequential-gate.js';

const quiet: Logger = { debug: () => {}, info: () => {}, warning: () => {}, error: () => {} } as unknown as Logger;

/** `n` attempts of one question on `clawId`, passing or failing. */
const entry = (clawId: string, outcomes: ('pass' | 'fail')[]): CheckEntry =>
  ({
    check: 'q1',
    clawId,
    passed: true,
    passes: outcomes.filter((o) => o === 'pass').length,
    attempts: outcomes.length,
    failures: 0,
    samples: outcomes.map((outcome) => ({ outcome })),
  }) as unknown as CheckEntry;

/** A gate that reads `regressed` when the candidate failed more than the baseline, recording its calls. */
function fakeGate() {
  const calls: { baseline: RunSide; candidate: RunSide; level?: number }[] = [];
  return {
    calls,
    compare(baseline: RunSide, candidate: RunSide, options?: { level?: number }): Compared {
      calls.push({ baseline, candidate, level: options?.level });
      const fails = (s: RunSide) =>
        s.entries.flatMap((e) => e.samples ?? []).filter((x) => x.outcome === 'fail').length;
      const worse = fails(candidate) > fails(baseline);
      return {
        behaviour: worse ? 'regressed' : 'unchanged',
        metrics: [
          {
            metric: 'pass-rate',
            primary: true,
            low: -1,
            high: 1,
            baseline: { value: 1 },
          } as unknown as Compared['metrics'][number],
        ],
      };
    },
  };
}

describe('matchRepeats', () => {
  const samples = (e: CheckEntry) => e.samples?.map((x) => x.outcome);

  it('cuts both sides to the repeats each made of a question', () => {
    const [b, c] = matchRepeats([entry('b', ['pass', 'pass'])], [entry('c', ['fail', 'pass', 'pass'])]);
    expect([samples(b[0]), samples(c[0])]).toEqual([
      ['pass', 'pass'],
      ['fail', 'pass'],
    ]);
  });

  it('against a fixed baseline, cuts only the baseline: the candidate is read whole', () => {
    const [b, c] = matchRepeats([entry('b', ['pass', 'pass'])], [entry('c', ['fail', 'pass', 'pass'])], true);
    expect([samples(b[0]), samples(c[0])]).toEqual([
      ['pass', 'pass'],
      ['fail', 'pass', 'pass'],
    ]);
    const [b1, c1] = matchRepeats([entry('b', ['pass', 'pass', 'pass'])], [entry('c', ['pass'])], true);
    expect([samples(b1[0]), samples(c1[0])]).toEqual([['pass'], ['pass']]);
  });

  it('a saved baseline of one answer is compared with every repeat the candidate was asked after a differing answer', () => {
    const gate = { ...fakeGate(), failOn: 'regression' as const };
    const saved = new SequentialComparison(gate, { label: 'saved', entries: [entry('b', ['pass'])] }, 'after', quiet, {
      fixed: true,
    });
    saved.verdict([entry('c', ['fail', 'pass', 'pass'])]);
    expect(gate.calls.at(-1)?.candidate.entries[0].samples?.length).toBe(3);
    const live = new SequentialComparison(gate, { label: 'before', entries: [entry('b', ['pass'])] }, 'after', quiet);
    live.verdict([entry('c', ['fail', 'pass', 'pass'])]);
    expect(gate.calls.at(-1)?.candidate.entries[0].samples?.length).toBe(1);
  });
});

describe('LiveSequential', () => {
  const pairs = [
    { baseline: { clawId: 'prod-a', label: 'production' }, candidate: { clawId: 'prev-a', label: 'preview' } },
    { baseline: { clawId: 'prod-b', label: 'production' }, candidate: { clawId: 'prev-b', label: 'preview' } },
  ];

  it("looks at each pair at its round's share of the level, splitting the run's entries by Claw", () => {
    const gate = fakeGate();
    const live = new LiveSequential(gate, pairs, quiet);
    const entries = [
      entry('prod-a', ['pass']),
      entry('prev-a', ['pass']),
      entry('prod-b', ['pass']),
      entry('prev-b', ['pass']),
    ];
    // Nothing decisive (a pass-rate tolerance of 0 never stops for unchanged): the run goes on.
    expect(live.rounds.look!(1, 3, entries)).toBe(false);
    expect(gate.calls).toHaveLength(2);
    for (const call of gate.calls) expect(call.level).toBeCloseTo(lookLevels(3)[0], 12);
    expect(gate.calls[1].baseline.entries.map((e) => e.clawId)).toEqual(['prod-b']);
    expect(gate.calls[1].candidate.entries.map((e) => e.clawId)).toEqual(['prev-b']);
  });

  it("a pair decided early keeps that look's verdict; the run stops once every pair has decided", () => {
    const gate = fakeGate();
    const live = new LiveSequential(gate, pairs, quiet);
    const round1 = [
      entry('prod-a', ['pass']),
      entry('prev-a', ['fail']),
      entry('prod-b', ['pass']),
      entry('prev-b', ['pass']),
    ];
    expect(live.rounds.look!(1, 3, round1)).toBe(false);
    expect(live.stoppedAt(0)).toBe(1);
    expect(live.stoppedAt(1)).toBeUndefined();
    // Round 2: pair a's later answers are not looked at again; pair b turns decisive.
    gate.calls.length = 0;
    const round2 = [
      entry('prod-a', ['pass', 'pass']),
      entry('prev-a', ['fail', 'pass']),
      entry('prod-b', ['pass', 'pass']),
      entry('prev-b', ['pass', 'fail']),
    ];
    expect(live.rounds.look!(2, 3, round2)).toBe(true);
    expect(gate.calls.map((c) => c.candidate.entries[0].clawId)).toEqual(['prev-b']);
    expect(gate.calls[0].level).toBeCloseTo(lookLevels(3)[1], 12);
    // The verdicts: each pair's decisive look, never recomputed on later answers.
    gate.calls.length = 0;
    expect(live.verdict(0, round2).behaviour).toBe('regressed');
    expect(live.verdict(1, round2).behaviour).toBe('regressed');
    expect(gate.calls).toHaveLength(0);
  });

  it('a pair never decided is compared at the end at the last look’s level; with no look, at the whole level', () => {
    const gate = fakeGate();
    const live = new LiveSequential(gate, pairs.slice(0, 1), quiet);
    const same = [entry('prod-a', ['pass', 'pass', 'pass']), entry('prev-a', ['pass', 'pass', 'pass'])];
    expect(live.rounds.look!(1, 3, same)).toBe(false);
    expect(live.rounds.look!(2, 3, same)).toBe(false);
    expect(live.verdict(0, same).behaviour).toBe('unchanged');
    expect(gate.calls.at(-1)!.level).toBeCloseTo(lookLevels(3).at(-1)!, 12);
    // The levels of the looks made add up to the level: the union bound holds it.
    const levels = gate.calls.map((c) => c.level!);
    expect(levels.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.05 + 1e-12);
    const once = fakeGate();
    new LiveSequential(once, pairs.slice(0, 1), quiet).verdict(0, same);
    expect(once.calls[0].level).toBe(0.05);
  });
});
