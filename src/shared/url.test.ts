// An address is never echoed with its user and password, parsed or not.
import { describe, expect, it } from 'vitest';
import { readSettings } from '../core/run.js';
import { withoutUserinfo } from './url.js';

describe('withoutUserinfo', () => {
  it.each([
    ['https://deploy:pw@api.example.com/v1', 'https://***@api.example.com/v1'],
    ['https://a:b@c@host/x', 'https://***@host/x'],
    ['deploy:pw@host/v1', '***@host/v1'],
    ['https://host/path@x', 'https://host/path@x'],
    ['http://localhost:8080/v1', 'http://localhost:8080/v1'],
  ])('%s → %s', (written, shown) => {
    expect(withoutUserinfo(written)).toBe(shown);
  });
});

describe("settings' refusals", () => {
  const read = (inputs: Record<string, string>) => () =>
    readSettings((name) => ({ command: 'deploy', 'claw-id': 'c1', wait: 'true', ...inputs })[name] ?? '');

  it('a base-url with a password is refused without echoing it', () => {
    expect(read({ 'api-key': 'k', 'base-url': 'http://u:hunter2-Pw9Xq@example.com/v1' })).toThrow(
      /^Input 'base-url' is "http:\/\/\*\*\*@example\.com\/v1": expected an https URL/,
    );
  });

  it('an api-key no HTTP header can carry is bad input, never echoed', () => {
    expect(read({ 'api-key': 'ams-key-€-0123', 'base-url': 'https://api.example.com' })).toThrow(
      "Input 'api-key' holds a character no HTTP header can carry: expected the key as the service issued it.",
    );
  });
});
