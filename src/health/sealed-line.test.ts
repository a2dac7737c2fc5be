import { describe, expect, it } from 'vitest';
import { sealKey, stateSealKey } from '../shared/seal.js';
import { resealOlder, sealLine, unsealLine } from './sealed-line.js';

const REPO = 'octo/claws';
const LINE = '{"claw":"bot-a","at":1,"state":"healthy"}';

describe('sealed history lines across a key rotation', () => {
  it('a line sealed under the API key reads once a state-secret is set, and is sealed again under it', () => {
    const before = sealLine(LINE, sealKey('api-key-one', REPO));
    const withSecret = stateSealKey({ stateSecret: 'state-secret-0123456789', apiKey: 'api-key-one' }, REPO);
    expect(unsealLine(before, withSecret)).toBe(LINE);
    const resealed = resealOlder(`${before}\nnot a line\n`, withSecret);
    expect(resealed).not.toContain(before);
    expect(resealed.endsWith('not a line\n')).toBe(true);
    // After the API key is rotated, the state-secret still reads it; the old API key's seal alone would not.
    const rotated = stateSealKey({ stateSecret: 'state-secret-0123456789', apiKey: 'api-key-two' }, REPO);
    expect(unsealLine(resealed.split('\n')[0], rotated)).toBe(LINE);
    expect(unsealLine(before, rotated)).toBeUndefined();
  });

  it('an edited line reads as nothing and is never sealed again', () => {
    const key = stateSealKey({ stateSecret: 'state-secret-0123456789', apiKey: 'api-key-one' }, REPO);
    const edited = sealLine(LINE, sealKey('api-key-one', REPO)).replace('healthy', 'down');
    expect(unsealLine(edited, key)).toBeUndefined();
    expect(resealOlder(edited, key)).toBe(edited);
  });
});
