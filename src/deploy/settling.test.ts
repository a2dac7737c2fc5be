// The settling's decisions as a table: every row is what the wait, the checks and the comparison
// found, the rollback rules and fail-on, and what is decided: the outcome, the rollback, the message.
import { describe, expect, it } from 'vitest';
import { ACTION_WORDS } from '../shared/words.js';
import type { CheckEntry, ChecksResult } from '../checks/result.js';
import type { ComparisonFailOn, Compared } from '../checks/comparison.js';
import type { Verdict } from '../compare/index.js';
import type { RollbackResult } from './rollback.js';
import { type Known, type RollbackRules, decideSettling, rollsBack, withRollback } from './settling.js';

const entry = (check: string, passed: boolean): CheckEntry => ({
  check,
  clawId: 'c1',
  passed,
  passes: passed ? 3 : 1,
  attempts: 3,
  repeat: 3,
  minPass: 2,
  failures: passed ? 0 : 2,
  errors: 0,
  ...(passed ? {} : { failure: 'the reply did not refuse' }),
  replies: [],
});

const CHECKS: Record<string, ChecksResult | undefined> = {
  none: undefined,
  passed: { passed: true, entries: [entry('greets', true), entry('refuses', true)] },
  failed: { passed: false, entries: [entry('greets', true), entry('refuses', false)] },
  cancelled: { passed: false, cancelled: true, entries: [entry('greets', true), entry('refuses', false)] },
};

const RULES: Record<string, RollbackRules> = {
  off: { autoRollback: false, rollbackOn: ['failed', 'timed-out'] },
  on: { autoRollback: true, rollbackOn: ['failed', 'timed-out'] },
  'on, with cancelled': { autoRollback: true, rollbackOn: ['failed', 'timed-out', 'cancelled'] },
  'on, timed-out only': { autoRollback: true, rollbackOn: ['timed-out'] },
};

const compared = (behaviour: Verdict): Compared => ({ behaviour, metrics: [] });

/** What the wait ended with: its outcome, the last status, and what it or a break said. */
const WAITS: Record<string, Pick<Known, 'outcome' | 'status' | 'note' | 'failure'>> = {
  succeeded: { outcome: 'succeeded', status: 'live' },
  failed: { outcome: 'failed', status: 'crashed' },
  paused: { outcome: 'paused', status: 'paused' },
  'timed-out': { outcome: 'timed-out', status: 'deploying', note: 'no final status within 10m.' },
  cancelled: { outcome: 'cancelled', status: 'deploying' },
  error: { outcome: 'error', status: 'deploying', failure: 'the service answered 500.' },
};

type Row = [
  wait: string,
  checks: string,
  verdict: Verdict | '-',
  rules: string,
  failOn: ComparisonFailOn | '-',
  outcome: string,
  rollBack: 'follow' | 'request' | 'no',
  message: string,
];

const D = 'Deployment dep_1 of Claw c1';
const SUCCEEDED = `${D} succeeded with status "live" after 1m30s`;
const FAILED_CHECKS = `"refuses" on c1 (1 of 3 passed; the reply did not refuse)`;

