// health with a checks file: `probe-message`/`probe-expect` become one more check, `probe`
// (without a checks file, health runs the probe as it always has). Health's definition hands the
// run this as the checks file it runs.
import type { Assertion } from '../checks/assertions.js';
import { type CheckSuite, DEFAULT_CHECK_TIMEOUT_MS } from '../checks/check.js';
import type { ReplyPattern } from '../shared/pattern.js';

export function withProbe(
  suite: CheckSuite,
  settings: { probeMessage: string; probeExpect: ReplyPattern | undefined },
): CheckSuite {
  if (!settings.probeMessage) return suite;
  const assert: Assertion[] = settings.probeExpect
    ? [{ type: 'regex', negate: false, pattern: settings.probeExpect }]
    : [];
  const probe = {
    name: 'probe',
    turns: [{ send: settings.probeMessage, assert }],
    repeat: 1,
    minPass: 1,
    timeoutMs: DEFAULT_CHECK_TIMEOUT_MS,
  };
  return { ...suite, checks: [...suite.checks, probe] };
}
