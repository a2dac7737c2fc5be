import { describe, expect, it } from 'vitest';
import { normalizeStatus, statusClassifier } from './status.js';

describe('statusClassifier', () => {
  const classify = statusClassifier();

  it.each([
    ['succeeded', 'succeeded'],
    ['Live', 'succeeded'],
    ['ACTIVE', 'succeeded'],
    ['failed', 'failed'],
    ['Timed Out', 'failed'],
    ['timed-out', 'failed'],
    ['canceled', 'failed'],
    ['rolled-back', 'rolled_back'],
    ['RolledBack', 'rolled_back'],
    ['reverted', 'rolled_back'],
    ['on hold', 'paused'],
    ['Needs-Attention', 'paused'],
    ['pending', 'in_progress'],
    ['rolling_back', 'in_progress'],
    ['something new', 'in_progress'],
    [undefined, 'in_progress'],
  ] as const)('%s reads as %s', (status, cls) => expect(classify(status)).toBe(cls));

  it('adds the user words, which win over the built-in ones', () => {
    const custom = statusClassifier({ success: ['Shipped'], failure: ['kaput', 'done'] });
    expect(custom('shipped')).toBe('succeeded');
    expect(custom('KAPUT')).toBe('failed');
    expect(custom('done')).toBe('failed');
    expect(custom('live')).toBe('succeeded');
  });

  it('normalizes case, dashes and spaces', () => {
    expect(normalizeStatus(' Needs -  Attention ')).toBe('needs_attention');
  });
});