// prettier-ignore
const TABLE: Row[] = [
  // wait, checks, verdict, rollback rules, fail-on → outcome, rollback, message
  ['succeeded', 'none', '-', 'off', '-', 'succeeded', 'no', `${SUCCEEDED}.`],
  ['succeeded', 'passed', '-', 'on', '-', 'succeeded', 'no', `${SUCCEEDED}, and its 2 check(s) passed.`],
  ['succeeded', 'failed', '-', 'on', '-', 'failed', 'follow', `${SUCCEEDED}, but its checks did not pass: ${FAILED_CHECKS}.`],
  ['succeeded', 'failed', '-', 'off', '-', 'failed', 'no', `${SUCCEEDED}, but its checks did not pass: ${FAILED_CHECKS}.`],
  ['succeeded', 'cancelled', '-', 'on', '-', 'cancelled', 'no', `The run was cancelled during the checks of deployment dep_1 of Claw c1 (status "live"): 1 of 2 check(s) had passed.`],
  ['succeeded', 'cancelled', '-', 'on, with cancelled', '-', 'cancelled', 'request', `The run was cancelled during the checks of deployment dep_1 of Claw c1 (status "live"): 1 of 2 check(s) had passed.`],
  ['succeeded', 'cancelled', 'regressed', 'on, with cancelled', 'regression', 'cancelled', 'request', `The run was cancelled during the checks of deployment dep_1 of Claw c1 (status "live"): 1 of 2 check(s) had passed.`],
  ['succeeded', 'passed', 'regressed', 'on', 'regression', 'failed', 'follow', `${SUCCEEDED}, but it behaves worse than before it ('fail-on' regression): behaviour regressed.`],
  ['succeeded', 'passed', 'regressed', 'off', 'regression', 'failed', 'no', `${SUCCEEDED}, but it behaves worse than before it ('fail-on' regression): behaviour regressed.`],
  ['succeeded', 'failed', 'regressed', 'on', 'never', 'succeeded', 'no', `${SUCCEEDED}; compared with before it: behaviour regressed.`],
  ['succeeded', 'passed', 'inconclusive', 'on', 'inconclusive', 'failed', 'follow', `${SUCCEEDED}, but it behaves worse than before it ('fail-on' inconclusive): behaviour inconclusive.`],
  ['succeeded', 'passed', 'inconclusive', 'on', 'regression', 'succeeded', 'no', `${SUCCEEDED}; compared with before it: behaviour inconclusive.`],
  ['succeeded', 'failed', 'improved', 'on', 'failure', 'failed', 'follow', `${SUCCEEDED}, but its checks did not pass: ${FAILED_CHECKS}.`],
  ['succeeded', 'passed', 'regressed', 'on', 'failure', 'succeeded', 'no', `${SUCCEEDED}; compared with before it: behaviour regressed.`],
  ['succeeded', 'passed', 'improved', 'off', 'inconclusive', 'succeeded', 'no', `${SUCCEEDED}; compared with before it: behaviour improved.`],
  ['failed', 'none', '-', 'on', '-', 'failed', 'follow', `${D} failed with status "crashed" after 1m30s.`],
  ['failed', 'none', '-', 'off', '-', 'failed', 'no', `${D} failed with status "crashed" after 1m30s.`],
  ['paused', 'none', '-', 'on', '-', 'paused', 'no', `${D} is paused with status "paused" after 1m30s: it needs a human.`],
  ['timed-out', 'none', '-', 'on', '-', 'timed-out', 'follow', `${D} timed out: no final status within 10m; last status "deploying".`],
  ['timed-out', 'none', '-', 'off', '-', 'timed-out', 'no', `${D} timed out: no final status within 10m; last status "deploying".`],
  ['cancelled', 'none', '-', 'on', '-', 'cancelled', 'no', `The run was cancelled while waiting for deployment dep_1 of Claw c1 (last status "deploying").`],
  ['cancelled', 'none', '-', 'on, with cancelled', '-', 'cancelled', 'request', `The run was cancelled while waiting for deployment dep_1 of Claw c1 (last status "deploying").`],
  ['error', 'none', '-', 'on', '-', 'error', 'follow', `${D} was triggered, then the deploy stopped: the service answered 500 (last status "deploying").`],
  ['error', 'none', '-', 'on, timed-out only', '-', 'error', 'no', `${D} was triggered, then the deploy stopped: the service answered 500 (last status "deploying"). It was not rolled back: 'rollback-on' does not hold failed.`],
  ['error', 'none', '-', 'off', '-', 'error', 'no', `${D} was triggered, then the deploy stopped: the service answered 500 (last status "deploying").`],
  // A break after the checks ran (the comparison threw): the break decides, not the checks.
  ['error', 'failed', '-', 'on', '-', 'error', 'follow', `${D} was triggered, then the deploy stopped: the service answered 500 (last status "deploying").`],
];

