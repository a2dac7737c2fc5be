// Assertions on a Claw's reply, named as promptfoo names them, each negatable with `not-`
// (`latency` excepted). Replies are compared trimmed; only `icontains` ignores case, and `regex`
// (RE2, linear time) is case-sensitive unless the pattern says `(?i)`.
import { type ReplyPattern, compilePattern } from '../pattern.js';

export const ASSERTION_TYPES = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'starts-with',
  'regex',
  'is-json',
  'latency',
] as const;
export type AssertionType = (typeof ASSERTION_TYPES)[number];

/** Types whose value is a list of strings. */
export const LIST_TYPES: readonly AssertionType[] = ['contains-any', 'contains-all'];
/** Types that take no value. */
export const NO_VALUE_TYPES: readonly AssertionType[] = ['is-json', 'latency'];

export type Assertion =
  | {
      type: Exclude<AssertionType, 'contains-any' | 'contains-all' | 'regex' | 'latency'>;
      negate: boolean;
      value: string;
    }
  | { type: 'contains-any' | 'contains-all'; negate: boolean; values: string[] }
  | { type: 'regex'; negate: boolean; pattern: ReplyPattern }
  | { type: 'latency'; negate: false; thresholdMs: number };

/** The name as written: `not-icontains`. */
export function assertionName(a: Assertion): string {
  return `${a.negate ? 'not-' : ''}${a.type}`;
}

/** Compiles a `regex` value: RE2, case-sensitive unless `(?i)`; throws RE2's reason. */
export function compileRegex(source: string): ReplyPattern {
  return compilePattern(source, { caseInsensitive: false });
}

/** Whether the assertion holds for a reply that took `latencyMs`. */
export function holds(a: Assertion, reply: string, latencyMs: number): boolean {
  const text = reply.trim();
  const result = ((): boolean => {
    switch (a.type) {
      case 'equals':
        return text === a.value;
      case 'contains':
        return text.includes(a.value);
      case 'icontains':
        return text.toLowerCase().includes(a.value.toLowerCase());
      case 'starts-with':
        return text.startsWith(a.value);
      case 'contains-any':
        return a.values.some((v) => text.includes(v));
      case 'contains-all':
        return a.values.every((v) => text.includes(v));
      case 'regex':
        return a.pattern.test(text);
      case 'is-json':
        try {
          JSON.parse(text);
          return true;
        } catch {
          return false;
        }
      case 'latency':
        return latencyMs <= a.thresholdMs;
    }
  })();
  return a.negate ? !result : result;
}

/** One line on what was asserted, for a failure: `icontains "hello"`, `latency ≤ 10000ms`. */
export function describeAssertion(a: Assertion): string {
  const name = assertionName(a);
  switch (a.type) {
    case 'contains-any':
    case 'contains-all':
      return `${name} ${JSON.stringify(a.values)}`;
    case 'regex':
      return `${name} /${a.pattern.source}/`;
    case 'is-json':
      return name;
    case 'latency':
      return `${name} ≤ ${a.thresholdMs}ms`;
    default:
      return `${name} ${JSON.stringify(a.value)}`;
  }
}
