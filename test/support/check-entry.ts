// One check's entry as the gate writes it: one attempt, passed. For the tests that need an entry
// and care about a field or two (`fields` replaces any).
import type { CheckEntry } from '../../src/checks/result.js';

export const checkEntry = (fields: Partial<CheckEntry> = {}): CheckEntry => ({
  check: 'q1',
  clawId: 'c1',
  passed: true,
  passes: 1,
  attempts: 1,
  repeat: 1,
  minPass: 1,
  failures: 0,
  errors: 0,
  replies: [],
  ...fields,
});
