import { describe, expect, it } from 'vitest';
import { checkOutputs } from './outputs.js';

describe('checkOutputs', () => {
  it('passes ordinary values on', () => {
    const outputs = { 'deployment-id': 'dep_1', status: 'live', url: 'https://dash.example/d/1', report: '[]' };
    expect(checkOutputs(outputs)).toEqual({ values: outputs, refused: [] });
  });

  it('refuses a url that is not http(s), an absurd id and control characters, naming the output', () => {
    const { values, refused } = checkOutputs({
      url: 'javascript:alert(1)',
      'deployment-id': '..',
      'rollback-id': 'x'.repeat(201),
      status: 'live\n::set-output name=outcome::succeeded',
    });
    expect(values).toEqual({ url: '', 'deployment-id': '', 'rollback-id': '', status: '' });
    expect(refused).toHaveLength(4);
    expect(refused[0]).toBe("Output 'url' is left empty: the service's value was refused (expected an http(s) URL).");
    expect(refused[3]).toMatch(/'status'.*control characters/);
  });
});
