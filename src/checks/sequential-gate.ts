// A comparison run in rounds and looked at after each (compare/sequential.ts holds the rule): the
// candidate's rounds against the baseline's answers, matched question by question to the repeats
// both sides made, at each look's share of the level; the verdict at the end at the level left.
import { DEFAULT_LEVEL, type Stop, decisive, lookLevels } from '../compare/index.js';
import type { Logger } from '../shared/clock.js';
import type { BehaviourGate, Compared, RunSide } from './comparison.js';
import type { CheckEntry, Rounds } from './result.js';

/**
 * Each check's samples cut to the repeats both sides made of it (the first of each): a question
 * asked twice before and once after is compared once against once. Entries without a counterpart
 * are kept whole (the engine says what is missing). With `candidateWhole` (a fixed baseline, which
 * cannot be asked again) only the baseline is cut: the candidate's extra repeats of a question whose
 * answer differed from the saved one are its evidence, not waste.
 */
export function matchRepeats(
  baseline: CheckEntry[],
  candidate: CheckEntry[],
  candidateWhole = false,
): [CheckEntry[], CheckEntry[]] {
  const made = (entries: CheckEntry[]) => new Map(entries.map((e) => [e.check, e.samples?.length ?? 0]));
  const [before, after] = [made(baseline), made(candidate)];
  const cut = (entries: CheckEntry[], other: Map<string, number>) =>
    entries.map((e) => {
      const n = other.get(e.check);
      return n === undefined || !e.samples || e.samples.length <= n ? e : { ...e, samples: e.samples.slice(0, n) };
    });
  return [cut(baseline, after), candidateWhole ? candidate : cut(candidate, before)];
}

/** Two sides of one run, their samples matched question by question (`matchRepeats`). */
export function pairUp<T extends { entries: CheckEntry[] }>(baseline: T, candidate: T): [T, T] {
  const [before, after] = matchRepeats(baseline.entries, candidate.entries);
  return [
    { ...baseline, entries: before },
    { ...candidate, entries: after },
  ];
}

/** The candidate's rounds, looked at after each; then the verdict, at the level each look left. */
export class SequentialComparison {
  private planned = 1;
  private stopped?: { stop: Stop; round: number; level: number };

  constructor(
    private readonly gate: BehaviourGate,
    private readonly baseline: RunSide,
    private readonly candidateLabel: string,
    private readonly log: Logger,
    private readonly options: { level?: number; fixed?: boolean; timesApart?: string } = {},
  ) {}

  private get level(): number {
    return this.options.level ?? DEFAULT_LEVEL;
  }

  /** The run mode's rounds for the candidate: the baseline's answers, and a look after each round. */
  get rounds(): Rounds {
    return {
      prior: this.baseline.entries,
      look: (round, rounds, entries) => this.look(round, rounds, entries),
    };
  }

  private look(round: number, rounds: number, entries: CheckEntry[]): boolean {
    this.planned = rounds;
    const level = lookLevels(rounds, this.level)[round - 1];
    const compared = this.compare(entries, level);
    const stop = decisive(compared, this.gate.tolerance);
    if (!stop) return false;
    this.stopped = { stop, round, level };
    this.log.info(
      `Stopped after round ${round} of ${rounds}: behaviour ${stop} at this look's level (${(level * 100).toFixed(1)}%); the other repeats were not needed.`,
    );
    return true;
  }

  /** The verdict on the candidate's entries: at the level of the look that stopped, or the last look's. */
  verdict(entries: CheckEntry[]): Compared {
    const level = this.stopped?.level ?? lookLevels(this.planned, this.level).at(-1)!;
    return this.compare(entries, level);
  }

  /**
   * Both sides matched to the repeats each made; against a fixed baseline (a saved run, which
   * cannot grow) every candidate attempt is read: a question asked again because its answer
   * differed from the saved one is compared whole, not cut back to the saved run's count.
   */
  private compare(entries: CheckEntry[], level: number): Compared {
    const [before, after] = matchRepeats(this.baseline.entries, entries, this.options.fixed);
    return this.gate.compare(
      { label: this.baseline.label, entries: before },
      { label: this.candidateLabel, entries: after },
      { level, ...(this.options.timesApart ? { timesApart: this.options.timesApart } : {}) },
    );
  }
}

/** One pair of Claws asked in the same rounds: the baseline's and the candidate's ids and labels. */
export interface LivePair {
  baseline: { clawId: string; label: string };
  candidate: { clawId: string; label: string };
}

/**
 * Both sides asked at once, in alternating rounds (`compare` of two Claws, previews beside their
 * production Claws), looked at after each round by the same rule as a deploy's: each pair at that
 * look's share of the level. A pair's first decisive look is its verdict (its later answers, asked
 * while another pair was still open, are never compared at that look's level); the run stops once
 * every pair has decided. A false `regressed` is then at most the sum of the looks' levels, as for
 * one pair.
 */
export class LiveSequential {
  private planned = 1;
  private readonly decided = new Map<number, { stop: Stop; round: number; compared: Compared }>();

  constructor(
    private readonly gate: Pick<BehaviourGate, 'compare' | 'tolerance'>,
    private readonly pairs: LivePair[],
    private readonly log: Logger,
    private readonly level = DEFAULT_LEVEL,
  ) {}

  /** The run mode's rounds: a look after each round of both sides. */
  get rounds(): Rounds {
    return { look: (round, rounds, entries) => this.look(round, rounds, entries) };
  }

  private look(round: number, rounds: number, entries: CheckEntry[]): boolean {
    this.planned = rounds;
    const level = lookLevels(rounds, this.level)[round - 1];
    this.pairs.forEach((pair, i) => {
      if (this.decided.has(i)) return;
      const compared = this.compare(pair, entries, level);
      const stop = decisive(compared, this.gate.tolerance);
      if (!stop) return;
      this.decided.set(i, { stop, round, compared });
      this.log.info(
        `${pair.candidate.label} against ${pair.baseline.label}: behaviour ${stop} after round ${round} of ${rounds} at this look's level (${(level * 100).toFixed(1)}%)${this.decided.size < this.pairs.length ? '' : '; the other repeats were not needed'}.`,
      );
    });
    return this.decided.size === this.pairs.length;
  }

  /** Pair `index`'s verdict: its decisive look's, or the whole run's at the last look's level. */
  verdict(index: number, entries: CheckEntry[]): Compared {
    const decided = this.decided.get(index);
    if (decided) return decided.compared;
    return this.compare(this.pairs[index], entries, lookLevels(this.planned, this.level).at(-1)!);
  }

  /** The round a pair stopped at, when it stopped before the last. */
  stoppedAt(index: number): number | undefined {
    return this.decided.get(index)?.round;
  }

  private compare(pair: LivePair, entries: CheckEntry[], level: number): Compared {
    const of = (clawId: string) => entries.filter((e) => e.clawId === clawId);
    const [before, after] = matchRepeats(of(pair.baseline.clawId), of(pair.candidate.clawId));
    return this.gate.compare(
      { label: pair.baseline.label, entries: before },
      { label: pair.candidate.label, entries: after },
      { level },
    );
  }
}
