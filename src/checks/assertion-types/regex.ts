// A regular expression the reply matches: RE2, so linear time; case-sensitive unless `(?i)`.
import { PATTERN_EXPECTED, type ReplyPattern, compilePattern, patternProblem } from '../../shared/pattern.js';
import { show } from '../promptfoo/located.js';
import { type Family, assertionName } from './family.js';

export interface RegexAssertion {
  type: 'regex';
  negate: boolean;
  pattern: ReplyPattern;
}

/** Compiles a `regex` value: RE2, case-sensitive unless `(?i)`; throws RE2's reason. */
export function compileRegex(source: string): ReplyPattern {
  return compilePattern(source, { caseInsensitive: false });
}

export const regex: Family<RegexAssertion> = {
  names: ['regex'],
  native: {
    value: 'required',
    read: ({ file, negate, value }) => {
      try {
        return { type: 'regex', negate, pattern: compileRegex(file.text(value!, 'a string')) };
      } catch (err) {
        return file.failValue(value!, `${PATTERN_EXPECTED} (${patternProblem(err)})`);
      }
    },
  },
  promptfoo: ({ negate, value, fail, text }) => {
    try {
      return { type: 'regex', negate, pattern: compileRegex(text('a regular expression')) };
    } catch (err) {
      return fail('value', `'value' is ${show(value)}: expected ${PATTERN_EXPECTED} (${patternProblem(err)})`);
    }
  },
  evaluation: { holds: (a, text) => a.pattern.test(text) },
  describe: (a) => `${assertionName(a)} /${a.pattern.source}/`,
};
