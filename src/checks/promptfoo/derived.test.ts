// derivedMetrics: promptfoo's mathjs expressions, the arithmetic part, evaluated without code.
import { describe, expect, it } from 'vitest';
import { derive, parseExpression } from './derived.js';

const metric = (name: string, value: string) => ({ name, value, expr: parseExpression(value) });

describe('derived metrics', () => {
  it('evaluates + - * / ^ and parentheses over named metrics and __count, each seeing the ones before', () => {
    const out = derive(
      [
        metric('precision', 'tp / (tp + fp)'),
        metric('recall', 'tp / (tp + fn)'),
        metric('f1', '2 * precision * recall / (precision + recall)'),
        metric('mean', 'tp / __count'),
        metric('neg', '-2^2 + 1e1'),
      ],
      { tp: 3, fp: 1, fn: 3 },
      6,
    );
    expect(out).toEqual({ precision: 0.75, recall: 0.5, f1: 0.6, mean: 0.5, neg: 6 });
  });

  it('keeps 0 for a metric that names one not there, or divides by zero, as promptfoo keeps its 0', () => {
    expect(derive([metric('x', 'missing * 2'), metric('y', 'a / 0')], { a: 1 }, 1)).toEqual({ x: 0, y: 0 });
  });

  it('refuses what it cannot evaluate, saying why', () => {
    expect(() => parseExpression('max(a, b)')).toThrow(/it calls max\(…\), a function/);
    expect(() => parseExpression('a = 1')).toThrow(/"=" is not an operator/);
    expect(() => parseExpression('(a + 1')).toThrow(/expected '\)'/);
  });
});
