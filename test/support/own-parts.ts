// Files pushed to a history branch as the action's own parts: the files, and the sealed index that
// names them (as the run that wrote them would have left it), for tests that start from a history.
import { createHash } from 'node:crypto';
import type { SealKey } from '../../src/shared/seal.ts';
import { AREAS, INDEX_PATH, type StoreIndex, indexText, nextIndex } from '../../src/health/store-index.ts';

/** Git's blob id of `content`: what the fake GitHub's listing gives it. */
export const gitBlobSha = (content: string): string =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(content, 'utf8')}\0`)
    .update(content, 'utf8')
    .digest('hex');

/** `files` and the index naming each of them as the action's own. */
export function ownParts(files: Record<string, string>, seal: SealKey): Record<string, string> {
  const empty: StoreIndex = Object.fromEntries(AREAS.map((a) => [a, []]));
  const changes = Object.entries(files).map(([path, content]) => ({ path, content }));
  return { ...files, [INDEX_PATH]: indexText(nextIndex(empty, {}, changes, gitBlobSha), seal) };
}
