// A promptfoo config's `javascript` (a function of the reply, run by script.ts in a worker) and
// `assert-set` (assertions scored together, scoring.ts): read here; the native format has neither.
import { isObj } from '../promptfoo/located.js';
import type { Family } from './family.js';

export const scripts: Family = {
  names: ['javascript', 'assert-set'],
  gradedBy: 'script',
  promptfoo: ({ type, negate, value, a, threshold, fail, javascript, assertion }) => {
    if (type === 'assert-set') {
      if (!Array.isArray(a.assert) || a.assert.length === 0)
        fail('assert', "an assert-set has no 'assert': expected a list of assertions");
      return { type, negate: false, assert: (a.assert as unknown[]).map(assertion), threshold };
    }
    if (value === undefined || (typeof value !== 'string' && typeof value !== 'number'))
      fail(
        'value',
        "a 'javascript' assertion's 'value' is missing: expected an expression such as output.length < 200, or file://check.js",
      );
    const script = javascript(String(a.value));
    if (a.config !== undefined && !isObj(a.config)) fail('config', "'config' is not a mapping");
    return { type, negate, script, threshold, ...(isObj(a.config) ? { config: a.config } : {}) };
  },
};
