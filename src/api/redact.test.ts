import { describe, expect, it } from 'vitest';
import { redactor } from './redact.js';

const KEY = 'sk_live_9f8e7d6c5b4a3210';
const AUTH = `Bearer ${KEY}`;

/** Every form the issue names, of the key and of the whole Authorization value. */
export function encodedForms(secret: string): string[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const b64url = (s: string) => Buffer.from(s).toString('base64url');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    b64(secret),
    b64url(secret),
    // inside a longer encoded blob, at every alignment
    b64(`a${secret}z`),
    b64(`ab${secret}zz`),
    b64url(`abc${secret}`),
  ];
}

describe('redactor', () => {
  const redact = redactor([KEY, AUTH]);
  it.each([KEY, AUTH])('removes every encoded form of %s', (secret) => {
    for (const form of encodedForms(secret)) {
      const out = redact(`before ${form} after`);
      for (const plain of [KEY, Buffer.from(KEY).toString('base64').slice(2, 20)]) expect(out).not.toContain(plain);
      expect(out).toContain('***');
    }
  });

  it('leaves text without the key alone', () => {
    expect(redact('deployment dep_1 is live')).toBe('deployment dep_1 is live');
  });
});
