// The reply came within a time; it has no `not-` form.
import { type Family, assertionName } from './family.js';

export interface LatencyAssertion {
  type: 'latency';
  negate: false;
  thresholdMs: number;
}

export const latency: Family<LatencyAssertion> = {
  names: ['latency'],
  native: {
    value: 'none',
    threshold: true,
    read: ({ file, node, threshold }) => {
      if (!threshold)
        file.fail(node, `a 'latency' assertion has no 'threshold': expected a duration such as 10s, or milliseconds`);
      return { type: 'latency', negate: false, thresholdMs: file.duration(threshold!, { ms: true }) };
    },
  },
  promptfoo: ({ threshold, fail }) => {
    if (threshold === undefined || threshold <= 0)
      fail('threshold', "a 'latency' assertion needs 'threshold': expected milliseconds, such as 5000");
    return { type: 'latency', negate: false, thresholdMs: threshold! };
  },
  evaluation: {
    // Against the low end of what the polls tell: a reply seen late only because of when the task
    // was polled never fails the threshold.
    holds: (a, _text, latency) => latency.lowMs <= a.thresholdMs,
    measured: (_a, _reply, { ms, lowMs }) =>
      lowMs >= ms ? ` (took ${ms}ms)` : ` (took ${ms}ms, between ${lowMs} and ${ms}ms: polled every ${ms - lowMs}ms)`,
  },
  describe: (a) => `${assertionName(a)} ≤ ${a.thresholdMs}ms`,
};
