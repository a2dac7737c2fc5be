import { describe, expect, it } from 'vitest';
import { readSealed, sealKey, sealedMarker, stateSealKey } from './seal.js';

const key = sealKey('ams-key-0123456789', 'octo/claws');

describe('sealed state', () => {
  it('reads back what it sealed, and never shows the key', () => {
    const line = sealedMarker('incident', { claw: 'c1', runs: 3 }, key);
    expect(line).toMatch(/^<!-- claw-deploy incident: [\w-]+\.[\w-]{43} -->$/);
    expect(line).not.toContain('ams-key-0123456789');
    expect(readSealed(`before\n${line}\nafter`, 'incident', key)).toEqual({
      found: true,
      state: { claw: 'c1', runs: 3 },
    });
    expect(readSealed('no marker here', 'incident', key)).toEqual({ found: false });
  });

  it.each([
    ['another repository', sealKey('ams-key-0123456789', 'octo/other')],
    ['another API key', sealKey('ams-key-9999999999', 'octo/claws')],
  ])('refuses a state sealed for %s', (_name, other) => {
    const read = readSealed(sealedMarker('incident', { claw: 'c1' }, other), 'incident', key);
    expect(read).toEqual({ found: true, problem: expect.stringMatching(/seal does not match/) });
  });

  it('refuses an edited payload, a cut seal, and a state moved to another kind', () => {
    const line = sealedMarker('incident', { claw: 'c1' }, key);
    const edited = line.replace(/incident: [^.]+/, `incident: ${Buffer.from('{"claw":"c2"}').toString('base64url')}`);
    expect(readSealed(edited, 'incident', key)).toMatchObject({ problem: expect.stringMatching(/does not match/) });
    expect(readSealed(line.replace(/\.[\w-]+ -->/, '.abc -->'), 'incident', key)).toMatchObject({
      problem: expect.stringMatching(/not sealed/),
    });
    const moved = line.replace('incident:', 'preview-state:');
    expect(readSealed(moved, 'preview-state', key)).toMatchObject({ problem: expect.stringMatching(/does not match/) });
  });

  it('with a state-secret: what the API key sealed still reads (marked older), a rotated API key changes nothing', () => {
    const before = sealedMarker('incident', { claw: 'c1' }, key);
    const ring = stateSealKey({ stateSecret: 'state-secret-0123456789', apiKey: 'ams-key-0123456789' }, 'octo/claws');
    expect(readSealed(before, 'incident', ring)).toEqual({ found: true, state: { claw: 'c1' }, older: true });
    const resealed = sealedMarker('incident', { claw: 'c1' }, ring);
    const rotated = stateSealKey(
      { stateSecret: 'state-secret-0123456789', apiKey: 'ams-key-rotated-999' },
      'octo/claws',
    );
    expect(readSealed(resealed, 'incident', rotated)).toEqual({ found: true, state: { claw: 'c1' } });
    // Another state-secret reads neither; without one, the API key alone seals, as before.
    const other = stateSealKey(
      { stateSecret: 'another-secret-0123456789', apiKey: 'ams-key-rotated-999' },
      'octo/claws',
    );
    expect(readSealed(resealed, 'incident', other)).toMatchObject({ problem: expect.stringMatching(/does not match/) });
    expect(stateSealKey({ stateSecret: '', apiKey: 'ams-key-0123456789' }, 'octo/claws')).toEqual(key);
    expect(readSealed(sealedMarker('incident', { claw: 'c1' }, rotated), 'incident', key)).toMatchObject({
      problem: expect.stringMatching(/set state-secret before rotating the API key/),
    });
  });
});
