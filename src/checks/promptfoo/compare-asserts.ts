// promptfoo's select-best and max-score as a test writes them: read apart from the test's other
// assertions, since they compare the Claws that answered the test (compare-claws.ts) rather than
// score one reply.
import type { CompareAssertion } from '../check.js';
import { type AssertContext } from './assert-context.js';
import { judgeOf, renderValue, resolveRef, valueShown, writtenForm } from './asserts.js';
import { rubricSource } from './grading-prompts.js';
import { aType } from '../../shared/format.js';
import { type Obj, isObj, show } from './located.js';
import { rubricMessages, stringified } from './rubric.js';

/** The keys a select-best or max-score assertion reads; the others promptfoo does not read for them. */
const COMPARE_KEYS: Record<CompareAssertion['type'], string[]> = {
  'select-best': ['type', 'value', 'provider', 'rubricPrompt'],
  'max-score': ['type', 'value'],
};
const COMPARE_UNREAD = ['threshold', 'weight', 'metric', 'provider', 'rubricPrompt', 'transform'];
const MAX_SCORE_KEYS = ['method', 'weights', 'threshold'];

/**
 * One of a test's own assertions when it is promptfoo's select-best or max-score, which compare
 * the Claws that answered the test (compare-claws.ts); undefined for any other assertion.
 */
export function readCompare(raw: unknown, ctx: AssertContext): CompareAssertion | undefined {
  if (isObj(raw) && typeof raw.$ref === 'string') raw = resolveRef(raw, ctx);
  if (!isObj(raw) || typeof raw.type !== 'string') return undefined;
  const a = raw;
  const written = a.type as string;
  const type = written.startsWith('not-') ? written.slice(4) : written;
  if (type !== 'select-best' && type !== 'max-score') return undefined;
  const fail: (key: string | undefined, message: string) => never = (key, message) => ctx.places.fail(a, key, message);
  if (written !== type) fail('type', `'${written}' has no not- form: expected '${type}'`);
  for (const key of Object.keys(a)) {
    if (COMPARE_KEYS[type].includes(key)) continue;
    if (COMPARE_UNREAD.includes(key)) {
      const instead = type === 'max-score' && key === 'threshold' ? ', which reads value.threshold' : '';
      ctx.ignored?.push(`'${key}' of a ${type} assertion (promptfoo does not read it${instead})`);
      continue;
    }
    fail(
      key,
      `unknown key '${key}' in ${aType(type)} assertion: expected ${COMPARE_KEYS[type].map((k) => `'${k}'`).join(', ')}`,
    );
  }
  const at = ctx.places.where(a);
  const where = at ? `${at.file}, line ${at.line}` : 'the config';
  const value = renderValue(a, ctx);
  const form = writtenForm(a, value);
  if (type === 'select-best') {
    if (typeof value !== 'string' || !value.trim())
      fail('value', `a 'select-best' assertion's ${valueShown(value)}: expected the criterion the best reply meets`);
    const judge = judgeOf(a, ctx);
    const rubricPrompt = rubricSource(a, ctx);
    if (rubricPrompt !== undefined) {
      const holder = a.rubricPrompt !== undefined ? a : ctx.options;
      try {
        const standIn = { ...ctx.vars, criteria: 'criteria', outputs: ['output 0', 'output 1'] };
        rubricMessages(rubricPrompt, stringified(standIn), true);
      } catch (err) {
        ctx.places.fail(holder, 'rubricPrompt', `'rubricPrompt' cannot be rendered: ${(err as Error).message}`);
      }
    }
    return { type, criteria: value as string, judge, ...(rubricPrompt ? { rubricPrompt } : {}), where, written: form };
  }
  const options = value ?? {};
  if (!isObj(options))
    fail(
      'value',
      `a 'max-score' assertion's 'value' is ${show(value)}: expected a mapping of method, weights and threshold`,
    );
  const o = options as Obj;
  for (const key of Object.keys(o))
    if (!MAX_SCORE_KEYS.includes(key))
      ctx.places.fail(o, key, `unknown key '${key}' in max-score's 'value': expected 'method', 'weights', 'threshold'`);
  if (o.method !== undefined && o.method !== 'average' && o.method !== 'sum')
    ctx.places.fail(o, 'method', `'method' is ${show(o.method)}: expected 'average' (the default) or 'sum'`);
  if (o.threshold !== undefined && (typeof o.threshold !== 'number' || !Number.isFinite(o.threshold)))
    ctx.places.fail(
      o,
      'threshold',
      `'threshold' is ${typeof o.threshold === 'number' ? String(o.threshold) : show(o.threshold)}: expected a number`,
    );
  const weights: Record<string, number> = {};
  if (o.weights !== undefined) {
    if (!isObj(o.weights))
      ctx.places.fail(o, 'weights', "'weights' is not a mapping: expected assertion types and their weights");
    for (const [name, weight] of Object.entries(o.weights as Obj)) {
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
        ctx.places.fail(
          o.weights,
          name,
          `the weight of '${name}' is ${typeof weight === 'number' ? String(weight) : show(weight)}: expected a number of at least 0`,
        );
      weights[name] = weight as number;
    }
  }
  return {
    type,
    method: (o.method as 'average' | 'sum' | undefined) ?? 'average',
    weights,
    ...(o.threshold === undefined ? {} : { threshold: o.threshold as number }),
    where,
    written: form,
  };
}