const known = (row: Row, more: Partial<Known> = {}): Known => {
  const [wait, checks, verdict, , failOn] = row;
  return {
    command: 'deploy',
    deploymentId: 'dep_1',
    clawId: 'c1',
    durationMs: 90_000,
    ...WAITS[wait],
    checks: CHECKS[checks],
    ...(verdict !== '-' && failOn !== '-' ? { gate: { failOn, comparison: compared(verdict) } } : {}),
    words: ACTION_WORDS,
    ...more,
  };
};

describe('decideSettling', () => {
  it.each(TABLE)('wait %s, checks %s, verdict %s, auto-rollback %s, fail-on %s', (...row) => {
    const [, , , rules, , outcome, rollBack, message] = row;
    const decision = decideSettling(known(row), RULES[rules]);
    expect(decision.outcome).toBe(outcome);
    expect(decision.rollBack).toEqual(rollBack === 'no' ? undefined : { wait: rollBack === 'follow' });
    expect(decision.message).toBe(message);
  });

  it('says what it knows less of: no Claw, no status, a duration the service does not tell', () => {
    const row = TABLE[0];
    const bare = { clawId: undefined, status: undefined, durationMs: undefined };
    expect(decideSettling(known(row, bare), RULES.off).message).toBe(
      'Deployment dep_1 succeeded with status after a time the service does not tell (it had finished before this wait began).',
    );
    expect(decideSettling(known(TABLE[18], { ...bare, note: undefined }), RULES.off).message).toBe(
      'Deployment dep_1 timed out: no final status in time.',
    );
    expect(decideSettling(known(TABLE[24], { ...bare, failure: undefined }), RULES.off).message).toBe(
      'Deployment dep_1 was triggered, then the deploy stopped: an unexpected error.',
    );
  });

  it('names the command that stopped, when it is not a deploy', () => {
    const decision = decideSettling(known(TABLE[24], { command: 'wait' }), RULES.off);
    expect(decision.message).toBe(
      'The wait of deployment dep_1 of Claw c1 stopped: the service answered 500 (last status "deploying").',
    );
  });

  it('says how long it first waited for the deployments in the way, before the rollback sentence', () => {
    const waited = { deploymentIds: ['dep_0', 'dep_00'], ms: 42_000 };
    const decision = decideSettling(known(TABLE[23], { waited }), RULES['on, timed-out only']);
    expect(decision.message).toBe(
      `${D} was triggered, then the deploy stopped: the service answered 500 (last status "deploying"). It first waited 42s for deployment dep_0 and deployment dep_00, which was in the way. It was not rolled back: 'rollback-on' does not hold failed.`,
    );
  });
});

describe('withRollback', () => {
  const rollback = (result: Partial<RollbackResult>): RollbackResult => ({
    id: 'dep_2',
    form: 'new-deployment',
    succeeded: false,
    outcome: 'failed',
    message: 'rollback dep_2 did not succeed: crashed',
    ...result,
  });

  it.each([
    [
      { succeeded: true, outcome: 'succeeded', message: 'rollback dep_2 finished: live' },
      'Failed. It was rolled back (rollback dep_2 finished: live).',
    ],
    [
      { outcome: 'requested', message: 'rollback dep_2 was requested; not waited for' },
      'Failed. A rollback was requested (rollback dep_2 was requested; not waited for).',
    ],
    [{}, 'Failed. Rolling it back failed too: rollback dep_2 did not succeed: crashed.'],
  ] as [Partial<RollbackResult>, string][])('adds the rollback as it went: %o', (result, message) => {
    expect(withRollback('Failed.', rollback(result))).toBe(message);
  });
});

describe('rollsBack', () => {
  it('takes an error as a failure, and nothing when auto-rollback is off', () => {
    expect(rollsBack(RULES.on, 'error')).toBe(true);
    expect(rollsBack(RULES['on, timed-out only'], 'error')).toBe(false);
    expect(rollsBack(RULES['on, timed-out only'], 'timed-out')).toBe(true);
    expect(rollsBack(RULES.off, 'failed')).toBe(false);
  });
});
