// What a comparison will cost, said before its first request: the messages both sides may send (the
// most, every repeat of every question, and what to expect when questions that answer the same
// every time are asked fewer times), how long they take at the team's limit (the rate-limit
// headers' when seen, the documented default before), and what the suite can find (the power line).
import { type Detectable, referenceProfile } from '../compare/index.js';
import type { Logger } from '../shared/clock.js';
import { formatDuration } from '../shared/format.js';
import type { CheckSuite } from './check.js';
import { MIN_OWN_ALONE, MIN_OWN_TOGETHER } from './informs.js';

/** The service's documented limit for a Starter team, assumed before any rate-limit header is seen. */
export const DOCUMENTED_LIMIT_PER_MINUTE = 60;
/** The share of the team's window a run spends: a tenth is kept for the team's other clients. */
const SPENDABLE = 0.9;

export interface Cost {
  /** Messages of both sides at most (every repeat, every turn). */
  most: number;
  /** Messages expected with questions that do not vary asked fewer times (reference profile). */
  expected: number;
  /** The limit the time is reckoned at, requests a minute, and where it came from. */
  perMinute: number;
  fromHeaders: boolean;
  line: string;
}

/** The chance a question of pass rate p answers the same `n` times. */
const same = (p: number, n: number) => p ** n + (1 - p) ** n;

/**
 * The cost of comparing `suite` on `sides` sides still to ask (2: both, 1: the baseline is already
 * known, a saved run), at `limit` requests a minute when the headers have said it.
 */
export function comparisonCost(
  suite: CheckSuite,
  power: Detectable,
  options: { sides: 1 | 2; limit?: number; clawId?: string },
): Cost {
  const checks = suite.checks.filter((c) => !options.clawId || !c.claws || c.claws.includes(options.clawId));
  const rates = referenceProfile();
  let most = 0;
  let expected = 0;
  for (const c of checks) {
    const turns = c.turns.length;
    most += options.sides * c.repeat * turns;
    for (const { share, rate } of rates) {
      // Asked alone: twice, then every repeat if it varied; with the other side known: once first.
      const first = Math.min(c.repeat, options.sides === 2 ? MIN_OWN_ALONE : MIN_OWN_TOGETHER);
      const firstSide = first + (c.repeat - first) * (1 - same(rate, first));
      const second =
        options.sides === 2
          ? MIN_OWN_TOGETHER + (c.repeat - MIN_OWN_TOGETHER) * (1 - same(rate, first + MIN_OWN_TOGETHER))
          : 0;
      expected += share * (firstSide + Math.min(c.repeat, second)) * turns;
    }
  }
  const perMinute = options.limit ?? DOCUMENTED_LIMIT_PER_MINUTE;
  const minutes = (n: number) => formatDuration(Math.round((n / (perMinute * SPENDABLE)) * 60_000));
  const limitSaid = options.limit
    ? `${perMinute} requests a minute (the team's limit, from the rate-limit headers)`
    : `${perMinute} requests a minute (the documented default: no rate-limit header seen yet)`;
  const line =
    `${options.sides === 2 ? 'both sides' : 'the candidate'}: at most ${most} message(s), about ${Math.round(expected)} expected ` +
    `(questions answered the same every time are asked fewer times; a task Claw adds its polls), ` +
    `${minutes(most)} at most and about ${minutes(expected)} at ${limitSaid}; ${power.line}`;
  return { most, expected: Math.round(expected), perMinute, fromHeaders: options.limit !== undefined, line };
}

/**
 * `max-requests`: the most messages a comparison may send. A suite that could send more is asked
 * fewer repeats (every check at most `repeats`, its min-pass cut in proportion), the largest that
 * fits; one that cannot fit a single round of its questions is refused. The suite is changed in
 * place (the gate reads it); returns the repeats kept, or undefined when it fitted as written.
 */
export function fitRequests(
  suite: CheckSuite,
  maxRequests: number,
  options: { sides: 1 | 2; clawId?: string },
): { repeats: number; most: number } | { refused: string } | undefined {
  const checks = suite.checks.filter((c) => !options.clawId || !c.claws || c.claws.includes(options.clawId));
  const most = (r: number) => options.sides * checks.reduce((n, c) => n + Math.min(c.repeat, r) * c.turns.length, 0);
  const deepest = Math.max(0, ...checks.map((c) => c.repeat));
  if (maxRequests <= 0 || most(deepest) <= maxRequests) return undefined;
  if (most(1) > maxRequests)
    return {
      refused: `at least ${most(1)}: one round of the suite's questions on ${options.sides === 2 ? 'both sides' : 'the candidate'}`,
    };
  let repeats = 1;
  while (repeats + 1 < deepest && most(repeats + 1) <= maxRequests) repeats += 1;
  for (const c of checks) {
    if (c.repeat <= repeats) continue;
    c.minPass = Math.max(1, Math.ceil((c.minPass * repeats) / c.repeat));
    c.repeat = repeats;
  }
  return { repeats, most: most(repeats) };
}

/**
 * `max-requests` applied before the first request: the suite cut to fit and said; what the input
 * should have been when no cut fits (the command refuses it).
 */
export function fitToMaxRequests(
  log: Logger,
  suite: CheckSuite,
  maxRequests: number,
  sides: 1 | 2,
  clawId?: string,
): string | undefined {
  const fit = fitRequests(suite, maxRequests, { sides, ...(clawId ? { clawId } : {}) });
  if (!fit) return undefined;
  if ('refused' in fit) return fit.refused;
  log.info(
    `max-requests ${maxRequests}: each question asked at most ${fit.repeats} time(s) a side (at most ${fit.most} messages); the power line below is what is left.`,
  );
  return undefined;
}
