// docs/status-page.png is the page as the renderer and the preview week make it now: its fingerprint
// equals the sources'. No browser needed; the browser test remakes the picture.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_SCREENSHOT, fingerprintOf, sourcesFingerprint, withFingerprint } from './screenshot.ts';

describe("the docs' screenshot of the status page", () => {
  it('was made from the page and the preview week as they are (else: UPDATE_SCREENSHOT=1 npx vitest run test/browser)', () => {
    expect(fingerprintOf(readFileSync(DOCS_SCREENSHOT)), 'docs/status-page.png is stale').toBe(sourcesFingerprint());
  });

  it('reads back the fingerprint it writes, and none from a PNG without one', () => {
    const png = readFileSync(DOCS_SCREENSHOT);
    const plain = withFingerprint(png, 'x').length - png.length;
    expect(plain).toBeGreaterThan(12);
    expect(fingerprintOf(withFingerprint(png, 'abc123'))).toBe('abc123');
    // A PNG of only its signature, header and end: no text chunk, no fingerprint.
    const ihdr = 8 + 12 + png.readUInt32BE(8);
    expect(fingerprintOf(Buffer.concat([png.subarray(0, ihdr), png.subarray(png.length - 12)]))).toBeUndefined();
  });
});
