// The docs' screenshot of the status page (docs/status-page.png) carries, in a PNG text chunk, the
// fingerprint of what it was made from: the page's renderer and the preview week it shows. A test
// without a browser holds the two equal, so the picture cannot go stale unseen; the browser test
// remakes it with UPDATE_SCREENSHOT=1.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const ROOT = join(import.meta.dirname, '..', '..');
export const DOCS_SCREENSHOT = join(ROOT, 'docs', 'status-page.png');
/** What the picture shows is made by these: the page's renderer and the week it renders. */
export const SCREENSHOT_SOURCES = [
  'src/health/status-page.ts',
  'src/health/dora-report.ts',
  'src/health/uptime.ts',
  'test/sim/week.ts',
];
const KEYWORD = 'claw-deploy:sources';

/** The sources' fingerprint: sha-256 over each file's name and contents, line endings as committed. */
export function sourcesFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of SCREENSHOT_SOURCES) hash.update(`${file}\0${readFileSync(join(ROOT, file), 'utf8')}\0`);
  return hash.digest('hex');
}

/** The fingerprint a PNG carries, or undefined. */
export function fingerprintOf(png: Buffer): string | undefined {
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const text = png.toString('latin1', at + 8, at + 8 + length);
      const [keyword, value] = text.split('\0');
      if (keyword === KEYWORD) return value;
    }
    if (type === 'IEND') return undefined;
    at += 12 + length;
  }
  return undefined;
}

/** The PNG with the fingerprint in a text chunk after its header (IHDR is always first). */
export function withFingerprint(png: Buffer, fingerprint: string): Buffer {
  const data = Buffer.from(`${KEYWORD}\0${fingerprint}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const headerEnd = 8 + 12 + png.readUInt32BE(8);
  return Buffer.concat([png.subarray(0, headerEnd), chunk, png.subarray(headerEnd)]);
}
